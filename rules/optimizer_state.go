package rules

import (
	"fmt"

	"github.com/oomdoc/oomdoc/parser"
)

// optimizerState: the optimizer's states (Adam: two float32 copies of every
// trainable parameter) are created at the first step.
func optimizerState() Rule {
	return Rule{
		ID:        "optimizer-state",
		Title:     "Optimizer state: Adam keeps two float32 copies of every trainable parameter",
		Recognise: "A failure in optimizer.step(), _multi_tensor_adam, _init_group, or zeros_like of exp_avg — usually at the very first step.",
		Check:     checkOptimizerState,
	}
}

// optimizerCue holds the words that point at an optimizer step.
func optimizerCue() cue {
	return words("exp_avg", "_init_group", "optimizer.step", "_multi_tensor_adam", "_single_tensor_adam", "optim.step", "scaler.step")
}

func checkOptimizerState(f *Facts) *Finding {
	ev := f.Ev
	e, ok := f.Find(optimizerCue())
	if !ok && ev.Phase != parser.PhaseOptimizer {
		return nil
	}
	if !ok {
		e = f.EventLine()
	}
	fd := &Finding{Culprit: "optimizer-state", Event: ev.ID, Confidence: 0.85, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested, Training: true, Params: f.Params}}
	fd.Evidence = append(fd.Evidence, e, f.EventLine())
	fd.Title = "The optimizer's state is created at the first step and does not fit"
	fd.Explanation = "Adam and AdamW allocate exp_avg and exp_avg_sq — two float32 tensors the size of every trainable parameter — on the first optimizer.step(). For full fine-tuning that is 8 bytes per parameter on top of weights and gradients."
	if f.Params > 0 {
		fd.Quantities.WeightBytes = f.Params * 8
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("Adam state ≈ %s params × 8 B = %s", billions(f.Params), gb(f.Params*8)))
	}
	return fd
}
