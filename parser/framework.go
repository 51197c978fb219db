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
	return ""
}

// packageFramework maps a frame's file to the framework whose package it
// is in ("…/site-packages/tensorflow/python/…" → tensorflow); files of
// other packages and of the user's own code name none.
func packageFramework(file string) string {
	for _, p := range []struct{ dir, fw string }{
		{"/torch/", "pytorch"},
		{"/transformers/", "pytorch"},
		{"/tensorflow/", "tensorflow"},
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
// ncnn, ONNX Runtime, CTranslate2, Tenstorrent and Vulkan runtimes do not
// run them.
func PyTorchStack(framework string) bool {
	switch framework {
	case "tensorflow", "jax", "paddle", "paddlepaddle", "mlx", "ggml", "ollama", "megengine", "numpy", "cupy", "ncnn", "tt-metal", "vulkan", "onnxruntime", "ctranslate2":
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
