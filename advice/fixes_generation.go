package advice

import (
	"fmt"
	"strings"

	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/rules"
)

func kvFixes(c *fixContext) []Fix {
	if c.f.Ev.Framework == "vllm" || c.f.Ev.Kind == parser.KindServing {
		return servingFixes(c)
	}
	if c.f.Ev.Framework == "ggml" {
		smaller := Fix{
			ID:      "smaller-context",
			Title:   "Lower the context size",
			Why:     "llama.cpp sizes the KV cache and its compute buffers for the whole context (-c / num_ctx) when the model is loaded.",
			Snippet: "llama-server -m model.gguf -c 8192      # ollama: PARAMETER num_ctx 8192",
			Caveat:  "Longer prompts no longer fit.",
		}
		if q := c.fd.Quantities; q.SeqLen > 8192 && q.KVBytesPerTok > 0 {
			// the cache's shape is the log's (kv-cache's arithmetic)
			smaller.SavesBytes = bytesp((q.SeqLen - 8192) * q.KVBytesPerTok)
			smaller.Saving = fmt.Sprintf("n_ctx %s → 8,192: the KV cache %s → %s", commas(q.SeqLen), size(q.SeqLen*q.KVBytesPerTok), size(8192*q.KVBytesPerTok))
		}
		return []Fix{smaller, {
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
			saved := ScaledSaving(c.f.Requested, q.Tokens, newTokens)
			fx.SavesBytes = bytesp(saved)
			fx.Saving = fmt.Sprintf("visual tokens %s → ≈%s; the float32 softmax %s → ≈%s", commas(q.Tokens), commas(newTokens), size(c.f.Requested), size(c.f.Requested-saved))
			if q.DefaultTokens > q.Tokens {
				fx.Saving += fmt.Sprintf(" (the default cap allows up to %s tokens)", commas(q.DefaultTokens))
			}
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
		Snippet: fmt.Sprintf("%s\nmodel = %s\n# and do not pass output_attentions=True: it forces the eager path", c.loader().importLine(), c.loader().call(c.modelID(), `attn_implementation="sdpa"`)),
		Caveat:  "flash_attention_2 needs the flash-attn package (NVIDIA Ampere or newer, or its ROCm build); sdpa runs everywhere; output_attentions is unavailable with fused kernels.",
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
	if c.f.Model == nil && c.f.OwnAttention() {
		// the scores are the program's own matmul, not a library's layer
		// (and the log names no model that a loader would load):
		// the fused kernel is a call to make, not a loading option
		sdpa.Title = "Use a fused attention kernel: torch's scaled_dot_product_attention"
		sdpa.Snippet = "import torch.nn.functional as F\nout = F.scaled_dot_product_attention(q, k, v, is_causal=causal)  # instead of softmax(q @ k.transpose(-2, -1) * scale) @ v"
		sdpa.Caveat = "Needs torch 2.0 or later; an explicit attention mask goes in attn_mask=."
	}
	if c.f.DiffusionPipeline() {
		// A diffusion UNet's cross-attention: the UIs' and diffusers' own
		// switches, not transformers' attn_implementation.
		sdpa.ID, sdpa.Title = "memory-efficient-attention", "Use memory-efficient attention (SDPA, xformers, or sliced)"
		sdpa.Snippet = "# AUTOMATIC1111: --opt-sdp-attention (or --xformers)\n# ComfyUI: --use-pytorch-cross-attention (or --use-split-cross-attention)\n# diffusers: pipe.enable_xformers_memory_efficient_attention() or pipe.enable_attention_slicing()"
		sdpa.Caveat = "xformers needs its package built for your torch; sliced attention is slower."
		shorter.ID, shorter.Title = "lower-image-resolution", "Generate at a lower resolution (or a smaller batch)"
		shorter.Why = "The UNet's attention scores grow with the square of the latent's pixel count and linearly with the batch."
		shorter.Snippet = "# e.g. 768×768 instead of 1024×1024, batch size 1; upscale afterwards"
		shorter.Caveat = "A smaller image per pass."
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
	switch c.f.Ev.Framework {
	case "mlx":
		keep.Snippet = "# mlx-lm / mlx-vlm: prefill in chunks (prefill_step_size) and take logits[:, -1, :] before the vocabulary projection"
		keep.Note = "" // the transformers spelling does not apply
	case "ggml", "ollama":
		// llama.cpp's compute buffer grows with the micro-batch; where every
		// position's logits are asked for it holds n_ubatch × vocabulary
		// float32 scores.
		keep.ID, keep.Title = "smaller-ubatch", "Use a smaller micro-batch (-ub)"
		keep.Why = "llama.cpp's compute buffer grows with the micro-batch (n_ubatch); where every position's logits are requested it holds n_ubatch × vocabulary float32 scores."
		keep.Snippet = "llama-server -m model.gguf -ub 256   # --ubatch-size"
		keep.Caveat = "A smaller micro-batch processes the prompt more slowly."
		keep.Note = ""
	}
	chunked := Fix{
		ID:      "chunked-loss",
		Title:   "Use a chunked / fused cross-entropy, or shorter sequences",
		Why:     "A fused linear + cross-entropy (e.g. Liger's) never builds the full float32 logits; shorter max_seq_length shrinks them proportionally.",
		Snippet: "from liger_kernel.transformers import apply_liger_kernel_to_llama  # or the model's family\napply_liger_kernel_to_llama(fused_linear_cross_entropy=True)\n# or: max_seq_length = 1024",
		Caveat:  "An extra dependency; shorter sequences drop context.",
	}
	if c.fd.Quantities.Training || c.f.Training >= 0.8 {
		// a training loss needs every position's logits: slicing them is no
		// fix there (its own trade-off says so)
		return []Fix{chunked}
	}
	return []Fix{keep, chunked}
}
