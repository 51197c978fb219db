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
// "train_", "vllm/") matches as written.
func (c Cue) Matches(text string) bool { return HasWord(text, c.Words) }

// HasWord reports whether text holds one of the words, as Cue.Matches
// matches them.
func HasWord(text string, words []string) bool {
	for _, w := range words {
		if isIdentifier(w) {
			if hasIdentifier(text, w) {
				return true
			}
		} else if strings.Contains(text, w) {
			return true
		}
	}
	return false
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

func identByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

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
// step, a grad scaler's step.
func CueOptimizer() Cue {
	return Cue{"optimizer-step", []string{"optimizer.step", "optim.step", "_init_group", "exp_avg", "_multi_tensor_adam", "_single_tensor_adam", "adamw.py", "adam.py", "scaler.step", "_optimizer_step", "optimizer_step"}}
}

// CueBackward is the backward pass.
func CueBackward() Cue {
	return Cue{"backward", []string{"backward(", ".backward", "autograd/__init__.py", "run_backward", "_engine_run_backward", "accelerator.backward", "manual_backward"}}
}

// CueLoad is placing a model's weights on the device.
func CueLoad() Cue {
	return Cue{"load", []string{"deepspeed.initialize", "_configure_distributed_model", "llm_load_", "load_tensors", "llama_model_load", "print_info: model", "model_loader", "_initialize_model", "initialize_model(", "init_vllm_registered_model", "from_pretrained", "load_state_dict", "set_module_tensor_to_device", "load_checkpoint", "_load_pretrained_model", "caching_allocator_warmup", "torch.load(", "serialization.py", "_rebuild_tensor", "load_model", "dispatch_model", "model.to(", ".cuda()", "model.cuda", "load_weights", "modeling_utils.py"}}
}

// CueData is the input pipeline.
func CueData() Cue {
	return Cue{"data", []string{"dataloader.py", "DataLoader worker", "collate", "__getitem__", "_worker_loop"}}
}

// CueDecode is a diffusion VAE decoding latents to pixels.
func CueDecode() Cue {
	return Cue{"vae-decode", []string{"vae.decode", "vae: ", "vae_decode", "VAEDecode", "decode_latents", "AutoencoderKL", "autoencoder_kl", "first_stage_model", "decode_first_stage", "tiled_decode", "VAE decode", "vae.tiled"}}
}

// CueGenerate is autoregressive generation.
func CueGenerate() Cue {
	return Cue{"generate", []string{"generate(", "._sample(", "greedy_search", "beam_search", "generation/utils.py", "prefill", "decode_step", "setup_caches", "chat("}}
}

// CueEval is evaluation, validation, testing or prediction code.
func CueEval() Cue {
	return Cue{"eval", []string{"evaluate(", "evaluation_loop", "validation_step", "prediction_step", "eval_step", "test_step", "predict(", "validate(", "evaluate.py", "inference(", "infer(", "def test", "test(", "valid(", "_eval", "eval("}}
}

// CueForward is a module's forward pass.
func CueForward() Cue {
	return Cue{"forward", []string{"forward(", "_call_impl", "_wrapped_call_impl", "__call__", "model(", "forward", "scaled_dot_product_attention", "F.linear", "matmul", "conv2d", "conv2d_", "Conv2D", "MatMul", "Relu"}}
}

// Vocabulary lists every cue the phases are read from.
func Vocabulary() []Cue {
	return []Cue{CueOptimizer(), CueBackward(), CueLoad(), CueData(), CueDecode(), CueGenerate(), CueEval(), CueForward()}
}
