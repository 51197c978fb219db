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
