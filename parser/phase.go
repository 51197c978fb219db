package parser

import "strings"

// phaseCue ties a phase to words that reveal it in a frame's function,
// code or file, or in a progress line before the failure.
type phaseCue struct {
	phase string
	words []string
}

// phaseCues are tried in priority order: an optimizer step inside a
// training loop is "optimizer-step", not "forward", even though both
// appear in the frames; loading wins over the forward that a warm-up runs.
func phaseCues() []phaseCue {
	return []phaseCue{
		{PhaseOptimizer, []string{"optimizer.step", "optim.step", "_init_group", "exp_avg", "_multi_tensor_adam", "_single_tensor_adam", "adamw.py", "adam.py", "scaler.step", "_optimizer_step", "optimizer_step"}},
		{PhaseBackward, []string{"backward(", ".backward", "autograd/__init__.py", "run_backward", "_engine_run_backward", "accelerator.backward", "manual_backward"}},
		{PhaseLoad, []string{"deepspeed.initialize", "_configure_distributed_model", "llm_load_", "load_tensors", "llama_model_load", "print_info: model", "model_loader", "_initialize_model", "initialize_model(", "init_vllm_registered_model", "from_pretrained", "load_state_dict", "set_module_tensor_to_device", "load_checkpoint", "_load_pretrained_model", "caching_allocator_warmup", "torch.load(", "serialization.py", "_rebuild_tensor", "load_model", "dispatch_model", "model.to(", ".cuda()", "model.cuda", "load_weights", "modeling_utils.py"}},
		{PhaseData, []string{"dataloader.py", "DataLoader worker", "collate", "__getitem__", "_worker_loop"}},
		{PhaseDecode, []string{"vae.decode", "decode_latents", "autoencoder_kl", "AutoencoderKL", "vae_decode", "first_stage_model.decode", "decode_first_stage", "tiled_decode"}},
		{PhaseGenerate, []string{"generate(", "._sample(", "greedy_search", "beam_search", "generation/utils.py", "prefill", "decode_step", "setup_caches", "chat("}},
		{PhaseEval, []string{"evaluate(", "evaluation_loop", "validation_step", "prediction_step", "eval_step", "test_step", "predict(", "validate(", "evaluate.py", "inference(", "infer("}},
		{PhaseForward, []string{"forward(", "_call_impl", "_wrapped_call_impl", "__call__", "model(", "forward", "scaled_dot_product_attention", "F.linear", "matmul", "conv2d"}},
	}
}

// phaseOf names the phase from an event's frames, its own message and the
// lines just before it.
func phaseOf(ev *Event) string {
	var b strings.Builder
	for _, f := range ev.Frames {
		b.WriteString(f.File)
		b.WriteByte(' ')
		b.WriteString(f.Function)
		b.WriteString("( ")
		b.WriteString(f.Code)
		b.WriteByte('\n')
	}
	hasFrames := b.Len() > 0
	for _, c := range ev.ContextLines {
		b.WriteString(c.Text)
		b.WriteByte('\n')
	}
	b.WriteString(ev.Message)
	text := b.String()
	for _, cue := range phaseCues() {
		for _, w := range cue.words {
			if strings.Contains(text, w) {
				return cue.phase
			}
		}
	}
	if !hasFrames && ev.Kind == KindHostKill && strings.Contains(ev.Message, "DataLoader") {
		return PhaseData
	}
	return PhaseUnknown
}
