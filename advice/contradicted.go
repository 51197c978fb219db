package advice

// A report never both recommends a change and says the change will not
// help: the usual remedies ruled out for a failure remove the fixes they
// name from that failure's diagnoses.

// ruledOutFixes maps a usual won't-help remedy (ineffectiveFor) to the
// fix ids that are the same change.
func ruledOutFixes() map[string][]string {
	return map[string][]string{
		"checkpointing-for-inference":    {"gradient-checkpointing"},
		"fragmentation-settings":         {"expandable-segments", "max-split-size"},
		"raising-gpu-memory-utilization": {"raise-gpu-memory-utilization"},
		"reduce-batch-size":              {"halve-batch", "smaller-micro-batch"},
		"num-logits-to-keep":             {"logits-to-keep"},
	}
}

// dropRuledOut removes from each diagnosis the fixes that a won't-help
// entry for the same failure rules out.
func (rep *Report) dropRuledOut() {
	out := map[string]map[string]bool{} // event → fix ids ruled out
	for _, in := range rep.Ineffective {
		for _, id := range ruledOutFixes()[in.ID] {
			if out[in.Event] == nil {
				out[in.Event] = map[string]bool{}
			}
			out[in.Event][id] = true
		}
	}
	if len(out) == 0 {
		return
	}
	for i := range rep.Diagnoses {
		d := &rep.Diagnoses[i]
		gone := out[d.Event]
		if gone == nil {
			continue
		}
		kept := d.Fixes[:0]
		for _, fx := range d.Fixes {
			if !gone[fx.ID] {
				kept = append(kept, fx)
			}
		}
		d.Fixes = kept
	}
}
