package rules

// All returns every rule, one per culprit id of spec/culprits.md, in id
// order. A new culprit is added here, with its file, its fixtures under
// fixtures/culprits/<id>/ and its explain page in the advice package;
// TestRegistry names whichever is missing.
func All() []Rule {
	return []Rule{
		activations(),
		allocationLimit(),
		attentionMatrix(),
		batchTooLarge(),
		checkpointToGPU(),
		deviceImbalance(),
		fragmentation(),
		hostRAM(),
		kvCache(),
		leak(),
		libraryWorkspace(),
		logitsUpcast(),
		mpsLimit(),
		noGradMissing(),
		optimizerState(),
		otherProcess(),
		servingMemoryBudget(),
		vaeDecode(),
		visualTokens(),
		weightsTooLarge(),
		weightsWrongDtype(),
	}
}

// Lookup returns the rule with the id.
func Lookup(id string) (Rule, bool) {
	for _, r := range All() {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}
