package rules

import (
	"slices"
	"testing"
)

// TestNoRoomForContext: the driver refusing to create a process's CUDA
// context for lack of memory, or CUDA's start-up failing in PyTorch or
// Theano, means the device was full before the process
// held anything — in a job of one process; with ranks, the other ranks'
// contexts are as likely, and the signal stays silent.
func TestNoRoomForContext(t *testing.T) {
	const fail = "2019-07-11 12:42:11.226602: W tensorflow/compiler/xla/service/platform_util.cc:240] unable to create StreamExecutor for CUDA:0: failed initializing StreamExecutor for CUDA device ordinal 0: Internal: failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY: out of memory; total memory reported: 11523260416\n"
	for _, tc := range []struct {
		name, log string
		want      bool
	}{
		{"one process", fail, true},
		{"a rank of a job", "[rank1]: " + fail, false},
		{"PyTorch 0.x starting CUDA", "Traceback (most recent call last):\n  File \"train.py\", line 79, in load_model\n    model = Tacotron2(hparams).cuda()\nRuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCGeneral.cpp:844\n", true},
		{"torch.cuda's lazy start-up", "Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n    x = torch.zeros(1).cuda()\n  File \"/usr/lib/python3/site-packages/torch/cuda/__init__.py\", line 293, in _lazy_init\n    torch._C._cuda_init()\nRuntimeError: CUDA error: out of memory\n", true},
		{"Theano's start-up pool", "ERROR (theano.sandbox.cuda): ERROR: Not using GPU. Initialisation of device gpu failed:\ninitCnmem: cnmemInit call failed! Reason=CNMEM_STATUS_OUT_OF_MEMORY. numdev=1\n", true},
		{"a generator's set-up, no phase known", "RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCTensorRandom.cu:25\n", false},
		{"the generator's set-up while the model moves", "Traceback (most recent call last):\n  File \"train.py\", line 79, in load_model\n    model = Tacotron2(hparams).cuda()\nRuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCTensorRandom.cu:25\n", true},
		{"FSDP's own lazy init", "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    out = model(x)\n  File \"torch/distributed/fsdp/_runtime_utils.py\", line 120, in _lazy_init\n    state._exec_order_data.init(state, root_module, state.process_group)\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.55 GiB of which 1.00 GiB is free.\n", false},
		{"a generator set up mid-forward", "Traceback (most recent call last):\n  File \"train.py\", line 9, in forward\n    x = self.dropout(x)\nRuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCTensorRandom.cu:25\n", false},
		{"an allocation, not the context", "2019-07-11 12:42:11.226602: E tensorflow/stream_executor/cuda/cuda_driver.cc:806] failed to allocate 3.87G (4156749824 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n", false},
	} {
		fd := checkOtherProcess(factsOf(t, tc.log))
		if got := fd != nil && (slices.Contains(fd.Signals, otherNoContext) || slices.Contains(fd.Signals, otherCUDAStart)); got != tc.want {
			t.Errorf("%s: a start-up signal fired %v, want %v", tc.name, got, tc.want)
		}
	}
}
