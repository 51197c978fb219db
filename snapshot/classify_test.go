package snapshot

import "testing"

func TestClassify(t *testing.T) {
	const sp = "/usr/lib/python3.11/site-packages/"
	user := Frame{"/home/u/train.py", 12, "<module>"}
	for _, tc := range []struct {
		name         string
		frames       []Frame
		kind, reason string
		site         Frame
	}{
		{"no stack", nil, KindOther, "", Frame{}},
		{"c++ only", []Frame{{"??", 0, "c10::cuda::CUDACachingAllocator::malloc"}}, KindOther, "", Frame{"??", 0, "c10::cuda::CUDACachingAllocator::malloc"}},
		{"from_pretrained through plumbing", []Frame{
			{sp + "torch/nn/modules/module.py", 1326, "convert"},
			{sp + "transformers/modeling_utils.py", 812, "_load_state_dict_into_meta_model"},
			{sp + "transformers/modeling_utils.py", 4255, "from_pretrained"},
			user}, KindWeights, "from_pretrained", user},
		{"module init in the model file", []Frame{
			{sp + "torch/nn/modules/linear.py", 106, "__init__"},
			{sp + "transformers/models/llama/modeling_llama.py", 160, "__init__"},
			{sp + "transformers/modeling_utils.py", 4255, "from_pretrained"},
			user}, KindWeights, "from_pretrained", Frame{sp + "transformers/models/llama/modeling_llama.py", 160, "__init__"}},
		{"adam state", []Frame{
			{sp + "torch/optim/adam.py", 160, "_init_group"},
			{sp + "torch/optim/adam.py", 223, "step"},
			{sp + "torch/optim/optimizer.py", 485, "wrapper"},
			user}, KindOptimizer, "step", user},
		{"accumulate grad (c++)", []Frame{
			{"??", 0, "torch::autograd::AccumulateGrad::apply(std::vector<at::Tensor>&&)"},
			{sp + "torch/_tensor.py", 581, "backward"},
			user}, KindGradients, "backward", user},
		{"backward node (c++)", []Frame{{"??", 0, "torch::autograd::generated::MmBackward0::apply(std::vector<at::Tensor>&&)"}}, KindGradients,
			"MmBackward0::apply", Frame{"??", 0, "torch::autograd::generated::MmBackward0::apply(std::vector<at::Tensor>&&)"}},
		{"kv cache inside forward", []Frame{
			{sp + "transformers/cache_utils.py", 447, "update"},
			{sp + "transformers/models/llama/modeling_llama.py", 276, "forward"},
			user}, KindKVCache, "update", Frame{sp + "transformers/models/llama/modeling_llama.py", 276, "forward"}},
		{"activation", []Frame{
			{sp + "torch/nn/modules/linear.py", 125, "forward"},
			{"/home/u/model.py", 40, "forward"},
			{sp + "torch/nn/modules/module.py", 1747, "_call_impl"},
			user}, KindActivation, "forward", Frame{"/home/u/model.py", 40, "forward"}},
		{"weights moved by a hook during forward", []Frame{
			{sp + "accelerate/utils/modeling.py", 330, "set_module_tensor_to_device"},
			{sp + "accelerate/hooks.py", 170, "pre_forward"},
			{sp + "torch/nn/modules/module.py", 1747, "_call_impl"},
			user}, KindWeights, "set_module_tensor_to_device", user},
		{"stdlib is not the site", []Frame{
			{"/usr/lib/python3.11/copy.py", 10, "deepcopy"},
			user}, KindOther, "", user},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := classify(tc.frames)
			if c.kind != tc.kind || c.because != tc.reason || c.site != tc.site {
				t.Errorf("got %s (%q) at %v, want %s (%q) at %v", c.kind, c.because, c.site, tc.kind, tc.reason, tc.site)
			}
		})
	}
}

func TestDiscardTraceFrames(t *testing.T) {
	root, segs, traces, dev, entry := &Dict{}, &List{}, &List{}, &List{}, &Dict{}
	for _, tc := range []struct {
		name  string
		stack []any
		want  bool
	}{
		{"a block's frames", []any{root, "segments", segs, &Dict{}, "size", int64(1), "frames"}, false},
		{"an alloc entry's frames", []any{root, "segments", segs, "device_traces", traces, dev, entry, "action", "alloc", "addr", int64(1), "frames"}, true},
		{"the oom entry's frames", []any{root, "segments", segs, "device_traces", traces, dev, entry, "action", "oom", "frames"}, false},
		{"an entry whose action comes later", []any{root, "segments", segs, "device_traces", traces, dev, entry, "frames"}, false},
		{"a device's list", []any{root, "segments", segs, "device_traces", traces}, false},
		{"traces pickled before segments", []any{root, "device_traces", traces, dev, entry, "action", "alloc", "frames"}, false},
	} {
		if got := discardTraceFrames(tc.stack); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
