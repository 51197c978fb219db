package rules

// All returns every culprit of spec/culprits.md, in id order. A new
// culprit is added here, with its file and its fixtures under
// fixtures/culprits/<id>/; TestRegistry names whichever is missing.
func All() []Culprit {
	return []Culprit{
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

// Lookup returns the culprit with the id.
func Lookup(id string) (Culprit, bool) {
	for _, c := range All() {
		if c.ID == id {
			return c, true
		}
	}
	return Culprit{}, false
}
