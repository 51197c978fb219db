package rules

import "github.com/oomdoc/oomdoc/parser"

// Prior contexts: the kinds of failure the base-rate table keeps apart.
// They are priors, not evidence: a rank prefix, a datacenter card or a
// device index above 0 make "training" likelier, and only the signals of
// a culprit can make a finding.
const (
	ctxHost         = "host"         // kernel OOM kills, CPU allocators
	ctxServing      = "serving"      // serving engines' admission errors and OOMs inside them
	ctxLibrary      = "library"      // cuBLAS, cuDNN, NCCL statuses
	ctxApple        = "apple"        // MPS, MLX, Metal
	ctxGraph        = "graph"        // TensorFlow, XLA/JAX
	ctxGPUTraining  = "gpu/training" // a device allocator's OOM in a job that looks like training
	ctxGPUInference = "gpu/inference"
	ctxGPUUnknown   = "gpu/unknown"
)

// priorContexts lists every context, for the fitter.
func priorContexts() []string {
	return []string{ctxHost, ctxServing, ctxLibrary, ctxApple, ctxGraph, ctxGPUTraining, ctxGPUInference, ctxGPUUnknown}
}

// priorContext is the context of one failure.
func priorContext(f *Facts) string {
	ev := f.Ev
	switch ev.Kind {
	case parser.KindHostKill, parser.KindCPU:
		return ctxHost
	case parser.KindServing:
		return ctxServing
	case parser.KindCUBLAS, parser.KindCUDNN, parser.KindNCCL:
		return ctxLibrary
	case parser.KindMPS:
		return ctxApple
	case parser.KindXLA, parser.KindTF:
		return ctxGraph
	case parser.KindGeneric:
		if d := ev.Device; d != nil && d.Type == "cpu" {
			return ctxHost // a runtime's own words that name host memory only
		}
	}
	switch ev.Framework {
	case "vllm", "sglang", "tgi", "lmdeploy":
		return ctxServing
	}
	switch {
	case f.TrainingLikely():
		return ctxGPUTraining
	case f.Inference > 0:
		return ctxGPUInference
	}
	return ctxGPUUnknown
}
