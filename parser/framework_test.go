package parser

import "testing"

func TestFrameworkOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   Event
		want string
	}{
		{"TensorFlow's package innermost", Event{Frames: []Frame{{File: "/app/train.py"}, {File: "/usr/lib/python3/dist-packages/tensorflow/python/eager/execute.py"}}}, "tensorflow"},
		{"Keras 3 on Windows", Event{Frames: []Frame{{File: `C:\Python311\Lib\site-packages\keras\src\trainers\trainer.py`}}}, "tensorflow"},
		{"Keras 3 on its PyTorch backend", Event{Frames: []Frame{{File: "/venv/lib/python3.11/site-packages/keras/src/backend/torch/nn.py"}}}, "pytorch"},
		{"the innermost package wins", Event{Frames: []Frame{{File: "/venv/lib/python3.12/site-packages/torch/nn/modules/module.py"}, {File: "/venv/lib/python3.12/site-packages/jax/_src/dispatch.py"}}}, "jax"},
		{"user code names none", Event{Frames: []Frame{{File: "/home/me/tensorflow/train.py"}}}, ""},
		{"ONNX Runtime's exception in the message", Event{Message: "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Failed to allocate memory for requested buffer of size 2147483648"}, "onnxruntime"},
		{"nothing to go on", Event{Message: "CUDA error: out of memory"}, ""},
		{"a Rust panic right above", Event{Message: "DriverError(CUDA_ERROR_OUT_OF_MEMORY, \"out of memory\")", ContextLines: []Span{{Line: 6, Text: "thread '<unnamed>' panicked at mistralrs-core/src/pipeline/mistral.rs:409:17:"}, {Line: 7, Text: "Model failed with error `"}}}, "rust"},
		{"a Rust panic farther up is another failure's", Event{Message: "CUDA error: out of memory", ContextLines: []Span{{Line: 2, Text: "thread 'main' panicked at src/main.rs:12:5:"}, {Line: 3, Text: "a"}, {Line: 4, Text: "b"}, {Line: 5, Text: "c"}}}, ""},
	} {
		if got := frameworkOf(&tc.ev); got != tc.want {
			t.Errorf("%s: frameworkOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestPyTorchStack(t *testing.T) {
	for fw, want := range map[string]bool{"": true, "pytorch": true, "vllm": true, "transformers": true, "tensorflow": false, "jax": false, "ggml": false, "mlx": false, "onnxruntime": false, "numpy": false, "rust": false} {
		if got := PyTorchStack(fw); got != want {
			t.Errorf("PyTorchStack(%q) = %v, want %v", fw, got, want)
		}
	}
}

// TestLoggerFramework: a TensorFlow C++ logger's source path names
// TensorFlow; jaxlib's, the same code built as a Bazel dependency, names
// JAX; a bare file name names nothing.
func TestLoggerFramework(t *testing.T) {
	for _, tc := range []struct{ prefix, want string }{
		{"2020-04-12 15:02:12.602337: E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] ", "tensorflow"},
		{"2019-06-13 01:17:08.886805: E external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_dnn.cc:336] ", "jax"},
		{"E0403 17:22:41.335812 140281338 external/xla/xla/stream_executor/cuda/cuda_dnn.cc:535] ", "jax"},
		{"E0000 00:00:1721234567.123456 12345 cuda_dnn.cc:522] ", ""},
		{"[rank0]: ", ""},
		{"2022-04-04 00:27:49.642380: E tensorflow/compiler/xla/xla_client/xla_util.cc:88] ", "pytorch-xla"},
		{"2019-01-08 19:06:11.303736: E tensorflow/stream_executor/rocm/rocm_driver.cc:601] ", "tensorflow"},
	} {
		if got := loggerFramework(tc.prefix); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.prefix, got, tc.want)
		}
	}
}
