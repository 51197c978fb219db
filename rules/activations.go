package rules

import (
	"fmt"

	"github.com/oomdoc/oomdoc/parser"
)

// activations: forward/backward activations of too large a batch or
// sequence in training. It fires on backward frames, on a forward inside a
// training loop, and on a full device in a job that looks like training.
func activations() Rule {
	return Rule{
		ID:        "activations",
		Title:     "Training activations: batch × sequence too large for what the device has left",
		Recognise: "A failure in backward() / autograd, or in a forward pass under grad inside a training loop; TensorFlow's OOM in a training step.",
		Check:     checkActivations,
	}
}

func checkActivations(f *Facts) *Finding {
	ev := f.Ev
	switch ev.Kind {
	case parser.KindHostKill, parser.KindCPU, parser.KindServing, parser.KindNCCL, parser.KindCUBLAS:
		return nil
	}
	switch ev.Phase {
	case parser.PhaseLoad, parser.PhaseGenerate, parser.PhaseDecode, parser.PhaseOptimizer, parser.PhaseEval:
		return nil // no training activations exist at these points
	}
	fd := &Finding{Culprit: "activations", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested, Training: true}}
	fd.Title = "Activations of the training step do not fit"
	fd.Explanation = "Training keeps every layer's activations until backward() consumes them; their size is proportional to batch × sequence length (× hidden size × layers). Smaller micro-batches, shorter sequences or recomputing activations (gradient checkpointing) shrink them."
	switch {
	case ev.Phase == parser.PhaseBackward:
		fd.Confidence = 0.6
		e, _ := f.Find(words("backward"))
		fd.Evidence = append(fd.Evidence, e)
	case ev.Phase == parser.PhaseForward && f.Training >= 0.8:
		fd.Confidence = 0.55
		e, _ := f.Find(trainingCue())
		fd.Evidence = append(fd.Evidence, e)
	case ev.Kind == parser.KindTF || ev.Kind == parser.KindXLA:
		fd.Confidence = 0.45
		if s := ev.TensorShape; len(s) > 0 {
			fd.Quantities.Batch = s[0]
			fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("failing tensor %v: its first dimension (%d) is usually the batch", s, s[0]))
		}
		fd.Decide = "whether this is a training step (a traceback through the train loop) and the batch size"
	case f.TrainingLikely() && f.Capacity > 0 && f.Holder() >= f.Capacity*80/100:
		fd.Confidence = 0.4
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("held %s of %s (%s)", size(f.Holder()), size(f.Capacity), pct(f.Holder(), f.Capacity)))
		fd.Decide = "whether the job is training (a rank prefix, device index or datacenter GPU suggest it) and its micro-batch size"
	case f.Training >= 0.8 && ev.Phase == parser.PhaseUnknown:
		fd.Confidence = 0.35
	case f.Inference == 0 && f.Capacity > 0 && f.Holder() >= f.Capacity*80/100:
		// Nothing says training or inference: a plausible alternative.
		fd.Confidence = 0.25
		fd.Decide = "whether the failing step is training (a traceback through backward() or the train loop)"
	case ev.Kind == parser.KindCUDNN && f.Training > 0:
		fd.Confidence = 0.3
	default:
		return nil
	}
	fd.Evidence = append(fd.Evidence, f.EventLine())
	return fd
}
