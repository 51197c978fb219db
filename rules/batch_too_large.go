package rules

import (
	"fmt"
	"strconv"

	"github.com/oomdoc/oomdoc/parser"
)

// Signals of batch-too-large.
const (
	batchSetting      = "batch-too-large/batch-setting"
	batchInferForward = "batch-too-large/inference-forward"
	batchEval         = "batch-too-large/eval-phase"
)

// batchTooLarge: an inference batch too big for the activations it needs.
// It fires on a batched inference forward (a batch setting above 1) and,
// as a prior, on inference forwards and evaluation in general.
func batchTooLarge() Culprit {
	return Culprit{
		ID:             "batch-too-large",
		Title:          "An inference batch too large for the activations it needs",
		Doc:            "Activation memory in a forward pass scales with the batch: with the weights resident, a batch that fits for one input can fail for many at once. Inference keeps no activations for a backward pass, so the peak is one layer's temporaries × the batch; halving the batch halves it.",
		Recognise:      "An OOM in a batched inference forward whose size scales with the batch (batch_size > 1, many files or prompts at once).",
		Excludes:       []string{parser.KindHostKill, parser.KindCPU, parser.KindServing, parser.KindNCCL, parser.KindCUBLAS},
		ExcludesPhases: []string{parser.PhaseLoad, parser.PhaseBackward, parser.PhaseOptimizer},
		Signals: []Signal{
			{Name: batchSetting, Strength: EvidenceSignal, Start: 1.0, Doc: "the log sets a batch size above 1 for a non-training run"},
			{Name: batchInferForward, Strength: PriorSignal, Start: 0.2, Doc: "an inference forward pass"},
			{Name: batchEval, Strength: PriorSignal, Start: 0.2, Doc: "an evaluation pass"},
		},
		WouldDecide: "the batch size of the failing call: if it is 1, look at the sequence or image size instead",
		Capture:     "print the input batch's shape just before the failing call",
		Assess:      checkBatchTooLarge,
	}
}

func checkBatchTooLarge(f *Facts) *Finding {
	ev := f.Ev
	if f.TrainingLikely() || ev.Phase == parser.PhaseLoad || ev.Phase == parser.PhaseBackward || ev.Phase == parser.PhaseOptimizer {
		return nil
	}
	fd := &Finding{Culprit: "batch-too-large", Event: ev.ID, Quantities: Quantities{RequestedBytes: f.Requested, Inference: true}}
	fd.Title = "The inference batch is too large"
	fd.Explanation = "Activation memory in a forward pass scales with the batch. With weights resident, a batch that fits on one input can fail on many at once; halving the batch halves the activations."
	for _, name := range []string{"batch_size", "per_device_eval_batch_size", "eval_batch_size"} {
		if s, ok := f.Setting(name); ok {
			if b, err := strconv.ParseInt(s.Value, 10, 64); err == nil && b > 1 {
				fd.fire(batchSetting)
				fd.Quantities.Batch = b
				fd.Evidence = append(fd.Evidence, Evidence{Input: f.Input, Line: s.Line, Text: s.Name + "=" + s.Value})
				fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("batch %d: activations scale ×%d over a single input", b, b))
			}
		}
	}
	if len(fd.Signals) == 0 {
		switch {
		case ev.Phase == parser.PhaseForward && (f.Inference > 0 || ev.Kind == parser.KindMPS):
			fd.fire(batchInferForward)
			fd.Decide = "the batch size of the failing call: if it is 1, look at the sequence or image size instead"
		case ev.Phase == parser.PhaseEval || f.inEvaluation():
			fd.fire(batchEval)
			fd.Decide = "per_device_eval_batch_size and whether predictions are accumulated on the GPU (eval_accumulation_steps)"
		default:
			return nil
		}
	}
	fd.Evidence = append(fd.Evidence, f.EventLine())
	return fd
}
