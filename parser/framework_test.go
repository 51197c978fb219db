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
	} {
		if got := frameworkOf(&tc.ev); got != tc.want {
			t.Errorf("%s: frameworkOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestPyTorchStack(t *testing.T) {
	for fw, want := range map[string]bool{"": true, "pytorch": true, "vllm": true, "transformers": true, "tensorflow": false, "jax": false, "ggml": false, "mlx": false, "onnxruntime": false, "numpy": false} {
		if got := PyTorchStack(fw); got != want {
			t.Errorf("PyTorchStack(%q) = %v, want %v", fw, got, want)
		}
	}
}
