package parser

import "strings"

// frameworkOf names the framework of a failure whose family does not:
// the package its innermost frames run in, else one its message names.
// It is "" when neither says.
func frameworkOf(ev *Event) string {
	for k := len(ev.Frames) - 1; k >= 0; k-- {
		if fw := packageFramework(strings.ReplaceAll(ev.Frames[k].File, `\`, "/")); fw != "" {
			return fw
		}
	}
	msg := ev.Message
	switch {
	case strings.Contains(msg, "onnxruntime") || strings.Contains(msg, "ONNXRuntimeError"):
		return "onnxruntime"
	case strings.Contains(msg, "tensorflow/") || strings.Contains(msg, "tensorflow::"):
		return "tensorflow"
	}
	if len(ev.Frames) == 0 {
		// the nearest lines above: the failure's own line may come first
		for k := len(ev.ContextLines) - 1; k >= 0 && k >= len(ev.ContextLines)-3; k-- {
			if rustPanic(ev.ContextLines[k].Text) {
				return "rust" // a Rust runtime (mistral.rs, candle) panicking with its driver's error
			}
		}
	}
	return ""
}

// loggerFramework names the framework whose C++ logger printed a line,
// from the source path in its prefix ("2020-04-12 15:02:12.602337: E
// tensorflow/stream_executor/cuda/cuda_dnn.cc:329] "), or "". jaxlib logs
// from the same code built as a Bazel dependency: external/org_tensorflow/…
// in older releases, external/xla/… in newer ones; PyTorch/XLA 1.x's client
// lived in TensorFlow's tree (tensorflow/compiler/xla/xla_client/…).
func loggerFramework(prefix string) string {
	switch {
	case strings.Contains(prefix, "/xla/xla_client/"):
		// PyTorch/XLA 1.x built its client in TensorFlow's tree
		// ("E tensorflow/compiler/xla/xla_client/xla_util.cc:88]")
		return "pytorch-xla"
	case strings.Contains(prefix, "external/org_tensorflow/"), strings.Contains(prefix, "external/xla/"):
		return "jax"
	case strings.Contains(prefix, " tensorflow/"):
		return "tensorflow"
	}
	return ""
}

// rustPanic reports whether a line opens a Rust panic:
//
//	thread '<unnamed>' panicked at mistralrs-core/src/pipeline/mistral.rs:409:17:
func rustPanic(line string) bool {
	i := strings.Index(line, "' panicked at ")
	return strings.HasPrefix(strings.TrimSpace(line), "thread '") && i >= 0 && strings.Contains(line[i:], ".rs:")
}

// packageFramework maps a frame's file to the framework whose package it
// is in ("…/site-packages/tensorflow/python/…" → tensorflow); files of
// other packages and of the user's own code name none.
func packageFramework(file string) string {
	for _, p := range []struct{ dir, fw string }{
		{"/torch/", "pytorch"},
		{"/transformers/", "pytorch"},
		{"/tensorflow/", "tensorflow"},
		{"/keras/src/backend/torch/", "pytorch"}, // Keras 3 on its PyTorch backend
		{"/keras/src/backend/jax/", "jax"},
		{"/keras/", "tensorflow"},
		{"/jax/", "jax"},
		{"/jaxlib/", "jax"},
		{"/flax/", "jax"},
		{"/paddle/", "paddlepaddle"},
		{"/onnxruntime/", "onnxruntime"},
		{"/mlx/", "mlx"},
		{"/mlx_lm/", "mlx"},
		{"/cupy/", "cupy"},
	} {
		if strings.Contains(file, "-packages"+p.dir) {
			return p.fw
		}
	}
	return ""
}

// PyTorchStack reports whether a failure's framework runs on PyTorch, or
// is unknown (most logs are PyTorch's): the snippets and capture steps
// written in torch and transformers terms apply to it. TensorFlow, JAX,
// PaddlePaddle, MLX, llama.cpp (ggml, ollama), MegEngine, NumPy, CuPy,
// ncnn, ONNX Runtime, CTranslate2, Tenstorrent, Vulkan, darknet and Rust runtimes
// do not run them.
func PyTorchStack(framework string) bool {
	switch framework {
	case "tensorflow", "jax", "paddle", "paddlepaddle", "mlx", "ggml", "ollama", "megengine", "numpy", "cupy", "ncnn", "tt-metal", "vulkan", "onnxruntime", "ctranslate2", "rust", "matlab", "mkl", "openvino", "yarn", "darknet":
		return false
	}
	return true
}

// OnPyTorch reports whether a failure runs on PyTorch, as PyTorchStack
// tells from its framework; a failure of the generic tier whose framework
// nothing names is not taken for PyTorch, whose own messages all have
// families of their own.
func OnPyTorch(ev *Event) bool {
	if ev.Kind == KindGeneric && ev.Framework == "" {
		return false
	}
	return PyTorchStack(ev.Framework)
}

// InferenceRuntime reports whether a framework runs models rather than
// trains them: llama.cpp's ggml and Ollama, the serving engines (vLLM,
// TGI, SGLang, LMDeploy), CTranslate2, ONNX Runtime, TensorRT, OpenVINO,
// ncnn and the Vulkan compute runtimes (MLC-LLM's TVM). A failure there holds no
// training activations, gradients or optimizer state unless the log shows
// training (ORTModule, llama.cpp's finetune).
func InferenceRuntime(framework string) bool {
	switch framework {
	case "ggml", "ollama", "vllm", "tgi", "sglang", "lmdeploy", "ctranslate2", "onnxruntime", "tensorrt", "ncnn", "vulkan", "openvino":
		return true
	}
	return false
}
