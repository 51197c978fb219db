package rules

import (
	"fmt"

	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/snapshot"
)

// Signals of activations.
const (
	actBackward      = "activations/backward-frames"
	actTrainForward  = "activations/training-forward"
	actGraphRuntime  = "activations/graph-runtime"
	actTrainGraph    = "activations/training-graph-step"
	actTrainFull     = "activations/training-full-device"
	actTrainUnknown  = "activations/training-unknown-phase"
	actUndecidedFull = "activations/full-device"
	actCUDNNTraining = "activations/cudnn-in-training"
)

// activations: forward/backward activations of too large a batch or
// sequence in training. It fires on backward frames and on a forward inside
// a training loop; a full device in a job that looks like training, or a
// graph runtime's OOM, are only priors.
func activations() Culprit {
	return Culprit{
		ID:             "activations",
		Title:          "Training activations: batch × sequence too large for what the device has left",
		Doc:            "Training keeps every layer's activations from the forward pass until backward() consumes them. Their size is proportional to micro-batch × sequence length (× hidden size × layers), so the peak comes at the end of the forward or early in the backward pass. Smaller micro-batches with gradient accumulation, shorter sequences, mixed precision or recomputing activations (gradient checkpointing) shrink them.",
		Recognise:      "A failure in backward() / autograd, or in a forward pass under grad inside a training loop; TensorFlow's OOM in a training step.",
		Excludes:       []string{parser.KindHostKill, parser.KindCPU, parser.KindServing, parser.KindNCCL, parser.KindCUBLAS},
		ExcludesPhases: []string{parser.PhaseLoad, parser.PhaseGenerate, parser.PhaseDecode, parser.PhaseOptimizer, parser.PhaseEval},
		GuessNeeds:     trainingPossible,
		Signals: []Signal{
			{Name: activationMeasured, Strength: EvidenceSignal, Start: 2.0, Doc: "a memory snapshot shows activations holding at least 60% of the active memory"},
			{Name: actBackward, Strength: EvidenceSignal, Start: 1.5, Doc: "the failure is inside backward() / autograd"},
			{Name: actTrainForward, Strength: EvidenceSignal, Start: 1.0, Doc: "a forward pass inside a training loop the frames show"},
			{Name: actTrainGraph, Strength: EvidenceSignal, Start: 0.8, Doc: "a TensorFlow or XLA step inside a training loop the log shows (the compiled step hides forward and backward)"},
			{Name: actGraphRuntime, Strength: PriorSignal, Start: 0.3, Doc: "a TensorFlow or XLA graph runtime's OOM (most are training steps), in a log that does not say it runs inference only"},
			{Name: actTrainFull, Strength: PriorSignal, Start: 0.3, Doc: "a training-looking job with the device ≥ 80% held"},
			{Name: actTrainUnknown, Strength: PriorSignal, Start: 0.2, Doc: "a training log whose failing phase is not shown"},
			{Name: actUndecidedFull, Strength: PriorSignal, Start: 0.0, Doc: "a full device, and nothing says training or inference"},
			{Name: actCUDNNTraining, Strength: PriorSignal, Start: 0.0, Doc: "a cuDNN failure in a job with training cues"},
		},
		WouldDecide: "whether the failing step is training (a traceback through backward() or the train loop) and its micro-batch size",
		Capture:     "rerun with the full traceback, and print the batch's shape (and torch.cuda.max_memory_allocated()) after the first step",
		Assess:      checkActivations,
	}
}

// trainingPossible reports whether the failing program could be training:
// not a runtime that runs models only, unless the log itself shows
// training there (ONNX Runtime's ORTModule, llama.cpp's finetune).
func trainingPossible(f *Facts) bool {
	if !parser.InferenceRuntime(f.Ev.Framework) {
		return true
	}
	return f.Training > 0 || f.Ev.Phase == parser.PhaseBackward || f.Ev.Phase == parser.PhaseOptimizer
}

func checkActivations(f *Facts) *Finding {
	ev := f.Ev
	if !trainingPossible(f) {
		return nil
	}
	switch ev.Phase {
	case parser.PhaseLoad, parser.PhaseGenerate, parser.PhaseDecode, parser.PhaseOptimizer, parser.PhaseEval:
		return nil // no training activations exist at these points
	}
	fd := &Finding{Culprit: "activations", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested, Training: true}}
	fd.Title = "Activations of the training step do not fit"
	f.fireMeasured(fd, snapshot.KindActivation, activationMeasured, 0.6)
	fd.Explanation = "Training keeps every layer's activations until backward() consumes them; their size is proportional to batch × sequence length (× hidden size × layers). Smaller micro-batches, shorter sequences or recomputing activations (gradient checkpointing) shrink them."
	switch {
	case ev.Phase == parser.PhaseBackward:
		fd.fire(actBackward)
		e, _ := f.Find(words("backward"))
		fd.Evidence = append(fd.Evidence, e)
	case ev.Phase == parser.PhaseForward && f.Training >= 0.8 && !f.inEvaluation():
		fd.fire(actTrainForward)
		e, _ := f.Find(trainingCue())
		fd.Evidence = append(fd.Evidence, e)
	case (ev.Kind == parser.KindTF || ev.Kind == parser.KindXLA) && f.Training >= 0.8 && f.Training > f.Inference && !f.inEvaluation():
		// A compiled step hides forward and backward in one program; the
		// training loop around it is the evidence.
		fd.fire(actTrainGraph)
		e, _ := f.Find(trainingCue())
		fd.Evidence = append(fd.Evidence, e)
		if s := ev.TensorShape; len(s) > 0 {
			fd.Quantities.Batch = s[0]
			fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("failing tensor %v: its first dimension (%d) is usually the batch", s, s[0]))
		}
	case (ev.Kind == parser.KindTF || ev.Kind == parser.KindXLA) && !(f.Inference > 0 && f.Training == 0):
		// Most graph-runtime OOMs are training steps, unless the log says
		// it runs inference and nothing says training.
		fd.fire(actGraphRuntime)
		if s := ev.TensorShape; len(s) > 0 {
			fd.Quantities.Batch = s[0]
			fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("failing tensor %v: its first dimension (%d) is usually the batch", s, s[0]))
		}
		fd.Decide = "whether this is a training step (a traceback through the train loop) and the batch size"
	case f.TrainingLikely() && f.Capacity > 0 && f.Holder() >= f.Capacity*80/100:
		fd.fire(actTrainFull)
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("held %s of %s (%s)", size(f.Holder()), size(f.Capacity), pct(f.Holder(), f.Capacity)))
		fd.Decide = "whether the job is training (a rank prefix, device index or datacenter GPU suggest it) and its micro-batch size"
	case f.Training >= 0.8 && ev.Phase == parser.PhaseUnknown:
		fd.fire(actTrainUnknown)
	case f.Inference == 0 && f.Capacity > 0 && f.Holder() >= f.Capacity*80/100:
		// Nothing says training or inference: a plausible alternative.
		fd.fire(actUndecidedFull)
		fd.Decide = "whether the failing step is training (a traceback through backward() or the train loop)"
	case ev.Kind == parser.KindCUDNN && f.Training > 0:
		fd.fire(actCUDNNTraining)
	default:
		return nil
	}
	fd.Evidence = append(fd.Evidence, f.EventLine())
	return fd
}
