package rules

import (
	"fmt"

	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/snapshot"
)

// optimizerState: the optimizer's states (Adam: two float32 copies of every
// trainable parameter) are created at the first step.
func optimizerState() Culprit {
	return Culprit{
		ID:             "optimizer-state",
		Title:          "Optimizer state: Adam keeps two float32 copies of every trainable parameter",
		Doc:            "Adam and AdamW allocate exp_avg and exp_avg_sq — two float32 tensors the size of every trainable parameter — on the first optimizer.step(). For full fine-tuning that is 8 bytes per parameter on top of the weights and the gradients; 8-bit optimizers, parameter-efficient fine-tuning (LoRA) or sharding the state (ZeRO/FSDP) shrink it.",
		Recognise:      "A failure in optimizer.step(), _multi_tensor_adam, _init_group, or zeros_like of exp_avg — usually at the very first step.",
		Excludes:       []string{parser.KindHostKill, parser.KindCPU, parser.KindServing},
		ExcludesPhases: []string{parser.PhaseLoad, parser.PhaseGenerate, parser.PhaseDecode},
		GuessNeeds:     trainingPossible,
		Signals: []Signal{
			{Name: optimizerMeasured, Strength: EvidenceSignal, Start: 4.0, Doc: "a memory snapshot shows optimizer state holding at least 30% of the active memory"},
			{Name: optimFrames, Strength: EvidenceSignal, Start: 2.5, Doc: "frames in the optimizer's step or its state initialisation"},
			{Name: optimPhase, Strength: EvidenceSignal, Start: 1.5, Doc: "the parser places the failure in the optimizer step"},
		},
		WouldDecide: "whether it fails at the first optimizer step",
		Capture:     "print torch.cuda.memory_allocated() before and after the first optimizer.step()",
		Assess:      checkOptimizerState,
	}
}

// Signals of optimizer-state.
const (
	optimFrames = "optimizer-state/optimizer-frames"
	optimPhase  = "optimizer-state/optimizer-phase"
)

func checkOptimizerState(f *Facts) *Finding {
	ev := f.Ev
	e, ok := f.Find(parser.CueOptimizer())
	if ok && (ev.Phase == parser.PhaseForward || ev.Phase == parser.PhaseBackward) {
		// The optimizer's frames hold the failing step as a closure
		// (Lightning's automatic optimization): the failure is that
		// step's forward or backward, before any state is made.
		ok = false
	}
	if _, _, measured := f.measuredShare(snapshot.KindOptimizer, 0.3); !ok && ev.Phase != parser.PhaseOptimizer && !measured {
		return nil
	}
	fd := &Finding{Culprit: "optimizer-state", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested, Training: true, Params: f.Params}}
	f.fireMeasured(fd, snapshot.KindOptimizer, optimizerMeasured, 0.3)
	if ok {
		fd.fire(optimFrames)
	} else {
		fd.fire(optimPhase)
		e = f.EventLine()
	}
	fd.Evidence = append(fd.Evidence, e, f.EventLine())
	fd.Title = "The optimizer's state is created at the first step and does not fit"
	fd.Explanation = "Adam and AdamW allocate exp_avg and exp_avg_sq — two float32 tensors the size of every trainable parameter — on the first optimizer.step(). For full fine-tuning that is 8 bytes per parameter on top of weights and gradients."
	if f.Params > 0 {
		fd.Quantities.WeightBytes = f.Params * 8
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("Adam state ≈ %s params × 8 B = %s", billions(f.Params), size(f.Params*8)))
	}
	return fd
}
