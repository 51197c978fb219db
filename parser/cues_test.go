package parser

import (
	"strings"
	"testing"
)

// TestHasWord: whole identifiers stand alone, other words match as written.
func TestHasWord(t *testing.T) {
	tests := []struct {
		text  string
		words []string
		want  bool
	}{
		{"loss.backward()", []string{"backward"}, true},
		{"    return self._backward_hooks", []string{"backward"}, false},
		{"File \"train.py\", line 3, in train_step", []string{"train_"}, true},
		{"compute_loss(model, inputs)", []string{"loss"}, false},
		{"attn = torch.matmul(query, key.transpose(-1, -2))", []string{"key.transpose"}, true},
		{"vllm/worker/model_runner.py", []string{"vllm/"}, true},
		{"backward", []string{"backward"}, true},
		{"optimizer.step()", []string{"zero_grad", "step"}, true},
		{"", []string{"x"}, false},
		{"torch/nn/parallel/data_parallel.py", []string{"data_parallel.py"}, true},
		{"torch/distributed/fsdp/fully_sharded_data_parallel.py:2224: UserWarning", []string{"data_parallel.py"}, false},
		{`C:\Python\torch\utils\data\_utils\fetch.py`, []string{"_utils/fetch.py"}, true},
		{"my_utils/fetch.py", []string{"_utils/fetch.py"}, false},
	}
	for _, tc := range tests {
		if got := HasWord(tc.text, tc.words); got != tc.want {
			t.Errorf("HasWord(%q, %q) = %v, want %v", tc.text, tc.words, got, tc.want)
		}
	}
}

// TestCueWords: each cue recognises the frames and lines of the libraries
// its words come from, and not a look-alike from unrelated code. Each text
// is written as phaseOf and Facts.Find see a frame: file, function, code.
func TestCueWords(t *testing.T) {
	tests := []struct {
		cue  Cue
		text string
		want bool
	}{
		{CueLoad(), "w_4bit, quant_state = bnb.functional.quantize_4bit( _quantize( /site-packages/bitsandbytes/nn/modules.py", true},
		{CueLoad(), "out = bnb.matmul_4bit(x, self.weight.t(), bias=bias, quant_state=self.weight.quant_state) forward( /site-packages/bitsandbytes/nn/modules.py", false},
		// optimizer steps
		{CueOptimizer(), `/site-packages/torch/optim/sgd.py _init_group( state["momentum_buffer"] = None`, true},
		{CueOptimizer(), `/site-packages/torch/optim/adam.py _fused_adam( torch._fused_adam_(`, true},
		{CueOptimizer(), `/site-packages/bitsandbytes/optim/optimizer.py init_state( state["state1"] = self.get_state_buffer(p, dtype=torch.uint8)`, true},
		{CueOptimizer(), `/site-packages/deepspeed/runtime/zero/stage_1_and_2.py initialize_optimizer_states( self.optimizer.step()`, true},
		{CueOptimizer(), `/site-packages/deepspeed/runtime/zero/stage3.py _setup_for_real_optimizer( self._create_fp32_partitions()`, true},
		{CueOptimizer(), `/site-packages/deepspeed/runtime/engine.py _take_model_step( self.optimizer.step()`, true},
		{CueOptimizer(), `/site-packages/keras/optimizers/optimizer.py apply_gradients( self.build(trainable_variables)`, true},
		{CueOptimizer(), `C:\Python311\Lib\site-packages\torch\optim\lr_scheduler.py wrapper( return wrapped(*args, **kwargs)`, true},
		{CueOptimizer(), `/app/models/optimizers_utils.py build_state( return {}`, false},
		// backward
		{CueBackward(), `/site-packages/torch/autograd/__init__.py grad( result = _engine_run_backward(`, true},
		{CueBackward(), `/app/gan.py gradient_penalty( grads = torch.autograd.grad(outputs=d_out, inputs=x)`, true},
		{CueBackward(), `/site-packages/megatron/core/pipeline_parallel/schedules.py backward_step( torch.autograd.backward(output_tensor[0], grad_tensors=output_tensor_grad[0])`, true},
		{CueBackward(), `/site-packages/lightning/pytorch/loops/optimization/automatic.py backward_fn( call._call_strategy_hook(self.trainer, "backward", loss, optimizer)`, true},
		{CueBackward(), `/site-packages/tensorflow/python/eager/backprop.py gradient( flat_grad = imperative_grad.imperative_grad(`, true},
		{CueBackward(), `/app/train.py train_step( loss, grads = jax.value_and_grad(loss_fn)(state.params)`, true},
		{CueBackward(), `C:\venv\Lib\site-packages\torch\autograd\__init__.py backward( Variable._execution_engine.run_backward(`, true},
		{CueBackward(), `/site-packages/megatron/core/pipeline_parallel/schedules.py forward_backward_no_pipelining( output_tensor = forward_step(`, false},
		{CueBackward(), `/site-packages/torch/nn/modules/module.py _call_impl( for hook in self._backward_hooks.values():`, false},
		// loading
		{CueLoad(), `/site-packages/transformers/modeling_utils.py _load_state_dict_into_meta_model( param = param.to(param_device)`, true},
		{CueLoad(), `/site-packages/safetensors/torch.py load_file( with safe_open(filename, framework="pt", device=device) as f:`, true},
		{CueLoad(), `/site-packages/accelerate/utils/modeling.py load_checkpoint_in_model( set_module_tensor_to_device(model, name, device)`, true},
		{CueLoad(), `/site-packages/torch/nn/modules/module.py cuda( return self._apply(lambda t: t.cuda(device))`, true},
		{CueLoad(), `/site-packages/deepspeed/runtime/zero/partition_parameters.py _post_init_method( param.data = param.data.to(local_device)`, true},
		{CueLoad(), `/site-packages/lightning/pytorch/strategies/single_device.py model_to_device( self.model.to(self.root_device)`, true},
		{CueLoad(), `/site-packages/transformers/trainer.py __init__( self._move_model_to_device(model, args.device)`, true},
		{CueLoad(), `/site-packages/torch/nn/modules/module.py convert( return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, non_blocking)`, true},
		{CueLoad(), `/site-packages/ultralytics/nn/tasks.py attempt_load_one_weight( ckpt, weight = torch_safe_load(weight)`, true},
		{CueLoad(), `/site-packages/nemo/core/classes/modelPT.py restore_from( instance = cls._save_restore_connector.restore_from(`, true},
		{CueLoad(), `/site-packages/fairseq/checkpoint_utils.py load_model_ensemble_and_task( model.load_state_dict(state["model"], strict=strict)`, true},
		{CueLoad(), `M:\ComfyUI\comfy\model_management.py load_models_gpu( loaded_model.model_load(lowvram_model_memory, force_patch_weights=force_patch_weights)`, true},
		{CueLoad(), `/stable-diffusion-webui/modules/sd_models.py load_model_weights( model.load_state_dict(state_dict, strict=False)`, true},
		{CueLoad(), `/site-packages/torch/nn/parallel/data_parallel.py forward( outputs = self.parallel_apply(replicas, inputs, kwargs)`, false},
		{CueLoad(), `INFO: Loading checkpoint shards: 100%|██████████| 4/4`, false},
		// the input pipeline
		{CueData(), `/site-packages/torch/utils/data/_utils/collate.py default_collate( return torch.stack(batch, 0, out=out)`, true},
		{CueData(), `/site-packages/torch/utils/data/dataloader.py _next_data( data = self._dataset_fetcher.fetch(index)`, true},
		{CueData(), `/site-packages/transformers/trainer.py _inner_training_loop( batch = data_collator(features)`, true},
		{CueData(), `/site-packages/datasets/arrow_dataset.py _map_single( batch = apply_function_on_filtered_inputs(`, true},
		{CueData(), `/site-packages/tensorflow/python/data/ops/dataset_ops.py from_tensor_slices( return TensorSliceDataset(tensors, name=name)`, true},
		{CueData(), `/app/model.py collate_heads( return torch.cat(heads, dim=-1)`, false},
		// VAE decode
		{CueDecode(), `/site-packages/diffusers/models/autoencoders/autoencoder_kl_wan.py _decode( out = self.decoder(x[:, :, i : i + 1, :, :])`, true},
		{CueDecode(), `/site-packages/diffusers/models/autoencoders/autoencoder_kl_hunyuan_video.py _tiled_decode( decoded = self.decoder(tile)`, true},
		{CueDecode(), `M:\ComfyUI\comfy\sd.py decode_tiled_( comfy.utils.tiled_scale(samples, decode_fn, tile_x, tile_y, overlap)`, true},
		{CueDecode(), `/repositories/generative-models/sgm/modules/diffusionmodules/model.py forward( h = self.up[i_level].block[i_block](h, temb, **kwargs)`, true},
		{CueDecode(), `/stable-diffusion-webui/modules/sd_samplers_common.py single_sample_to_image( x_sample = processing.decode_first_stage(shared.sd_model, sample.unsqueeze(0))[0]`, true},
		{CueDecode(), `/repositories/generative-models/sgm/modules/diffusionmodules/openaimodel.py forward( h = module(h, emb, context)`, false},
		{CueDecode(), `/site-packages/transformers/models/whisper/modeling_whisper.py decode( return self.decoder(input_ids)`, false},
		// generation
		{CueGenerate(), `/site-packages/transformers/generation/utils.py _beam_search( outputs = self(**model_inputs, return_dict=True)`, true},
		{CueGenerate(), `/app/chat.py run( inputs = model.prepare_inputs_for_generation(input_ids, past_key_values=cache)`, true},
		{CueGenerate(), `/site-packages/mlx_lm/generate.py generate_step( logits = model(y[None], cache=prompt_cache)`, true},
		{CueGenerate(), `/site-packages/whisper/transcribe.py transcribe( result: DecodingResult = decode_with_fallback(mel_segment)`, true},
		{CueGenerate(), `/site-packages/vllm/v1/worker/gpu_model_runner.py execute_model( model_output = self.model(`, true},
		{CueGenerate(), `/site-packages/sglang/srt/managers/tp_worker.py forward_batch_generation( logits_output = self.model_runner.forward(forward_batch)`, true},
		{CueGenerate(), `/server/text_generation_server/models/flash_causal_lm.py generate_token( out, speculative_logits = self.forward(batch, adapter_data)`, true},
		{CueGenerate(), `/app/data.py generate_batches( return [x[i : i + n] for i in range(0, len(x), n)]`, false},
		// evaluation and prediction
		{CueEval(), `/site-packages/lightning/pytorch/loops/prediction_loop.py _predict_step( predictions = call._call_strategy_hook(trainer, "predict_step", *step_args)`, true},
		{CueEval(), `/site-packages/keras/engine/training.py predict_function( return step_function(self, iterator)`, true},
		{CueEval(), `/site-packages/mmengine/runner/loops.py run_iter( outputs = self.runner.model.val_step(data_batch)`, true},
		{CueEval(), `/site-packages/fairseq/trainer.py valid_step( _loss, sample_size, logging_output = self.task.valid_step(`, true},
		{CueEval(), `/site-packages/detectron2/evaluation/evaluator.py inference_on_dataset( outputs = model(inputs)`, true},
		{CueEval(), `/site-packages/ultralytics/engine/validator.py __call__( preds = model(batch["img"], augment=augment)`, true},
		{CueEval(), `/site-packages/torch/nn/modules/module.py _call_impl( return forward_call(*args, **kwargs)`, false},
		{CueLoad(), `G:/env/lib/site-packages/paddle/framework/io.py load( load_result[key] = _ndarray_to_tensor(`, true},
		{CueLoad(), `/app/run.py <module>( state_dict = paddle.load(args.pretrained_model)`, true},
		{CueOptimizer(), `OOM when allocating tensor with shape[50257,768] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc [[node h6/Adam_1/Assign]]`, true},
		{CueOptimizer(), `OOM when allocating tensor with shape[64,1024,768] and type float [[node model/h6/attn/MatMul]]`, false},
		// Module.cuda moves weights; a tensor's .cuda() moves data
		{CueLoad(), `train.py main( model = Net().cuda()`, true},
		{CueLoad(), `train.py main( self.backbone_net.cuda()`, true},
		{CueLoad(), `src/evaluation.py <module>( gaussian_kernel.cuda()`, false},
		{CueLoad(), `train.py train( images, labels = images.cuda(), labels.cuda()`, false},
		{CueLoad(), `train.py train( points = points.transpose(2, 1).contiguous().cuda()`, false},
		{CueLoad(), `train.py train( x = torch.from_numpy(x).float().cuda()`, false},
		{CueLoad(), `train.py main( net = UNet().cuda()`, true},
		{CueLoad(), `translate.py main( translator = ctranslate2.Translator(path, device="cuda")`, true},
		{CueEval(), `/site-packages/mlx_lm/generate.py generate_step( mx.eval([c.state for c in prompt_cache])`, false}, // MLX's lazy evaluation, not an eval loop
		// forward
		{CueForward(), `/site-packages/flax/linen/module.py apply( return apply(fn, mutable=mutable)(variables, *args, **kwargs)`, false},
		{CueForward(), `/app/model.py __call__( y = self.net.apply(params, x)`, true},
		{CueForward(), `/site-packages/torch/nn/functional.py group_norm( return torch.group_norm(input, num_groups, weight, bias, eps, torch.backends.cudnn.enabled)`, true},
		{CueForward(), `/app/utils.py to_list( return list(x)`, false},
		// inside a serving engine
		{CueServing(), `/site-packages/vllm/worker/model_runner.py profile_run( self.execute_model(model_input, kv_caches, intermediate_tensors)`, true},
		{CueServing(), `/site-packages/vllm_ascend/worker/model_runner_v1.py _dummy_run( hidden_states = model(`, true},
		{CueServing(), `(EngineCore_DP0 pid=4121) ERROR 08-12 10:00:01 [core.py:700] EngineCore failed to start.`, true},
		{CueServing(), `/site-packages/sglang/srt/model_executor/model_runner.py init_memory_pool( raise RuntimeError("Not enough memory. Please try to increase --mem-fraction-static.")`, true},
		{CueServing(), `/site-packages/lmdeploy/turbomind/turbomind.py _create_engine( model_comm = _tm.AbstractTransformerModel.create_llama_model(`, true},
		{CueServing(), `[TensorRT-LLM][ERROR] [TensorRT-LLM][ERROR] CUDA runtime error in cudaMalloc: out of memory`, true},
		{CueServing(), `/server/text_generation_server/models/flash_causal_lm.py warmup( raise RuntimeError("Not enough memory to handle 4096 prefill tokens.")`, true},
		{CueServing(), `/site-packages/trl/trainer/grpo_trainer.py _generate( use_vllm=self.use_vllm,`, false},
		{CueServing(), `/site-packages/transformers/generation/utils.py generate( result = self._sample(`, false},
	}
	for _, tc := range tests {
		if got := tc.cue.Matches(tc.text); got != tc.want {
			t.Errorf("%s.Matches(%q) = %v, want %v", tc.cue.Name, tc.text, got, tc.want)
		}
	}
}

// TestPhaseInsideClosure: Lightning's automatic optimization runs the
// training step as the optimizer's closure, so the forward's frames lie
// inside adam.py's; the phase is that forward, and an OOM in the update
// after the closure returned is still the optimizer step.
func TestPhaseInsideClosure(t *testing.T) {
	outer := []Frame{
		{File: "/site-packages/lightning/pytorch/loops/optimization/automatic.py", Function: "_optimizer_step", Code: `call._call_lightning_module_hook(trainer, "optimizer_step", trainer.current_epoch, batch_idx, optimizer, train_step_and_backward_closure)`},
		{File: "/site-packages/lightning/pytorch/plugins/precision/precision.py", Function: "optimizer_step", Code: "return optimizer.step(closure=closure, **kwargs)"},
		{File: "/site-packages/torch/optim/optimizer.py", Function: "wrapper", Code: "out = func(*args, **kwargs)"},
	}
	forward := append(append([]Frame(nil), outer...),
		Frame{File: "/site-packages/torch/optim/adam.py", Function: "step", Code: "loss = closure()"},
		Frame{File: "/site-packages/lightning/pytorch/plugins/precision/precision.py", Function: "_wrap_closure", Code: "closure_result = closure()"},
		Frame{File: "/site-packages/lightning/pytorch/loops/optimization/automatic.py", Function: "closure", Code: "step_output = self._step_fn()"},
		Frame{File: "/site-packages/lightning/pytorch/loops/optimization/automatic.py", Function: "_training_step", Code: `training_step_output = call._call_strategy_hook(trainer, "training_step", *kwargs.values())`},
		Frame{File: "/app/model.py", Function: "training_step", Code: "logits = self(x)"},
		Frame{File: "/site-packages/torch/nn/modules/module.py", Function: "_call_impl", Code: "return forward_call(*args, **kwargs)"},
	)
	backward := append(append([]Frame(nil), forward[:6]...),
		Frame{File: "/site-packages/lightning/pytorch/loops/optimization/automatic.py", Function: "backward_fn", Code: `call._call_strategy_hook(self.trainer, "backward", loss, optimizer)`},
		Frame{File: "/site-packages/torch/autograd/__init__.py", Function: "backward", Code: "_engine_run_backward("},
	)
	update := append(append([]Frame(nil), outer...),
		Frame{File: "/site-packages/torch/optim/adam.py", Function: "step", Code: "adam("},
		Frame{File: "/site-packages/torch/optim/adam.py", Function: "_multi_tensor_adam", Code: "exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)"},
	)
	for _, tc := range []struct {
		name   string
		frames []Frame
		want   string
	}{
		{"forward in the closure", forward, PhaseForward},
		{"backward in the closure", backward, PhaseBackward},
		{"the update itself", update, PhaseOptimizer},
	} {
		if got := phaseOf(&Event{Frames: tc.frames}); got != tc.want {
			t.Errorf("%s: phase %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestPhaseOfConstructor(t *testing.T) {
	app := Frame{File: "/app/asr.py", Function: "main", Code: "asr = setup(size)"}
	for _, tc := range []struct {
		name   string
		frames []Frame
		want   string
	}{
		{"a constructor's module names no phase", []Frame{app, {File: "/site-packages/faster_whisper/transcribe.py", Function: "__init__", Code: "self.feature_extractor = FeatureExtractor(**kwargs)"}}, PhaseUnknown},
		{"a CTranslate2 model built in a constructor is loading", []Frame{app, {File: "/site-packages/faster_whisper/transcribe.py", Function: "__init__", Code: "self.model = ctranslate2.models.Whisper("}}, PhaseLoad},
		{"IPython's qualified constructor name", []Frame{app, {File: "/site-packages/faster_whisper/transcribe.py", Function: "WhisperModel.__init__"}}, PhaseUnknown},
		{"underscores lost in a Markdown paste", []Frame{app, {File: `faster_whisper\transcribe.py`, Function: "init"}}, PhaseUnknown},
		{"a constructor's own code still counts", []Frame{{File: "/app/run.py", Function: "__init__", Code: "self.model = AutoModel.from_pretrained(name).to(\"cuda\")"}}, PhaseLoad},
		{"a phase cue elsewhere still wins", []Frame{{File: "/app/run.py", Function: "main", Code: "out = model.generate(**inputs)"}, {File: "/site-packages/transformers/cache_utils.py", Function: "__init__", Code: "self.key_cache.append(torch.zeros(cache_shape))"}}, PhaseGenerate},
		{"the file still counts outside constructors", []Frame{{File: "/site-packages/faster_whisper/transcribe.py", Function: "generate_with_fallback"}}, PhaseGenerate},
	} {
		if got := phaseOf(&Event{Frames: tc.frames}); got != tc.want {
			t.Errorf("%s: phase %q, want %q", tc.name, got, tc.want)
		}
	}
	// CTranslate2 builds no tensors from Python: its constructors load,
	// even where the paste kept no code line (a PyInstaller build).
	ct2 := []Frame{app, {File: `faster_whisper\transcribe.py`, Function: "__init__"}}
	if got := phaseOf(&Event{Frames: ct2, Framework: "ctranslate2"}); got != PhaseLoad {
		t.Errorf("a CTranslate2 failure in a constructor: phase %q, want load", got)
	}
	enc := []Frame{app, {File: "/site-packages/faster_whisper/transcribe.py", Function: "encode", Code: "return self.model.encode(features, to_cpu=to_cpu)"}}
	if got := phaseOf(&Event{Frames: enc, Framework: "ctranslate2"}); got == PhaseLoad {
		t.Errorf("a CTranslate2 failure outside a constructor read as load")
	}
}

// TestKilledWhileLoading: a kill that cuts a loading progress bar happened
// while loading; the same bar finished on an earlier line names no phase.
func TestKilledWhileLoading(t *testing.T) {
	for _, tc := range []struct {
		name, log, want string
	}{
		{"the kill cuts the bar", "Loading checkpoint shards:  38%|█████     | 3/8 [00:08<00:14,  2.91s/it]Killed\n", PhaseLoad},
		{"the bar finished before", "Loading checkpoint shards: 100%|██████████| 8/8 [00:21<00:00,  2.63s/it]\nstep 10 loss 1.93\nKilled\n", PhaseUnknown},
	} {
		res, err := Parse(strings.NewReader(tc.log), "in.log")
		if err != nil || len(res.Events) != 1 {
			t.Fatalf("%s: %v, %d events", tc.name, err, len(res.Events))
		}
		if got := res.Events[0].Phase; got != tc.want {
			t.Errorf("%s: phase %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestCallWords: a call word matches a call of its name, or of a name
// ending in it after an underscore, not of a longer word.
func TestCallWords(t *testing.T) {
	for _, tc := range []struct {
		text, word string
		want       bool
	}{
		{"    metrics = trainer.valid(loader)", "valid(", true},
		{"    raise_if_cache_size_invalid(num_gpu_blocks,", "valid(", false},
		{"    ckpt = get_latest(ckpt_dir)", "test(", false},
		{"def test():", "test(", true},
		{"    out = model.batch_infer(x)", "infer(", true},
		{"    out = run_inference(x)", "inference(", true},
		{"predict(x)", "predict(", true},
	} {
		if got := HasWord(tc.text, []string{tc.word}); got != tc.want {
			t.Errorf("HasWord(%q, %q) = %v, want %v", tc.text, tc.word, got, tc.want)
		}
		if _, got := NewTextSet([]string{tc.text}).First([]string{tc.word}); got != tc.want {
			t.Errorf("TextSet(%q).First(%q) = %v, want %v", tc.text, tc.word, got, tc.want)
		}
	}
}
