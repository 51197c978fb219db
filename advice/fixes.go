package advice

import (
	"fmt"
	"strings"

	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/rules"
)

// fixContext is what a culprit's fix builder works from.
type fixContext struct {
	fd  rules.Finding
	f   *rules.Facts
	env Env
	cat models.Catalog
}

func bytesp(n int64) *int64 {
	if n <= 0 {
		return nil
	}
	return &n
}

// fixesFor returns a finding's fixes, most effective first.
func fixesFor(c *fixContext) []Fix {
	build, ok := fixBuilders()[c.fd.Culprit]
	if !ok {
		return nil
	}
	var out []Fix
	for _, fx := range build(c) {
		if fx.ID != "" {
			out = append(out, fx)
		}
	}
	return out
}

// fixBuilders maps each culprit to the function that writes its fixes.
func fixBuilders() map[string]func(*fixContext) []Fix {
	return map[string]func(*fixContext) []Fix{
		"weights-too-large":     weightsFixes,
		"weights-wrong-dtype":   dtypeFixes,
		"kv-cache":              kvFixes,
		"visual-tokens":         visualFixes,
		"attention-matrix":      attentionFixes,
		"logits-upcast":         logitsFixes,
		"activations":           activationFixes,
		"optimizer-state":       optimizerFixes,
		"fragmentation":         fragmentationFixes,
		"other-process":         otherProcessFixes,
		"leak":                  leakFixes,
		"no-grad-missing":       noGradFixes,
		"batch-too-large":       batchFixes,
		"device-imbalance":      imbalanceFixes,
		"library-workspace":     workspaceFixes,
		"serving-memory-budget": servingFixes,
		"vae-decode":            vaeFixes,
		"host-ram":              hostFixes,
		"mps-limit":             mpsFixes,
		"checkpoint-to-gpu":     checkpointFixes,
		"allocation-limit":      allocationLimitFixes,
	}
}

func (c *fixContext) modelID() string {
	if c.f.Model != nil {
		return c.f.Model.ID
	}
	return "ORG/MODEL"
}

func weightsFixes(c *fixContext) []Fix {
	switch c.f.Ev.Framework {
	case "ggml":
		return ggmlWeightsFixes(c)
	case "vllm":
		return vllmWeightsFixes(c)
	}
	if _, ok := c.f.Notice("comfyui"); ok {
		return comfyWeightsFixes()
	}
	arg, note := c.env.DTypeArg()
	q := c.fd.Quantities
	w16 := q.WeightBytes
	var w4, w8 int64
	if c.f.Model != nil {
		nl := nonLinearParams(*c.f.Model)
		w16 = WeightBytes(c.f.Params, nl, FormatFP16)
		w4 = WeightBytes(c.f.Params, nl, FormatNF4)
		w8 = WeightBytes(c.f.Params, nl, FormatInt8)
	} else if c.f.Params > 0 {
		w16 = c.f.Params * 2
		w4, w8 = WeightBytes(c.f.Params, 0, FormatNF4), WeightBytes(c.f.Params, 0, FormatInt8)
	}
	four := Fix{
		ID:    "load-in-4bit",
		Title: "Load the weights in 4-bit (NF4) with bitsandbytes",
		Why:   "NF4 stores each linear-layer weight in 4 bits plus a small scale per block (≈4.5 bits, ≈4.13 with double quantisation); embeddings and lm_head stay 16-bit. The model computes in bf16 as before.",
		Snippet: fmt.Sprintf(`from transformers import AutoModelForCausalLM, BitsAndBytesConfig
import torch

bnb = BitsAndBytesConfig(
    load_in_4bit=True,
    bnb_4bit_quant_type="nf4",
    bnb_4bit_use_double_quant=True,
    bnb_4bit_compute_dtype=torch.bfloat16,
)
model = AutoModelForCausalLM.from_pretrained(  # or the model's own class
    %q, quantization_config=bnb, %s=torch.bfloat16, device_map="auto")`, c.modelID(), arg),
		Caveat: "Slightly lower accuracy than 16-bit; needs the bitsandbytes package and a CUDA GPU. Pass quantization_config — the bare load_in_4bit=True argument is deprecated and removed in transformers v5.",
		Note:   note,
	}
	if w16 > 0 && w4 > 0 {
		four.SavesBytes = bytesp(w16 - w4)
		four.Saving = fmt.Sprintf("weights %s → ≈%s", gbs(w16), gbs(w4))
	}
	eight := Fix{
		ID:      "load-in-8bit",
		Title:   "Load the weights in 8-bit (LLM.int8) with bitsandbytes",
		Why:     "LLM.int8 stores linear-layer weights in 1 byte per parameter, half of 16-bit, with less accuracy loss than 4-bit.",
		Snippet: fmt.Sprintf("bnb = BitsAndBytesConfig(load_in_8bit=True)\nmodel = AutoModelForCausalLM.from_pretrained(%q, quantization_config=bnb, device_map=\"auto\")", c.modelID()),
		Caveat:  "Slower matmuls than 16-bit; halves the weights only, which may still not fit.",
	}
	if w16 > 0 && w8 > 0 {
		eight.SavesBytes = bytesp(w16 - w8)
		eight.Saving = fmt.Sprintf("weights %s → ≈%s", gbs(w16), gbs(w8))
	}
	offload := Fix{
		ID:      "cpu-offload",
		Title:   "Let accelerate place what does not fit in CPU RAM",
		Why:     "device_map=\"auto\" with max_memory fills the GPU up to the limit you give and keeps the remaining layers in CPU RAM, moving them in as they run.",
		Snippet: fmt.Sprintf("model = AutoModelForCausalLM.from_pretrained(%q, %s=torch.float16, device_map=\"auto\",\n    max_memory={0: %q, \"cpu\": \"64GiB\"})", c.modelID(), arg, gibLimit(c.f.Capacity)),
		Caveat:  "Much slower: offloaded layers cross PCIe on every forward pass.",
		Note:    note,
	}
	out := []Fix{four, eight}
	if sib := c.smallerSibling(); sib != "" {
		out = append(out, Fix{
			ID:      "smaller-model",
			Title:   "Use a smaller model of the same family: " + sib,
			Why:     "Weight memory is proportional to the parameter count.",
			Snippet: fmt.Sprintf("model_id = %q", sib),
			Caveat:  "Lower quality than the larger model.",
		})
	}
	return append(out, offload)
}

// ggmlWeightsFixes are the weight fixes for llama.cpp and ollama.
func ggmlWeightsFixes(c *fixContext) []Fix {
	return []Fix{{
		ID:      "fewer-gpu-layers",
		Title:   "Offload fewer layers to the GPU",
		Why:     "llama.cpp keeps the layers it does not offload in CPU RAM; each layer left out frees its share of the weights on the GPU.",
		Snippet: "llama-server -m model.gguf -ngl 20        # instead of -ngl 99 (all layers)\n# ollama: PARAMETER num_gpu 20 in the Modelfile, or \"options\": {\"num_gpu\": 20}",
		Caveat:  "Slower generation: the CPU runs the layers left out.",
	}, {
		ID:      "smaller-quantisation",
		Title:   "Use a smaller quantisation of the model (e.g. Q4_K_M instead of Q8_0)",
		Why:     "Weight memory is bits per weight × parameters: Q4_K_M (≈4.8 bits) takes a bit over half of Q8_0 (8.5 bits).",
		Snippet: "# download the Q4_K_M (or IQ4_XS) GGUF of the same model; ollama: pull the :q4_K_M tag",
		Caveat:  "Some loss of quality at lower bit widths.",
	}, {
		ID:      "split-across-gpus",
		Title:   "Split the model across several GPUs",
		Why:     "Each GPU then holds only its share of the layers.",
		Snippet: "llama-server -m model.gguf -ngl 99 --tensor-split 1,1",
		Caveat:  "Needs more GPUs; some cross-GPU traffic.",
	}}
}

// comfyWeightsFixes are the weight fixes for ComfyUI workflows.
func comfyWeightsFixes() []Fix {
	return []Fix{{
		ID:      "quantised-diffusion-checkpoint",
		Title:   "Load an fp8 or GGUF-quantised checkpoint of the model",
		Why:     "An fp8 checkpoint halves 16-bit weights; a Q4–Q5 GGUF (ComfyUI-GGUF's loader) takes about a third.",
		Snippet: "# Load Diffusion Model node: weight_dtype fp8_e4m3fn\n# or the Unet Loader (GGUF) node with a Q4_K_M / Q5_K_M file",
		Caveat:  "Slightly lower image quality at lower precision.",
	}, {
		ID:      "comfy-lowvram",
		Title:   "Start ComfyUI with --lowvram (or --novram)",
		Why:     "ComfyUI then keeps more of the model in CPU RAM and moves parts in as they run, leaving room for the sampling step.",
		Snippet: "python main.py --lowvram      # --novram as a last resort",
		Caveat:  "Slower generation.",
	}, {
		ID:      "comfy-smaller-latent",
		Title:   "Lower the resolution, frame count or batch of the latent",
		Why:     "Activation memory of the sampling step grows with width × height × frames × batch.",
		Snippet: "# Empty Latent Image: 1024x1024 → 768x768, batch_size 1; for video, fewer frames",
		Caveat:  "Smaller or shorter outputs.",
	}}
}

// vllmWeightsFixes are the weight fixes for vLLM.
func vllmWeightsFixes(c *fixContext) []Fix {
	return []Fix{{
		ID:      "vllm-quantized-checkpoint",
		Title:   "Serve a quantised checkpoint (AWQ, GPTQ or FP8)",
		Why:     "A 4-bit AWQ/GPTQ checkpoint holds the weights in about a quarter of 16-bit; vLLM reads the quantisation from the checkpoint's config.",
		Snippet: "vllm serve ORG/MODEL-AWQ --quantization awq\n# or fp8 on Ada/Hopper GPUs: vllm serve ORG/MODEL --quantization fp8",
		Caveat:  "Slightly lower accuracy; needs a quantised checkpoint or a GPU that supports fp8.",
	}, {
		ID:      "vllm-tensor-parallel",
		Title:   "Shard the model over several GPUs",
		Why:     "With tensor parallelism each GPU holds 1/N of the weights.",
		Snippet: "vllm serve ORG/MODEL --tensor-parallel-size 2",
		Caveat:  "Needs N GPUs.",
	}, {
		ID:      "vllm-cpu-offload",
		Title:   "Offload part of the weights to CPU RAM",
		Why:     "--cpu-offload-gb keeps that many GB of weights in CPU RAM and streams them in.",
		Snippet: "vllm serve ORG/MODEL --cpu-offload-gb 8",
		Caveat:  "Much slower: the offloaded weights cross PCIe on every step.",
	}}
}

// smallerSibling names the largest smaller model of the family that fits
// the device in 4-bit, preferring one that fits at 16-bit.
func (c *fixContext) smallerSibling() string {
	if c.f.Model == nil || c.f.Capacity == 0 {
		return ""
	}
	best := ""
	for _, s := range c.cat.Siblings(*c.f.Model) {
		if s.Params < c.f.Model.Params && Fits(WeightBytes(s.Params, nonLinearParams(s), FormatNF4), c.f.Capacity) {
			best = s.ID
		}
	}
	return best
}

func gibLimit(capacity int64) string {
	if capacity == 0 {
		return "10GiB"
	}
	g := (capacity - Reserve(capacity)) >> 30
	return fmt.Sprintf("%dGiB", max(g, 1))
}

func dtypeFixes(c *fixContext) []Fix {
	arg, note := c.env.DTypeArg()
	saves := c.f.Params * 2
	fx := Fix{
		ID:      "load-in-bf16",
		Title:   "Load the weights in bfloat16 (or the checkpoint's own dtype)",
		Why:     "float32 doubles every weight. The checkpoint is almost always 16-bit; asking for it halves the weights with no loss.",
		Snippet: fmt.Sprintf("model = AutoModelForCausalLM.from_pretrained(%q, %s=torch.bfloat16)  # or \"auto\"\n# vLLM: --dtype auto (or bfloat16), never --dtype float", c.modelID(), arg),
		Caveat:  "GPUs before Ampere (V100, T4, RTX 20xx) lack bf16: use torch.float16 there.",
		Note:    note,
	}
	if saves > 0 {
		fx.SavesBytes = bytesp(saves)
		fx.Saving = fmt.Sprintf("weights %s → %s", gbs(c.f.Params*4), gbs(c.f.Params*2))
	}
	return []Fix{fx}
}

func kvFixes(c *fixContext) []Fix {
	if c.f.Ev.Framework == "vllm" || c.f.Ev.Kind == parser.KindServing {
		return servingFixes(c)
	}
	if c.f.Ev.Framework == "ggml" {
		return []Fix{{
			ID:      "smaller-context",
			Title:   "Lower the context size",
			Why:     "llama.cpp sizes the KV cache and its compute buffers for the whole context (-c / num_ctx) when the model is loaded.",
			Snippet: "llama-server -m model.gguf -c 8192      # ollama: PARAMETER num_ctx 8192",
			Caveat:  "Longer prompts no longer fit.",
		}, {
			ID:      "ggml-kv-cache-q8",
			Title:   "Store the KV cache in 8 bits",
			Why:     "q8_0 halves the KV cache of f16.",
			Snippet: "llama-server -m model.gguf -fa on --cache-type-k q8_0 --cache-type-v q8_0\n# ollama: OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0",
			Caveat:  "Needs flash attention; a small loss of accuracy.",
		}}
	}
	q := c.fd.Quantities
	static := Fix{
		ID:      "size-cache-to-need",
		Title:   "Size the cache to prompt + max_new_tokens, not the model's maximum context",
		Why:     "A preallocated (static) cache costs its full size up front. Sizing it to what one request can actually use removes the rest.",
		Snippet: "# HF static cache: generate(..., cache_implementation=\"static\") sizes it to max_length;\n# pass max_new_tokens (or max_cache_len) for this request instead of the model's max_position_embeddings.\n# Custom setup_caches(max_seq_len=...): use len(prompt) + max_new_tokens.",
		Caveat:  "Longer requests then need the cache re-sized.",
	}
	if q.KVBytesPerTok > 0 && q.SeqLen > 0 {
		static.Saving = fmt.Sprintf("%s per token: each 1,000 tokens of unused capacity is %s", size(q.KVBytesPerTok), size(q.KVBytesPerTok*1000))
	}
	shorter := Fix{
		ID:      "limit-generation-length",
		Title:   "Lower max_new_tokens / max_length, the batch, or the number of beams",
		Why:     "The cache grows by the same amount for every token of every sequence (each beam is a sequence).",
		Snippet: "out = model.generate(**inputs, max_new_tokens=512, num_beams=1)",
		Caveat:  "Shorter outputs; fewer beams can lower quality.",
	}
	quant := Fix{
		ID:      "quantized-kv-cache",
		Title:   "Quantise the KV cache to 4 bits",
		Why:     "A 4-bit cache takes a quarter of the 16-bit one.",
		Snippet: "out = model.generate(**inputs, cache_implementation=\"quantized\",\n    cache_config={\"backend\": \"quanto\", \"nbits\": 4})  # pip install optimum-quanto",
		Caveat:  "Needs optimum-quanto (or hqq); slightly slower and less exact.",
	}
	static2 := c.fd.Variant == rules.VariantStaticCache
	if c.f.Requested > 0 && static2 {
		quant.SavesBytes = bytesp(c.f.Requested * 3 / 4)
		quant.Saving = "the failing cache allocation shrinks to a quarter"
	}
	off := Fix{
		ID:      "offloaded-kv-cache",
		Title:   "Offload the KV cache to CPU RAM",
		Why:     "An offloaded cache keeps only the current layer's keys and values on the GPU.",
		Snippet: "out = model.generate(**inputs, cache_implementation=\"offloaded\")",
		Caveat:  "Slower generation; CUDA only.",
	}
	if static2 {
		return []Fix{static, quant, shorter, off}
	}
	return []Fix{shorter, quant, off}
}

func visualFixes(c *fixContext) []Fix {
	q := c.fd.Quantities
	vis, ok := models.Vision{}, false
	if c.f.Model != nil {
		vis, ok = models.VisionOf(*c.f.Model)
	}
	const target = 768 * 768
	fx := Fix{
		ID:     "lower-max-pixels",
		Title:  "Cap image resolution: max_pixels=768*768",
		Why:    "Visual tokens are proportional to the image's pixel count, and every per-token tensor of the vision path shrinks with them.",
		Caveat: "Fine detail in large images (small text, dense documents) is lost; raise the cap step by step if quality drops.",
	}
	switch {
	case ok && strings.HasPrefix(vis.Family, "ovis"):
		fx.Snippet = "input_ids, pixel_values, grid_thws = model.preprocess_inputs(\n    messages=messages, add_generation_prompt=True, enable_thinking=False,\n    max_pixels=768*768)"
	case ok && strings.HasPrefix(vis.Family, "qwen"):
		fx.Snippet = "processor = AutoProcessor.from_pretrained(model_id, min_pixels=256*28*28, max_pixels=768*768)\n# vLLM: LLM(model_id, mm_processor_kwargs={\"max_pixels\": 768*768})"
	case c.f.Ev.Framework == "ggml":
		fx.ID, fx.Title = "downscale-images", "Downscale images before sending them (or run the vision projector on CPU)"
		fx.Snippet = "# resize so that width*height <= 768*768 before upload, e.g. with PIL: img.thumbnail((768, 768))\n# llama.cpp: --no-mmproj-offload keeps the image encoder off the GPU"
	default:
		fx.Snippet = "# the processor's image-size cap, e.g.\nprocessor = AutoProcessor.from_pretrained(model_id, max_pixels=768*768)\n# or resize inputs: img.thumbnail((768, 768))"
	}
	if ok && vis.PixelsPerToken > 0 && q.Tokens > 0 {
		newTokens := int64(target) / vis.PixelsPerToken
		if newTokens < q.Tokens && c.f.Requested > 0 && q.Vocab > 0 {
			fx.SavesBytes = bytesp(ScaledSaving(c.f.Requested, q.Tokens, newTokens))
			from := q.Tokens
			if q.DefaultTokens > 0 {
				from = q.DefaultTokens
			}
			fx.Saving = fmt.Sprintf("visual tokens ≈%s → ≈%s; the float32 softmax ≈%s → ≈%s", commas(from), commas(newTokens), size(from*q.Vocab*4), size(newTokens*q.Vocab*4))
		} else if newTokens < q.Tokens {
			fx.Saving = fmt.Sprintf("visual tokens ≈%s → ≈%s per image", commas(q.Tokens), commas(newTokens))
		}
	}
	return []Fix{fx, {
		ID:      "fewer-images",
		Title:   "Send fewer images (or video frames) per request",
		Why:     "Visual tokens add up across images in one prompt.",
		Snippet: "# split multi-image prompts; for video, sample fewer frames (e.g. fps=1) or set a frame limit",
		Caveat:  "Less visual context per answer.",
	}}
}

func attentionFixes(c *fixContext) []Fix {
	q := c.fd.Quantities
	sdpa := Fix{
		ID:      "use-sdpa-attention",
		Title:   "Use a fused attention kernel: attn_implementation=\"sdpa\" (or \"flash_attention_2\")",
		Why:     "Fused kernels compute attention block by block and never materialise the batch × heads × seq² score tensor.",
		Snippet: "model = AutoModelForCausalLM.from_pretrained(model_id, attn_implementation=\"sdpa\")\n# and do not pass output_attentions=True: it forces the eager path",
		Caveat:  "flash_attention_2 needs the flash-attn package and an Ampere or newer GPU; output_attentions is unavailable with fused kernels.",
	}
	if c.f.Ev.Kind != parser.KindTF && c.f.Requested > 0 {
		sdpa.SavesBytes = bytesp(c.f.Requested)
		sdpa.Saving = "the score tensor (" + size(c.f.Requested) + ") is never allocated"
	}
	shorter := Fix{
		ID:      "shorter-sequence",
		Title:   "Halve the sequence (or batch) that goes into attention",
		Why:     "Scores grow with the square of the sequence length and linearly with the batch.",
		Snippet: "# e.g. max_length / max_seq_length / image tiles (hd_num, max_num) / num_beams lower; batch_size smaller",
		Caveat:  "Less context per step.",
	}
	base := c.f.Requested
	if q.Batch > 0 && q.Heads > 0 && q.SeqLen > 0 && q.BytesPerElem > 0 {
		base = q.Batch * q.Heads * q.SeqLen * q.SeqLen * q.BytesPerElem
	}
	if base > 0 {
		shorter.SavesBytes = bytesp(QuadraticSaving(base, 2))
		shorter.Saving = fmt.Sprintf("half the sequence: the score tensor %s → %s", size(base), size(base/4))
	}
	if c.f.Ev.Kind == parser.KindTF {
		return []Fix{shorter}
	}
	return []Fix{sdpa, shorter}
}

func logitsFixes(c *fixContext) []Fix {
	q := c.fd.Quantities
	arg, note := c.env.LogitsToKeepArg()
	keep := Fix{
		ID:      "logits-to-keep",
		Title:   "Compute logits only for the positions you need",
		Why:     "Generation needs the last position's logits only; slicing the hidden states before lm_head avoids the positions × vocabulary tensor.",
		Snippet: fmt.Sprintf("out = model(input_ids, %s=1)  # generate() already does this\n# custom code: logits = model.lm_head(hidden_states[:, -1:, :])", arg),
		Caveat:  "Not for training losses or log-prob scoring, which need every position (use a chunked loss there).",
		Note:    note,
	}
	if q.Tokens > 1 && c.f.Requested > 0 {
		keep.SavesBytes = bytesp(ScaledSaving(c.f.Requested, q.Tokens, 1))
		keep.Saving = fmt.Sprintf("%s positions → 1", commas(q.Tokens))
	}
	if c.f.Ev.Framework == "mlx" {
		keep.Snippet = "# mlx-lm / mlx-vlm: prefill in chunks (prefill_step_size) and take logits[:, -1, :] before the vocabulary projection"
	}
	chunked := Fix{
		ID:      "chunked-loss",
		Title:   "Use a chunked / fused cross-entropy, or shorter sequences",
		Why:     "A fused linear + cross-entropy (e.g. Liger's) never builds the full float32 logits; shorter max_seq_length shrinks them proportionally.",
		Snippet: "from liger_kernel.transformers import apply_liger_kernel_to_llama  # or the model's family\napply_liger_kernel_to_llama(fused_linear_cross_entropy=True)\n# or: max_seq_length = 1024",
		Caveat:  "An extra dependency; shorter sequences drop context.",
	}
	if c.fd.Quantities.Training || c.f.Training >= 0.8 {
		return []Fix{chunked, keep}
	}
	return []Fix{keep, chunked}
}

func activationFixes(c *fixContext) []Fix {
	return []Fix{{
		ID:      "gradient-checkpointing",
		Title:   "Enable gradient checkpointing",
		Why:     "Checkpointing keeps only layer boundaries and recomputes the rest in backward, cutting activation memory by a large factor.",
		Snippet: "model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={\"use_reentrant\": False})\n# Trainer: TrainingArguments(..., gradient_checkpointing=True)",
		Caveat:  "About 20–30% slower steps. Training only: it does nothing for inference.",
	}, {
		ID:      "smaller-micro-batch",
		Title:   "Halve the micro-batch and double gradient accumulation",
		Why:     "Activations scale with the micro-batch; accumulation keeps the effective batch (and the results) the same.",
		Snippet: "TrainingArguments(per_device_train_batch_size=4, gradient_accumulation_steps=8)  # was 8 × 4",
		Caveat:  "Slower per sample.",
	}, {
		ID:      "shorter-sequences",
		Title:   "Shorten max_seq_length (or crop images/video)",
		Why:     "Activations scale with sequence length (attention with its square without fused kernels).",
		Snippet: "max_seq_length = 1024",
		Caveat:  "Truncates long examples.",
	}}
}

func optimizerFixes(c *fixContext) []Fix {
	eight := Fix{
		ID:      "8bit-optimizer",
		Title:   "Use an 8-bit AdamW",
		Why:     "8-bit states take 2 bytes per parameter instead of float32's 8.",
		Snippet: "TrainingArguments(..., optim=\"adamw_bnb_8bit\")  # or paged_adamw_8bit\n# plain PyTorch: bnb.optim.AdamW8bit(model.parameters(), lr=...)",
		Caveat:  "Needs bitsandbytes; matches 32-bit Adam closely in practice.",
	}
	if c.f.Params > 0 {
		eight.SavesBytes = bytesp(AdamState8bitSaving(c.f.Params))
		eight.Saving = fmt.Sprintf("optimizer state %s → %s", gbs(c.f.Params*8), gbs(c.f.Params*2))
	}
	return []Fix{{
		ID:      "train-lora",
		Title:   "Train LoRA adapters instead of every weight",
		Why:     "Only the adapters get gradients and optimizer state — usually well under 1% of the parameters.",
		Snippet: "from peft import LoraConfig, get_peft_model\nmodel = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, target_modules=\"all-linear\"))",
		Caveat:  "Adapters are less expressive than full fine-tuning.",
	}, eight}
}

func fragmentationFixes(c *fixContext) []Fix {
	if c.f.Ev.Kind == parser.KindXLA {
		return []Fix{{
			ID:      "xla-preallocate",
			Title:   "Let XLA preallocate its pool (or give it a fixed fraction)",
			Why:     "A pool allocated up front does not fragment as it grows.",
			Snippet: "export XLA_PYTHON_CLIENT_PREALLOCATE=true\nexport XLA_CLIENT_MEM_FRACTION=.90   # older jax: XLA_PYTHON_CLIENT_MEM_FRACTION",
			Caveat:  "Other processes cannot use the preallocated memory.",
		}}
	}
	name, note := c.env.AllocConfVar()
	fx := Fix{
		ID:      "expandable-segments",
		Title:   "Enable expandable segments",
		Why:     "Segments that grow in place leave no unusable slivers between blocks.",
		Snippet: fmt.Sprintf("export %s=expandable_segments:True   # before Python starts, not inside the script", name),
		Caveat:  "Unsupported on Windows and some ROCm builds (ignored with a warning); tensors then cannot be shared between processes via IPC.",
		Note:    note,
	}
	if c.fd.Quantities.HolderBytes > 0 {
		fx.SavesBytes = bytesp(c.fd.Quantities.HolderBytes)
		fx.Saving = "up to the " + size(c.fd.Quantities.HolderBytes) + " reserved but unallocated becomes usable"
	}
	return []Fix{fx, {
		ID:      "max-split-size",
		Title:   "Last resort: cap block splitting with max_split_size_mb",
		Why:     "Large cached blocks are no longer split for small requests, so big requests can reuse them.",
		Snippet: fmt.Sprintf("export %s=max_split_size_mb:512", name),
		Caveat:  "Can slow allocation and raise peak memory; ignored with backend:cudaMallocAsync.",
		Note:    note,
	}}
}

func otherProcessFixes(c *fixContext) []Fix {
	free := Fix{
		ID:      "free-the-gpu",
		Title:   "Stop the other processes holding the GPU",
		Why:     "Memory another process holds is invisible to this program's allocator and cannot be freed from inside it.",
		Snippet: "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv\n# stop stale jobs, zombie workers, other notebooks' kernels; kill <pid>",
		Caveat:  "Make sure the process is yours and finished before killing it.",
	}
	if c.fd.Quantities.HolderBytes > 0 {
		free.SavesBytes = bytesp(c.fd.Quantities.HolderBytes)
		free.Saving = size(c.fd.Quantities.HolderBytes) + " held outside this process's allocator"
	}
	out := []Fix{free, {
		ID:      "pick-idle-gpu",
		Title:   "Run on a GPU nobody else uses",
		Why:     "CUDA_VISIBLE_DEVICES hides busy devices from the program.",
		Snippet: "CUDA_VISIBLE_DEVICES=1 python run.py",
		Caveat:  "Needs an idle device.",
	}}
	if c.f.Ev.Kind == parser.KindServing {
		out = append([]Fix{{
			ID:      "lower-gpu-memory-utilization",
			Title:   "Lower --gpu-memory-utilization to what is actually free",
			Why:     "vLLM asks for this fraction of the whole device at startup; it must not exceed the free share.",
			Snippet: "vllm serve MODEL --gpu-memory-utilization 0.80",
			Caveat:  "A smaller KV cache: fewer concurrent sequences.",
		}}, out...)
	}
	return out
}

func leakFixes(c *fixContext) []Fix {
	if c.fd.Variant == rules.VariantEvalAccumulate {
		return []Fix{{
			ID:      "eval-accumulation-steps",
			Title:   "Move evaluation predictions to the CPU every few steps",
			Why:     "eval_accumulation_steps makes the Trainer copy accumulated predictions to the CPU and free them on the GPU every N steps.",
			Snippet: "TrainingArguments(..., eval_accumulation_steps=8, per_device_eval_batch_size=8)\n# keep only what the metric needs:\ntrainer = Trainer(..., preprocess_logits_for_metrics=lambda logits, labels: logits.argmax(dim=-1))",
			Caveat:  "Slower evaluation (device-to-host copies); CPU RAM then holds the predictions.",
		}, {
			ID:      "reduce-logits-before-keeping",
			Title:   "Keep reduced predictions, not full logits",
			Why:     "Only the argmax (or the few top scores) is needed for most metrics; storing it instead of the vocabulary-wide logits shrinks the kept tensor by the vocabulary size.",
			Snippet: "preds.append(logits.argmax(dim=-1).cpu())  # not: preds.append(logits)",
			Caveat:  "Metrics that need probabilities must keep them (on the CPU).",
		}}
	}
	return []Fix{{
		ID:      "detach-accumulators",
		Title:   "Stop keeping tensors alive across iterations",
		Why:     "A running loss summed as a tensor keeps every step's graph; outputs appended to a list keep their activations.",
		Snippet: "total_loss += loss.item()          # not: total_loss += loss\npreds.append(out.detach().cpu())   # not: preds.append(out)",
		Caveat:  "None.",
	}, {
		ID:      "record-memory-history",
		Title:   "Record a memory snapshot to see what grows",
		Why:     "The snapshot shows every live allocation with the stack that made it.",
		Snippet: snapshotRecipe,
		Caveat:  "Recording slows the run; keep max_entries bounded.",
	}}
}

const snapshotRecipe = `import torch
torch.cuda.memory._record_memory_history(max_entries=100_000)
try:
    run()  # the failing code
finally:
    torch.cuda.memory._dump_snapshot("oom_snapshot.pickle")  # open at https://pytorch.org/memory_viz`

func noGradFixes(c *fixContext) []Fix {
	return []Fix{{
		ID:      "wrap-inference-mode",
		Title:   "Run evaluation under torch.inference_mode() (or torch.no_grad())",
		Why:     "Without autograd no graph is recorded and activations are freed as soon as each layer is done.",
		Snippet: "model.eval()\nwith torch.inference_mode():\n    for batch in loader:\n        out = model(**batch)",
		Caveat:  "Tensors made under inference_mode cannot be used in autograd later.",
	}}
}

func batchFixes(c *fixContext) []Fix {
	fx := Fix{
		ID:      "halve-batch",
		Title:   "Halve the inference batch",
		Why:     "Activation memory of a forward pass is proportional to the batch.",
		Snippet: "batch_size = 8  # was 16\n# or find it automatically: accelerate.utils.find_executable_batch_size",
		Caveat:  "Lower throughput.",
	}
	return []Fix{fx}
}

func imbalanceFixes(c *fixContext) []Fix {
	return []Fix{{
		ID:      "one-device-per-process",
		Title:   "Give every process its own GPU",
		Why:     "Each worker must select its device before touching CUDA, or they all use cuda:0.",
		Snippet: "local_rank = int(os.environ[\"LOCAL_RANK\"])\ntorch.cuda.set_device(local_rank)\nmodel.to(f\"cuda:{local_rank}\")\n# or launch each worker with CUDA_VISIBLE_DEVICES=<its gpu>",
		Caveat:  "None.",
	}, {
		ID:      "ddp-not-dataparallel",
		Title:   "Use DistributedDataParallel instead of DataParallel",
		Why:     "DataParallel gathers outputs and keeps the master model on GPU 0; DDP balances memory across devices.",
		Snippet: "torchrun --nproc_per_node=4 train.py  # with DistributedDataParallel(model, device_ids=[local_rank])",
		Caveat:  "A launcher and process group to set up.",
	}, {
		ID:      "map-location-cpu",
		Title:   "Load checkpoints to CPU first",
		Why:     "torch.load puts tensors back on the device they were saved from — cuda:0 in every process.",
		Snippet: "state = torch.load(path, map_location=\"cpu\")\nmodel.load_state_dict(state)",
		Caveat:  "None.",
	}}
}

func workspaceFixes(c *fixContext) []Fix {
	return []Fix{{
		ID:      "leave-headroom",
		Title:   "Leave headroom for library workspaces",
		Why:     "cuBLAS, cuDNN and NCCL allocate outside PyTorch's tensors; they need a few hundred MiB free when first used.",
		Snippet: "# smaller batch or model, or cap PyTorch's share so libraries keep room:\ntorch.cuda.set_per_process_memory_fraction(0.9)\n# run one tiny forward/backward (and create the process group) before the large allocations",
		Caveat:  "Less memory for tensors.",
	}, {
		ID:      "check-free-memory",
		Title:   "Check free memory right before the failing call",
		Why:     "These library errors are memory only when the device is nearly full.",
		Snippet: "free, total = torch.cuda.mem_get_info(); print(f\"free {free/2**30:.2f} GiB of {total/2**30:.2f} GiB\")",
		Caveat:  "None.",
	}}
}

func servingFixes(c *fixContext) []Fix {
	ev := c.f.Ev
	q := c.fd.Quantities
	if ev.Variant == "vllm-startup" {
		return []Fix{{
			ID:      "lower-gpu-memory-utilization",
			Title:   "Lower --gpu-memory-utilization to what is actually free",
			Why:     "vLLM asks for this fraction of the whole device at startup; another process holds part of it.",
			Snippet: "vllm serve MODEL --gpu-memory-utilization 0.80",
			Caveat:  "A smaller KV cache: fewer concurrent sequences.",
		}}
	}
	lenFix := Fix{
		ID:      "lower-max-model-len",
		Title:   "Set --max-model-len to what you need",
		Why:     "vLLM defaults max_model_len to the model's full context and needs the KV cache for one such request.",
		Snippet: "vllm serve MODEL --max-model-len 32768\n# Python: LLM(model, max_model_len=32768)",
		Caveat:  "Longer prompts are rejected.",
	}
	if q.EstimatedLen > 0 {
		lenFix.Snippet = fmt.Sprintf("vllm serve MODEL --max-model-len %d   # the largest that fits, per vLLM's own estimate\n# Python: LLM(model, max_model_len=%d)", q.EstimatedLen, q.EstimatedLen)
		if q.MaxModelLen > 0 {
			lenFix.Saving = fmt.Sprintf("max_model_len %s → %s", commas(q.MaxModelLen), commas(q.EstimatedLen))
		}
	}
	if q.ShortfallBytes > 0 {
		lenFix.SavesBytes = bytesp(q.ShortfallBytes)
	}
	util := Fix{
		ID:      "raise-gpu-memory-utilization",
		Title:   "Give vLLM a larger share of the device: --gpu-memory-utilization 0.95",
		Why:     "The KV cache gets what is left of this fraction after weights and activations.",
		Snippet: "vllm serve MODEL --gpu-memory-utilization 0.95",
		Caveat:  "Only if nothing else uses the GPU; too high fails at startup or during CUDA-graph capture.",
	}
	fp8 := Fix{
		ID:      "fp8-kv-cache",
		Title:   "Store the KV cache in fp8",
		Why:     "fp8 halves the cache per token, doubling the context that fits.",
		Snippet: "vllm serve MODEL --kv-cache-dtype fp8",
		Caveat:  "Small accuracy cost; needs a GPU and attention backend that support it.",
	}
	if c.f.Requested > 0 {
		fp8.SavesBytes = bytesp(c.f.Requested / 2)
		fp8.Saving = "KV needed " + size(c.f.Requested) + " → " + size(c.f.Requested/2)
	}
	if ev.Kind != parser.KindServing {
		// A CUDA OOM inside the engine: it needs less of the device, not more.
		util = Fix{}
	}
	return []Fix{lenFix, fp8, util, {
		ID:      "lower-max-num-seqs",
		Title:   "Lower --max-num-seqs",
		Why:     "Fewer concurrent sequences lower the activation peak vLLM profiles for, leaving more for the cache.",
		Snippet: "vllm serve MODEL --max-num-seqs 64",
		Caveat:  "Lower throughput under load.",
	}}
}

func vaeFixes(c *fixContext) []Fix {
	return []Fix{{
		ID:      "vae-tiling",
		Title:   "Decode in tiles",
		Why:     "Tiled decoding processes the latent in overlapping tiles, so the peak no longer grows with the full image size.",
		Snippet: "pipe.enable_vae_tiling()     # diffusers\n# stable-diffusion.cpp: --vae-tiling   ComfyUI: \"VAE Decode (Tiled)\"",
		Caveat:  "Slower decode; rare seams at tile borders.",
	}, {
		ID:      "vae-slicing",
		Title:   "Decode one image of the batch at a time",
		Why:     "Slicing decodes images sequentially instead of the whole batch at once.",
		Snippet: "pipe.enable_vae_slicing()",
		Caveat:  "Slower for large batches.",
	}}
}

func hostFixes(c *fixContext) []Fix {
	if strings.Contains(c.f.Ev.Signal, "Bus error") {
		return []Fix{{
			ID:      "raise-shm",
			Title:   "Give the container more shared memory, or use fewer DataLoader workers",
			Why:     "Workers pass batches through /dev/shm; Docker's default is 64 MB.",
			Snippet: "docker run --shm-size=16g ...   # or --ipc=host\nDataLoader(ds, num_workers=2)",
			Caveat:  "Fewer workers can slow data loading.",
		}}
	}
	return []Fix{{
		ID:      "reduce-host-memory",
		Title:   "Lower host-RAM peaks: fewer workers, memory-mapped loading, no full CPU copies",
		Why:     "Each DataLoader worker holds its own copy of the dataset object; loading a checkpoint fully into RAM doubles the model's size at load time.",
		Snippet: "DataLoader(ds, num_workers=2)\nstate = torch.load(path, map_location=\"cpu\", mmap=True)\nmodel = AutoModel.from_pretrained(model_id, low_cpu_mem_usage=True)",
		Caveat:  "Fewer workers can slow data loading.",
	}, {
		ID:      "more-host-memory",
		Title:   "Raise the memory limit (job, container) or add swap",
		Why:     "The kernel or the batch system killed the process at its memory limit.",
		Snippet: "#SBATCH --mem=64G     # SLURM\ndocker run --memory=64g ...",
		Caveat:  "Swap is slow.",
	}}
}

func mpsFixes(c *fixContext) []Fix {
	return []Fix{{
		ID:      "shrink-mps-workload",
		Title:   "Shrink the workload: a smaller model, lower resolution or batch",
		Why:     "GPU and CPU share the Mac's RAM; the cap protects the whole system.",
		Snippet: "# e.g. a smaller or quantised model, batch_size=1, lower image resolution",
		Caveat:  "Lower quality or throughput.",
	}, {
		ID:      "mps-high-watermark",
		Title:   "Raise the MPS cap with PYTORCH_MPS_HIGH_WATERMARK_RATIO",
		Why:     "The ratio scales the cap on MPS allocations; 0.0 removes it.",
		Snippet: "export PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0   # no cap",
		Caveat:  "Without a cap the system can swap heavily or freeze; save your work first.",
	}}
}

func checkpointFixes(c *fixContext) []Fix {
	return []Fix{{
		ID:      "map-location-cpu",
		Title:   "Load checkpoints to CPU first",
		Why:     "torch.load puts tensors back on the device they were saved from; loading to CPU and copying only the model's weights avoids the optimizer state on the GPU.",
		Snippet: "state = torch.load(path, map_location=\"cpu\", weights_only=True)\nmodel.load_state_dict(state[\"model\"] if \"model\" in state else state)",
		Caveat:  "None.",
	}}
}

func allocationLimitFixes(c *fixContext) []Fix {
	return []Fix{{
		ID:      "split-large-tensor",
		Title:   "Keep single tensors under the backend's buffer limit",
		Why:     "The limit applies per buffer: processing in chunks (smaller tiles, prefill chunks, smaller batches) keeps each allocation below it.",
		Snippet: "# chunk the operation, e.g. torch.split(x, n) and process piece by piece;\n# MLX: a smaller prefill_step_size; Intel Arc: keep tensors < 4 GiB",
		Caveat:  "Some chunking is slower.",
	}}
}

// gbs renders bytes in decimal gigabytes for weight sizes.
func gbs(n int64) string { return fmt.Sprintf("%.1f GB", float64(n)/1e9) }

func size(n int64) string { return parser.FormatSize(n) }

func commas(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
