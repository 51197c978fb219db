package snapshot

import (
	"regexp"
	"strings"
	"sync"
)

// A kindRule recognises a holder kind from one frame of the stack that
// allocated it.
type kindRule struct {
	kind  string
	match func(f Frame) bool
}

// cppBackward matches autograd's C++ frames: the engine, AccumulateGrad and
// the generated backward nodes (MmBackward0::apply).
var cppBackward = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`autograd::Engine::|AccumulateGrad|[A-Za-z]Backward[0-9]*::apply`)
})

// kindRules are tried frame by frame from the innermost: the first frame
// any rule matches decides the kind, so that weights moved to the GPU by a
// hook during forward are weights, and a KV-cache update inside forward is
// KV cache.
func kindRules() []kindRule {
	return []kindRule{
		{KindKVCache, func(f Frame) bool {
			return isPython(f) && (strings.Contains(f.File, "cache_utils") || strings.Contains(f.File, "cache_engine") ||
				strings.Contains(f.Function, "kv_cache"))
		}},
		{KindOptimizer, func(f Frame) bool {
			return isPython(f) && (strings.Contains(f.File, "/optim/") || f.Function == "_init_group")
		}},
		{KindWeights, func(f Frame) bool {
			if !isPython(f) {
				return false
			}
			switch f.Function {
			case "from_pretrained", "load_state_dict", "_load_from_state_dict", "_load_state_dict_into_meta_model",
				"load_checkpoint_and_dispatch", "set_module_tensor_to_device", "dispatch_model", "to_empty",
				"reset_parameters", "_apply":
				return true
			case "__init__":
				return strings.Contains(f.File, "torch/nn/modules/")
			case "to", "cuda":
				return strings.HasSuffix(f.File, "torch/nn/modules/module.py")
			case "load":
				return strings.HasSuffix(f.File, "torch/serialization.py")
			}
			return false
		}},
		{KindGradients, func(f Frame) bool {
			if !isPython(f) {
				return cppBackward().MatchString(f.Function)
			}
			return f.Function == "backward" || f.Function == "_engine_run_backward" || f.Function == "run_backward"
		}},
		{KindActivation, func(f Frame) bool {
			return isPython(f) && (f.Function == "forward" || f.Function == "_call_impl" || f.Function == "_wrapped_call_impl")
		}},
	}
}

// class is what a stack says about the memory it allocated.
type class struct {
	kind    string
	because string // the outermost frame of the deciding kind: the entry point
	site    Frame
	stack   []Frame
}

// classify decides the kind and the site of one allocation's stack
// (innermost first).
func classify(frames []Frame) class {
	c := class{kind: KindOther, site: site(frames), stack: pythonFrames(frames)}
	rules := kindRules()
	var rule *kindRule
	for _, f := range frames {
		for i := range rules {
			if rules[i].match(f) {
				rule = &rules[i]
				break
			}
		}
		if rule != nil {
			break
		}
	}
	if rule == nil {
		return c
	}
	c.kind = rule.kind
	for _, f := range frames {
		if rule.match(f) && !isWrapper(f.Function) {
			c.because = shortName(f.Function)
		}
	}
	return c
}

// isWrapper reports functions that only pass a call on (decorators, the
// module call machinery); they never name what a stack was doing.
func isWrapper(name string) bool {
	switch name {
	case "wrapper", "_use_grad", "decorate_context", "inner", "_call_impl", "_wrapped_call_impl":
		return true
	}
	return false
}

// shortName shortens a C++ frame's name ("torch::autograd::AccumulateGrad::
// apply(std::vector<…>&&)") to its last two scopes ("AccumulateGrad::apply").
func shortName(name string) string {
	if i := strings.IndexByte(name, '('); i > 0 {
		name = name[:i]
	}
	parts := strings.Split(name, "::")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, "::")
}

// site is the allocation site: the innermost Python frame outside torch,
// the standard library and loading plumbing; failing that the innermost
// Python frame outside torch, any Python frame, or the innermost frame.
func site(frames []Frame) Frame {
	for _, pick := range []func(Frame) bool{
		func(f Frame) bool { return isPython(f) && !isTorch(f) && !isStdlib(f) && !isPlumbing(f) },
		func(f Frame) bool { return isPython(f) && !isTorch(f) && !isStdlib(f) },
		isPython,
		func(Frame) bool { return true },
	} {
		for _, f := range frames {
			if pick(f) {
				return f
			}
		}
	}
	return Frame{}
}

// pythonFrames keeps the stack's Python frames, innermost first, up to
// maxStack of them.
func pythonFrames(frames []Frame) []Frame {
	out := []Frame{}
	for _, f := range frames {
		if isPython(f) && len(out) < maxStack {
			out = append(out, f)
		}
	}
	return out
}

// isPython reports whether a frame is Python code (C++ frames carry a
// source or library path, or "??").
func isPython(f Frame) bool {
	return strings.HasSuffix(f.File, ".py") || strings.HasPrefix(f.File, "<")
}

func isTorch(f Frame) bool {
	return strings.Contains(f.File, "/torch/") || strings.HasPrefix(f.File, "torch/")
}

// isStdlib reports Python's own library: under lib/pythonX.Y but not in
// site-packages, and frozen modules.
func isStdlib(f Frame) bool {
	if strings.HasPrefix(f.File, "<frozen") {
		return true
	}
	i := strings.Index(f.File, "/lib/python")
	return i >= 0 && !strings.Contains(f.File[i:], "-packages/")
}

// isPlumbing reports library files that move tensors for the caller
// (loading, dispatch, hooks, the KV cache); the site is where they were
// called from.
func isPlumbing(f Frame) bool {
	for _, p := range [...]string{
		"/accelerate/hooks.py", "/accelerate/utils/modeling.py", "/accelerate/big_modeling.py",
		"/transformers/modeling_utils.py", "/transformers/integrations/", "/transformers/models/auto/",
		"/transformers/cache_utils.py", "/safetensors/",
		"/diffusers/models/modeling_utils.py",
	} {
		if strings.Contains(f.File, p) {
			return true
		}
	}
	return false
}
