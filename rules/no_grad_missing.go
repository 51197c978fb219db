package rules

import "github.com/oomdoc/oomdoc/parser"

// noGradMissing: evaluation or inference that records autograd graphs. It
// fires on an evaluation path whose frames show no torch.no_grad or
// inference_mode, and — weakly — on PyTorch 0.x's THC message: 0.4 removed
// `volatile=True`, so evaluation code written for 0.3 started recording
// graphs and running out of memory.
func noGradMissing() Culprit {
	return Culprit{
		ID:             "no-grad-missing",
		Title:          "Evaluation or inference that records autograd graphs (no torch.no_grad / inference_mode)",
		Doc:            "Without torch.no_grad() or torch.inference_mode(), every forward pass records the autograd graph and keeps its activations for a backward pass that never comes. In an evaluation loop inside a training program they pile up batch after batch; model.eval() does not switch this off (it only changes dropout and batch-norm).",
		Recognise:      "An OOM in validation/eval/predict code with no no_grad or inference_mode in sight; memory growing during evaluation only; pre-0.4 code relying on volatile=True.",
		Excludes:       []string{parser.KindHostKill, parser.KindCPU, parser.KindServing, parser.KindNCCL, parser.KindXLA, parser.KindTF},
		ExcludesPhases: []string{parser.PhaseLoad, parser.PhaseBackward, parser.PhaseOptimizer},
		GuessNeeds:     autogradPossible,
		Signals: []Signal{
			{Name: noGradEvalInTraining, Strength: EvidenceSignal, Start: 1.2, Doc: "evaluation frames without no_grad in a program that also trains"},
			{Name: noGradEvalFrames, Strength: EvidenceSignal, Start: 0.6, Doc: "evaluation or prediction frames with no no_grad / inference_mode in sight"},
			{Name: noGradOldTorch, Strength: PriorSignal, Start: 0.0, Doc: "PyTorch 0.x's THC message (0.4 removed volatile=True)"},
		},
		WouldDecide: "whether the failing forward runs under torch.no_grad() / torch.inference_mode()",
		Capture:     "print torch.is_grad_enabled() just before the failing call",
		Assess:      checkNoGradMissing,
	}
}

// Signals of no-grad-missing.
const (
	noGradEvalInTraining = "no-grad-missing/eval-in-training"
	noGradEvalFrames     = "no-grad-missing/eval-frames"
	noGradOldTorch       = "no-grad-missing/torch-0.x"
)

// autogradPossible reports whether the failing program can record
// autograd graphs at all: it runs on PyTorch as parser.OnPyTorch tells
// (every framework it does not name as another stack) and not on a native
// inference runtime (ggml, a Vulkan or ONNX runtime, CTranslate2), which
// has no autograd to switch off.
func autogradPossible(f *Facts) bool {
	return parser.OnPyTorch(f.Ev) && !parser.InferenceRuntime(f.Ev.Framework)
}

func checkNoGradMissing(f *Facts) *Finding {
	ev := f.Ev
	if !autogradPossible(f) {
		return nil
	}
	// Libraries whose evaluation, prediction and generation paths run under
	// torch.no_grad or inference_mode already: the Trainer's steps,
	// Lightning's evaluation and prediction loops, detectron2's
	// inference_on_dataset, ultralytics' validator and predictor,
	// sentence-transformers' encode, generate and diffusers' pipelines (all
	// decorated, whose wrapper frame is decorate_context).
	if _, guarded := f.Find(words("no_grad", "inference_mode", "torch.inference", "decorate_context", "transformers/trainer.py", "prediction_step", "evaluation_loop", "prediction_loop.py", "inference_on_dataset", "validator.py", "predictor.py", "SentenceTransformer.py", "generation/utils.py", "diffusers/pipelines/")); guarded {
		return nil
	}
	if _, ok := f.Notice("no-grad"); ok {
		return nil
	}
	fd := &Finding{Culprit: "no-grad-missing", Event: ev.ID, Quantities: Quantities{RequestedBytes: f.Requested, Inference: true}}
	fd.Title = "Evaluation runs with autograd on, keeping every activation"
	fd.Explanation = "Without torch.no_grad() or torch.inference_mode(), a forward pass records the graph and keeps its activations for a backward pass that never comes; in an evaluation loop they pile up batch after batch. model.eval() does not switch this off."
	if e, ok := f.Find(parser.CueEval()); ok && (ev.Phase == parser.PhaseEval || ev.Phase == parser.PhaseForward || ev.Phase == parser.PhaseUnknown) {
		// Evaluation inside a training program is where no_grad is most
		// often forgotten; a stand-alone inference script is less telling.
		if f.Training >= 0.8 {
			fd.fire(noGradEvalInTraining)
		} else {
			fd.fire(noGradEvalFrames)
		}
		fd.Evidence = append(fd.Evidence, e, f.EventLine())
		return fd
	}
	if ev.Variant == "torch-0.x-thc" {
		fd.fire(noGradOldTorch)
		fd.Evidence = append(fd.Evidence, f.EventLine())
		fd.Explanation += " This message comes from PyTorch 0.x (THC), the era in which 0.4 removed Variable(volatile=True): evaluation code written for 0.3 silently started recording graphs."
		fd.Decide = "whether the failure happens in evaluation or inference code, and whether it runs under torch.no_grad()"
		return fd
	}
	return nil
}

// inEvaluation reports whether the frames or nearby lines show evaluation
// or test code: a forward there keeps no activations for a training step.
func (f *Facts) inEvaluation() bool {
	_, ok := f.Find(parser.CueEval())
	return ok
}
