package parser

import "strings"

// A Cue is one named piece of the evidence vocabulary: the words that
// reveal a step of a job (an optimizer step, a VAE decode, evaluation) in a
// frame's file, function or code, or in a line near the failure. Phase
// detection here and the culprits in package rules read the same cues, so
// a phase and a culprit never disagree because one list lacks a word.
type Cue struct {
	Name  string
	Words []string
}

// Matches reports whether text holds one of the cue's words, on
// normalised identifiers: a word that is a whole identifier ("backward",
// "loss") must stand as one — not inside "_backward_hooks" — so a call
// matches with or without its parentheses and a dotted name or path by its
// parts; a word with punctuation or an open end ("key.transpose",
// "train_", "vllm/") matches as written, a path word also with Windows'
// backslashes (autograd/__init__.py in torch\autograd\__init__.py).
func (c Cue) Matches(text string) bool { return HasWord(text, c.Words) }

// HasWord reports whether text holds one of the words, as Cue.Matches
// matches them. A call word ("valid(", "test(") is a call of that name or
// of a name that ends in it after an underscore ("batch_infer(" for
// "infer("), not of a longer word: it is no cue in
// "raise_if_cache_size_invalid(" or "get_latest(".
func HasWord(text string, words []string) bool {
	for _, w := range words {
		if isIdentifier(w) {
			if hasIdentifier(text, w) {
				return true
			}
		} else if isCall(w) {
			if hasCall(text, w) {
				return true
			}
		} else if isFileName(w) {
			if hasFileName(text, w) {
				return true
			}
		} else if strings.Contains(text, w) {
			return true
		} else if strings.IndexByte(w, '/') >= 0 && strings.IndexByte(text, '\\') >= 0 && strings.Contains(text, strings.ReplaceAll(w, "/", `\`)) {
			return true // a path word in a Windows traceback
		}
	}
	return false
}

// isFileName reports whether w names a Python source file, perhaps with
// the directory above it: "data_parallel.py", "_utils/fetch.py".
func isFileName(w string) bool {
	return strings.HasSuffix(w, ".py") && len(w) > 3 && identByte(w[0])
}

// hasFileName reports whether text names the file w: w occurs where a
// path component starts, so "data_parallel.py" is not found in
// "fully_sharded_data_parallel.py", another module; a Windows path's
// separators stand for "/" too.
func hasFileName(text, w string) bool {
	if occursAfter(text, w, identByte) {
		return true
	}
	return strings.IndexByte(w, '/') >= 0 && occursAfter(text, strings.ReplaceAll(w, "/", `\`), identByte)
}

// isCall reports whether w is a call of a plain lower-case name: an
// identifier and "(", "predict(".
func isCall(w string) bool {
	return len(w) > 1 && w[len(w)-1] == '(' && w[0] >= 'a' && w[0] <= 'z' && isIdentifier(w[:len(w)-1])
}

// hasCall reports whether text calls w's name: w occurs with no letter
// or digit before it.
func hasCall(text, w string) bool { return occursAfter(text, w, alnumByte) }

// occursAfter reports whether w occurs in text at the start or after a
// byte that is not joined, as joined says, to what follows it.
func occursAfter(text, w string, joined func(byte) bool) bool {
	for off := 0; ; {
		i := strings.Index(text[off:], w)
		if i < 0 {
			return false
		}
		i += off
		if i == 0 || !joined(text[i-1]) {
			return true
		}
		off = i + 1
	}
}

// isIdentifier reports whether w is a whole identifier: letters and
// digits, with underscores only between them.
func isIdentifier(w string) bool {
	if w == "" || w[0] == '_' || w[len(w)-1] == '_' {
		return false
	}
	for i := 0; i < len(w); i++ {
		if !identByte(w[i]) {
			return false
		}
	}
	return true
}

func alnumByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func identByte(c byte) bool { return c == '_' || alnumByte(c) }

// hasIdentifier reports whether w occurs in s with no identifier byte on
// either side.
func hasIdentifier(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !identByte(s[j-1])) && (end == len(s) || !identByte(s[end])) {
			return true
		}
		i = j + 1
	}
}

// CueOptimizer is an optimizer step: Adam's state created at the first
// step, a grad scaler's step. The words are the step functions and state
// names of torch.optim (adam.py, adamw.py, _init_group, exp_avg,
// exp_avg_sq, momentum_buffer, the foreach and fused kernels), apex and
// bitsandbytes, DeepSpeed's ZeRO optimizers (the states it creates at
// start-up, the fp32 master partitions its step builds, its Adam ops),
// Lightning's and mmengine's step wrappers, and Keras' and
// Flax's apply_gradients, and the Adam slot and update nodes a TensorFlow
// graph names in its OOM message ("node h6/Adam_1/Assign").
func CueOptimizer() Cue {
	return Cue{"optimizer-step", []string{"optimizer.step", "optim.step", "_init_group", "exp_avg", "exp_avg_sq", "momentum_buffer", "_multi_tensor_adam", "_single_tensor_adam", "_fused_adam", "adamw.py", "adam.py", "torch/optim/", "fused_adam", "bitsandbytes/optim/", "scaler.step", "_optimizer_step", "optimizer_step", "initialize_optimizer_states", "_setup_for_real_optimizer", "_take_model_step", "single_partition_of_fp32_groups", "fp32_partitioned_groups_flat", "deepspeed/ops/adam/", "apply_gradients", "/Adam/", "/Adam_1/", "training/Adam", "Adam/update_"}}
}

// CueBackward is the backward pass: PyTorch's autograd engine and the
// wrappers that call it (accelerate, Lightning, Megatron's backward_step),
// TensorFlow's GradientTape and JAX's grad transforms.
func CueBackward() Cue {
	return Cue{"backward", []string{"backward(", ".backward", "autograd/__init__.py", "run_backward", "_engine_run_backward", "autograd.grad", "accelerator.backward", "manual_backward", "backward_fn", "backward_step", "tape.gradient", "imperative_grad", "gradients_util", "value_and_grad", "jax.grad", "backward_pass"}}
}

// CueLoad is placing a model's weights on the device: transformers'
// from_pretrained and its shard loaders, safetensors, accelerate's
// dispatch (big_modeling), torch.load and Module.to/.cuda (whose frames
// call self._apply, and whose innermost line is Module.to's own convert,
// "return t.to(device, dtype if t.is_floating_point() or t.is_complex()
// else None, non_blocking)", when a paste kept only that; a bare `x.cuda()` or `x.float().cuda()` moves a
// tensor, so only a receiver named as a model, a net or a module, `self`,
// or a just-built `…Net()` or `…Model()` counts), CTranslate2's model
// constructors and faster-whisper's WhisperModel, DeepSpeed's engine
// set-up and ZeRO-3 construction, Lightning's model_to_device, the Hugging
// Face Trainer's _move_model_to_device (at its construction), the model loaders of vLLM, llama.cpp,
// ultralytics, fairseq, NeMo, timm, PEFT, diffusers, ComfyUI and A1111,
// PaddlePaddle's paddle.load and set_state_dict, and bitsandbytes
// quantising weights as they move to the device (Params4bit._quantize, its
// call of bnb.functional.quantize_4bit in a plain traceback,
// Int8Params.cuda).
// Progress lines such as "Loading checkpoint shards" are not load cues:
// they stay in the context after loading has finished.
func CueLoad() Cue {
	return Cue{"load", []string{"deepspeed.initialize", "_configure_distributed_model", "_post_init_method", "llm_load_", "load_tensors", "llama_model_load", "llama_model_load_from_file", "llama_load_model_from_file", "print_info: model", "model_loader", "_initialize_model", "initialize_model(", "init_vllm_registered_model", "from_pretrained", "load_state_dict", "_load_state_dict_into_meta_model", "load_shard_file", "safe_open", "safetensors/torch.py", "set_module_tensor_to_device", "load_checkpoint", "_load_checkpoint", "load_checkpoint_in_model", "load_checkpoint_and_dispatch", "big_modeling.py", "_load_pretrained_model", "caching_allocator_warmup", "torch.load(", "serialization.py", "_rebuild_tensor", "load_model", "load_model_weights", "reload_model_weights", "send_model_to_device", "dispatch_model", "model.to(", "model.cuda", "net.cuda(", "Net().cuda(", "Model().cuda(", "self.cuda(", "module.cuda(", "ctranslate2.Translator(", "ctranslate2.Generator(", "ctranslate2.Encoder(", "ctranslate2.models.", "WhisperModel(", "self._apply(", "module._apply(", "t.is_floating_point() or t.is_complex() else None", "model_to_device", "_move_model_to_device", "load_weights", "modeling_utils.py", "load_model_dict_into_meta", "load_sub_model", "load_adapter", "load_pretrained", "restore_from", "load_from_checkpoint", "load_or_resume", "attempt_load", "attempt_load_weights", "attempt_load_one_weight", "load_model_ensemble", "load_model_ensemble_and_task", "load_models_gpu", "load_checkpoint_guess_config", "load_diffusion_model", "paddle.load(", "paddle/framework/io.py", "set_state_dict", "Params4bit._quantize", "bnb.functional.quantize_4bit(", "Int8Params.cuda"}}
}

// CueData is the input pipeline: torch.utils.data's workers, fetchers and
// collate functions, Hugging Face collators and datasets.map, tf.data and
// Keras' data adapters.
func CueData() Cue {
	return Cue{"data", []string{"dataloader.py", "DataLoader worker", "collate", "__getitem__", "_worker_loop", "_next_data", "_utils/fetch.py", "pin_memory.py", "data_collator", "_map_single", "dataset_ops", "iterator_ops", "data_adapter"}}
}

// CueDecode is a diffusion VAE decoding latents to pixels: diffusers'
// autoencoders (every AutoencoderKL variant lives under
// models/autoencoders/) and their tiled decoders, the ldm/sgm Decoder that
// A1111 and ComfyUI share (diffusionmodules/model.py), ComfyUI's VAE nodes,
// A1111's sample-to-image step and the Tiled VAE extension's decoder
// ("[Tiled VAE]: Executing Decoder Task Queue"; its encoder runs before
// sampling, so "[Tiled VAE]" alone is no decode), and stable-diffusion.cpp's
// "sampling completed, taking 251.82s", after which it decodes the latents.
func CueDecode() Cue {
	return Cue{"vae-decode", []string{"vae.decode", "vae: ", "vae_decode", "VAEDecode", "decode_latents", "AutoencoderKL", "autoencoder_kl", "autoencoders/", "models/vae.py", "first_stage_model", "decode_first_stage", "tiled_decode", "_tiled_decode", "decode_tiled", "decode_tiled_", "diffusionmodules/model.py", "single_sample_to_image", "VAE decode", "vae.tiled", "Executing Decoder Task Queue", "sampling completed, taking"}}
}

// CueGenerate is autoregressive generation: transformers' generate and its
// decoding loops (_sample, _beam_search, _assisted_decoding,
// _contrastive_search, prepare_inputs_for_generation), mlx-lm's
// generate_step, whisper's transcribe, the serving engines' generation
// steps (vLLM's execute_model, SGLang's forward_batch_generation and
// forward_decode, TGI's generate_token) and llama.cpp's llama_decode.
func CueGenerate() Cue {
	return Cue{"generate", []string{"generate(", "._sample(", "greedy_search", "_greedy_search", "beam_search", "_beam_search", "_assisted_decoding", "_contrastive_search", "prepare_inputs_for_generation", "generation/utils.py", "generate_step", "stream_generate", "prefill", "decode_step", "setup_caches", "chat(", "transcribe", "generate_segments", "execute_model", "forward_batch_generation", "forward_decode", "generate_token", "llama_decode"}}
}

// CueEval is evaluation, validation, testing or prediction code: the
// Trainer's and Lightning's evaluation and prediction loops, Keras'
// test/predict steps, mmengine's val/test loops, fairseq's valid_step,
// detectron2's inference_on_dataset, ultralytics' validator and predictor.
// A bare eval( is not one: MLX runs every computation through mx.eval, and
// model.eval() only switches a module's mode.
func CueEval() Cue {
	return Cue{"eval", []string{"evaluate(", "evaluation_loop", "prediction_loop", "validation_step", "prediction_step", "predict_step", "eval_step", "test_step", "val_step", "valid_step", "val_loop", "test_loop", "predict_function", "test_function", "inference_on_dataset", "validator.py", "stream_inference", "predict(", "validate(", "evaluate.py", "inference(", "infer(", "def test", "test(", "valid(", "_eval"}}
}

// CueForward is a module's forward pass: nn.Module's call machinery, the
// tensor operations a forward runs, Keras' and Flax's layer calls.
func CueForward() Cue {
	return Cue{"forward", []string{"forward(", "_call_impl", "_wrapped_call_impl", "__call__", "model(", "forward", ".apply(", "scaled_dot_product_attention", "F.linear", "matmul", "einsum", "bmm", "conv1d", "conv2d", "conv2d_", "conv3d", "Conv2D", "MatMul", "Relu", "layer_norm", "group_norm", "softmax", "interpolate"}}
}

// CueServing is code inside a serving engine, which takes a fixed share of
// the device for weights and KV cache: vLLM (and its platform plugins such
// as vllm_ascend), SGLang, LMDeploy's TurboMind, TensorRT-LLM, TGI's
// text_generation_server (and its router's "Unable to warmup model: …"
// panic) and the Aphrodite fork, by their package paths,
// module names, process and log prefixes and memory-share settings.
func CueServing() Cue {
	return Cue{"serving-engine", append(CueVLLM().Words, "aphrodite/", "sglang/", "sglang.", "SGLANG_", "mem_fraction_static", "mem-fraction-static", "lmdeploy", "turbomind", "[TM]", "cache_max_entry_count", "tensorrt_llm", "[TensorRT-LLM]", "trtllm", "free_gpu_memory_fraction", "text_generation_server", "text_generation_launcher", "text-generation-launcher", "Unable to warmup model", "gpu_memory_utilization", "gpu-memory-utilization")}
}

// CueVLLM is code inside vLLM itself (and its platform plugins such as
// vllm_ascend), its environment variables in a hint ("try setting
// VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0"), its CuMem allocator's
// source file ("Cuda error: out of memory at
// /workspace/csrc/cumem_allocator.cpp: 62") and its model runner's wrapper
// ("Error in model execution (input dumped to /tmp/err_execute_model_input_…
// .pkl)"): where vLLM's own knobs, not a library's, are the fixes.
func CueVLLM() Cue {
	return Cue{"vllm", []string{"vllm/", "vllm.", "vllm_ascend", "EngineCore", "EngineCore_", "VLLM_", "cumem_allocator", "Error in model execution (input dumped to"}}
}

// CueTensorRT is NVIDIA TensorRT's own code and log: its "[TRT]" logger
// prefix, the nvinfer1 namespace, trtexec, the builder's and runtime's
// allocator sources (defaultAllocator.cpp, safeRuntime.cpp) and ONNX
// Runtime's TensorRT execution provider. TensorRT-LLM is a serving engine
// (CueServing), not this.
func CueTensorRT() Cue {
	return Cue{"tensorrt", []string{"[TRT]", "nvinfer1", "tensorrt", "TensorRT", "trtexec", "defaultAllocator.cpp", "safeRuntime.cpp", "tensorrt_execution_provider", "TensorrtExecutionProvider"}}
}

// CueContextSetup is a native runtime setting up its context after the
// weights are placed: llama.cpp's llama_context and KV-cache lines and the
// buffers it reports. Such a runtime logs its stages in order, so a
// loading line above one of these is a stage that finished.
func CueContextSetup() Cue {
	return Cue{"context-setup", []string{"llama_context:", "llama_new_context_with_model", "llama_kv_cache", "llama_init_from_model", "KV buffer size", "KV self size"}}
}

// CueComputeBuffer is llama.cpp's graph allocator saying the buffer that
// failed is a compute buffer (the activations of one micro-batch over the
// context), not the weights or the KV cache.
func CueComputeBuffer() Cue {
	return Cue{"compute-buffer", []string{"compute buffer", "compute pp buffers", "graph_reserve", "ggml_gallocr_reserve_n"}}
}

// CueWorkspace is a failure message naming the buffer it could not
// allocate as a library's workspace: darknet's "try to allocate workspace
// = 1107853312 * sizeof(float), CUDA Error: out of memory", a "cuDNN
// workspace allocation failed", dlib's "Error while calling
// cudaMalloc(&backward_data_workspace, backward_data_workspace_size_in_bytes)".
// The cuBLAS setting CUBLAS_WORKSPACE_CONFIG is no such word.
func CueWorkspace() Cue {
	return Cue{"workspace", []string{"allocate workspace", "allocating workspace", "allocate the workspace", "workspace allocation", "Workspace allocation", "workspace buffer", "_workspace, ", "workspace_size"}}
}

// CueCUDAInit is the CUDA runtime starting up in this process: PyTorch
// 0.x–1.x's THCudaInit (THCGeneral.cpp), torch.cuda's _lazy_init calling
// torch._C._cuda_init(), the driver's context creation, Theano's start-up
// memory pool (cnmemInit). An out-of-memory there means the device was not
// free before the process had placed anything on it.
func CueCUDAInit() Cue {
	return Cue{"cuda-init", []string{"THCGeneral.cpp", "THCGeneral.cc", "THCudaInit", "_cuda_init", "cuDevicePrimaryCtxRetain", "cuCtxCreate", "cnmemInit"}}
}

// CueCUDAFirstUse is an allocation PyTorch 0.x–1.x makes lazily on first
// use: the random generator's states (THCTensorRandom.cu). While a model
// is first moved to the device it is part of CUDA's start-up; at the
// first dropout of a forward pass it comes after the model was placed.
func CueCUDAFirstUse() Cue {
	return Cue{"cuda-first-use", []string{"THCTensorRandom.cu"}}
}

// CueJobShutdown is a launcher or scheduler saying it sent SIGTERM: a
// launcher shutting its workers down (torchrun's "Sending process 4242
// closing signal SIGTERM"), a scheduler's time limit or preemption
// (Slurm's "CANCELLED AT … DUE TO TIME LIMIT"). A worker terminated beside
// it was stopped by its job, not by a memory monitor.
func CueJobShutdown() Cue {
	return Cue{"job-shutdown", []string{"closing signal SIGTERM", "received signal SIGTERM", "Received SIGTERM", "DUE TO TIME LIMIT", "DUE TO PREEMPTION", "CANCELLED AT"}}
}

// CueLoadingBar is a loader's progress bar. It stays in the context after
// loading has finished, so it is no load cue; a host kill that cuts it on
// its own line happened while loading.
func CueLoadingBar() Cue {
	return Cue{"loading-bar", []string{"Loading checkpoint shards", "Loading weights", "Loading model", "Loading pipeline components", "Loading safetensors"}}
}

// Vocabulary lists every named cue: those the phases are read from, the
// serving engine's, TensorRT's, a native runtime's context set-up and
// compute buffer, a library's workspace, a loader's progress bar, the
// CUDA runtime's start-up and a job's own shutdown.
func Vocabulary() []Cue {
	return []Cue{CueOptimizer(), CueBackward(), CueLoad(), CueData(), CueDecode(), CueGenerate(), CueEval(), CueForward(), CueServing(), CueTensorRT(), CueContextSetup(), CueComputeBuffer(), CueWorkspace(), CueLoadingBar(), CueCUDAInit(), CueCUDAFirstUse(), CueJobShutdown()}
}
