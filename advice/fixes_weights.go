package advice

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
)

func weightsFixes(c *fixContext) []Fix {
	switch c.f.Ev.Framework {
	case "ggml":
		return ggmlWeightsFixes(c)
	case "vllm":
		return vllmWeightsFixes(c)
	case "ctranslate2":
		return ctranslate2WeightsFixes(c)
	}
	if _, ok := c.f.Find(parser.CueVLLM()); ok {
		// A PyTorch OOM inside vLLM's loader: vLLM's knobs, not transformers'.
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
	ld := c.loader()
	load := func(args ...string) string { return ld.call(c.modelID(), args...) }
	four := Fix{
		ID:    "load-in-4bit",
		Title: "Load the weights in 4-bit (NF4) with bitsandbytes",
		Why:   "NF4 stores each linear-layer weight in 4 bits plus a small scale per block (≈4.5 bits, ≈4.13 with double quantisation); embeddings and lm_head stay 16-bit. The model computes in bf16 as before.",
		Snippet: fmt.Sprintf(`import torch
%s
bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
                         bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=torch.bfloat16)
model = %s`, ld.importLine("BitsAndBytesConfig"), ld.callWrapped(c.modelID(), "quantization_config=bnb", arg+"=torch.bfloat16", `device_map="auto"`)),
		Caveat: "Slightly lower accuracy than 16-bit; needs the bitsandbytes package and a CUDA GPU. Pass quantization_config — the bare load_in_4bit=True argument is deprecated and removed in transformers v5.",
		Note:   note,
	}
	if w16 > 0 && w4 > 0 {
		four.SavesBytes = bytesp(w16 - w4)
		four.Saving = fmt.Sprintf("weights %s → ≈%s", size(w16), size(w4))
		four.after = w4
	}
	eight := Fix{
		ID:      "load-in-8bit",
		Title:   "Load the weights in 8-bit (LLM.int8) with bitsandbytes",
		Why:     "LLM.int8 stores linear-layer weights in 1 byte per parameter, half of 16-bit, with less accuracy loss than 4-bit.",
		Snippet: fmt.Sprintf("%s\nbnb = BitsAndBytesConfig(load_in_8bit=True)\nmodel = %s", ld.importLine("BitsAndBytesConfig"), load("quantization_config=bnb", `device_map="auto"`)),
		Caveat:  "Slower matmuls than 16-bit; halves the weights only, which may still not fit.",
	}
	if w16 > 0 && w8 > 0 {
		eight.SavesBytes = bytesp(w16 - w8)
		eight.Saving = fmt.Sprintf("weights %s → ≈%s", size(w16), size(w8))
		eight.after = w8
	}
	offload := Fix{
		ID:      "cpu-offload",
		Title:   "Let accelerate place what does not fit in CPU RAM",
		Why:     "device_map=\"auto\" with max_memory fills the GPU up to the limit you give and keeps the remaining layers in CPU RAM, moving them in as they run.",
		Snippet: fmt.Sprintf("import torch\n%s\nmodel = %s", ld.importLine(), load(arg+"=torch.float16", `device_map="auto"`, fmt.Sprintf("max_memory={0: %q, \"cpu\": \"64GiB\"}", gibLimit(c.f.Capacity)))),
		Caveat:  "Much slower: offloaded layers cross PCIe on every forward pass.",
		Note:    note,
	}
	out := []Fix{four, eight}
	if sib := c.smallerSibling(); sib != "" {
		out = append(out, Fix{
			ID:      "smaller-model",
			Title:   "Use a smaller model of the same family",
			Saving:  sib + " fits this device in 4-bit",
			Why:     "Weight memory is proportional to the parameter count.",
			Snippet: fmt.Sprintf("model_id = %q", sib),
			Caveat:  "Lower quality than the larger model.",
		})
	}
	return append(out, offload)
}

// reGGUFType reads the quantisation a llama.cpp log names: "model ftype
// = Q4_K - Medium", "file type = Q4_K - Medium", or a file name
// "…-Q4_K_M.gguf".
var reGGUFType = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:\bftype|file type)\s*=\s*((?:I?Q\d|F16|BF16|F32)\S*)|[-._]((?:I?Q\d)_[A-Z0-9_]+)\.gguf\b`)
})

// ggufType returns the quantisation the event's context lines name, and
// the line that names it.
func ggufType(ev *parser.Event, settings []parser.Setting) (string, int) {
	for _, c := range ev.ContextLines {
		if m := reGGUFType().FindStringSubmatch(c.Text); m != nil {
			return strings.ToUpper(m[1] + m[2]), c.Line
		}
	}
	// llama.cpp prints the type with the model's metadata, often further
	// above the failure than its context lines reach
	for _, s := range settings {
		if s.Name == "ftype" {
			if m := reGGUFType().FindStringSubmatch("ftype = " + s.Value); m != nil {
				return strings.ToUpper(m[1] + m[2]), s.Line
			}
		}
	}
	return "", 0
}

// ggufBits is how many bits per weight a GGUF type's name gives ("Q4_K"
// 4, "IQ2_XXS" 2), 0 for a type above 4 bits or not named.
func ggufBits(t string) int {
	t = strings.TrimPrefix(t, "I")
	if len(t) >= 2 && t[0] == 'Q' && t[1] >= '1' && t[1] <= '4' {
		return int(t[1] - '0')
	}
	return 0
}

// ggmlWeightsFixes are the weight fixes for llama.cpp and ollama. A model
// the log shows already at 4 bits or fewer is offered the next smaller
// quantisation, not the 4-bit one it has; at 2 bits, a smaller model.
func ggmlWeightsFixes(c *fixContext) []Fix {
	quant := Fix{
		ID:      "smaller-quantisation",
		Title:   "Use a smaller quantisation of the model (e.g. Q4_K_M instead of Q8_0)",
		Why:     "Weight memory is bits per weight × parameters: Q4_K_M (≈4.8 bits) takes a bit over half of Q8_0 (8.5 bits).",
		Snippet: "# download the Q4_K_M (or IQ4_XS) GGUF of the same model; ollama: pull the :q4_K_M tag",
		Caveat:  "Some loss of quality at lower bit widths.",
	}
	switch t, line := ggufType(c.f.Ev, c.f.Res.Context.Settings); ggufBits(t) {
	case 4:
		quant.Title = "Use a smaller quantisation than the " + t + " loaded (e.g. Q3_K_M or IQ3_XS)"
		quant.Why = fmt.Sprintf("The log loads %s already (line %d); 3-bit types take about a fifth less, 2-bit ones about two fifths less.", t, line)
		quant.Snippet = "# download the Q3_K_M (or IQ3_XS) GGUF of the same model, or a smaller model"
		quant.Caveat = "Quality drops noticeably below 4 bits."
	case 3:
		quant.Title = "Use a 2-bit quantisation instead of the " + t + " loaded (e.g. IQ2_M), or a smaller model"
		quant.Why = fmt.Sprintf("The log loads %s already (line %d); a 2-bit type takes about a third less.", t, line)
		quant.Snippet = "# download the IQ2_M (or Q2_K) GGUF of the same model, or a smaller model"
		quant.Caveat = "Quality drops sharply at 2 bits."
	case 1, 2:
		quant.ID, quant.Title = "smaller-model", "Use a smaller model: at "+t+" quantisation has little left to save"
		quant.Why = fmt.Sprintf("The log loads %s already (line %d); below 2 bits per weight there is little memory left to save, and fewer parameters are what is left.", t, line)
		quant.Snippet = "# download a GGUF of a smaller model of the family (e.g. 8B instead of 70B)"
		quant.Caveat = "A smaller model is less capable."
	}
	return []Fix{{
		ID:      "fewer-gpu-layers",
		Title:   "Offload fewer layers to the GPU",
		Why:     "llama.cpp keeps the layers it does not offload in CPU RAM; each layer left out frees its share of the weights on the GPU.",
		Snippet: "llama-server -m model.gguf -ngl 20        # instead of -ngl 99 (all layers)\n# ollama: PARAMETER num_gpu 20 in the Modelfile, or \"options\": {\"num_gpu\": 20}",
		Caveat:  "Slower generation: the CPU runs the layers left out.",
	}, quant, {
		ID:      "split-across-gpus",
		Title:   "Split the model across several GPUs",
		Why:     "Each GPU then holds only its share of the layers.",
		Snippet: "llama-server -m model.gguf -ngl 99 --tensor-split 1,1",
		Caveat:  "Needs more GPUs; some cross-GPU traffic.",
	}}
}

// ctranslate2WeightsFixes are the weight fixes for CTranslate2 models
// (faster-whisper, whisperX, CTranslate2 translators and generators),
// whose dtype is the compute_type they are loaded with. A log that shows
// an int8 compute type already gets only the smaller model.
func ctranslate2WeightsFixes(c *fixContext) []Fix {
	smaller := Fix{
		ID:      "ctranslate2-smaller-model",
		Title:   "Use a smaller model",
		Why:     "Weight memory grows with the parameter count: one size down (Whisper large-v3 → medium, NLLB 3.3B → 1.3B) about halves it.",
		Snippet: "# convert or download the next smaller size of the same model, e.g. WhisperModel(\"medium\", ...)",
		Caveat:  "Lower accuracy than the larger model.",
	}
	if _, int8 := c.f.Find(parser.Cue{Words: []string{"int8_float16", "int8_bfloat16", "int8_float32", `compute_type="int8`, "compute_type='int8", "compute_type int8", "compute_type=int8"}}); int8 {
		return []Fix{smaller}
	}
	return []Fix{{
		ID:      "ctranslate2-int8",
		Title:   "Load the model with compute_type=\"int8_float16\" (or \"int8\")",
		Why:     "CTranslate2 converts the weights to the compute type as it loads them: int8 weights take half the memory of float16 and a quarter of float32.",
		Snippet: "ctranslate2.Translator(model_dir, device=\"cuda\", compute_type=\"int8_float16\")   # Generator, models.Whisper alike\n# faster-whisper: WhisperModel(size, device=\"cuda\", compute_type=\"int8_float16\")",
		Caveat:  "A small loss of accuracy; int8 needs a GPU with int8 kernels (compute capability 6.1 or later).",
	}, smaller}
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
// the device in 4-bit (smallerModel: Mistral-7B v0.1 is not smaller than
// v0.3).
func (c *fixContext) smallerSibling() string {
	if c.f.Model == nil || c.f.Capacity == 0 {
		return ""
	}
	best := ""
	for _, s := range c.cat.Siblings(*c.f.Model) {
		if smallerModel(s, *c.f.Model) && Fits(WeightBytes(s.Params, nonLinearParams(s), FormatNF4), c.f.Capacity) {
			best = s.ID
		}
	}
	return best
}

// smallerModel reports whether s is a smaller model than m: a quarter
// smaller at least, so that two releases of one size are not.
func smallerModel(s, m models.Model) bool { return s.Params <= m.Params*3/4 }

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
	ld := c.loader()
	fx := Fix{
		ID:      "load-in-bf16",
		Title:   "Load the weights in bfloat16 (or the checkpoint's own dtype)",
		Why:     "float32 doubles every weight. The checkpoint is almost always 16-bit; asking for it halves the weights with no loss.",
		Snippet: fmt.Sprintf("import torch\n%s\nmodel = %s  # or \"auto\"\n# vLLM: --dtype auto (or bfloat16), never --dtype float", ld.importLine(), ld.call(c.modelID(), arg+"=torch.bfloat16")),
		Caveat:  "GPUs before Ampere (V100, T4, RTX 20xx) lack bf16: use torch.float16 there.",
		Note:    note,
	}
	if saves > 0 {
		fx.SavesBytes = bytesp(saves)
		fx.Saving = fmt.Sprintf("weights %s → %s", size(c.f.Params*4), size(c.f.Params*2))
		fx.after = c.f.Params * 2
	}
	return []Fix{fx}
}

func checkpointFixes(c *fixContext) []Fix { return []Fix{mapLocationCPU()} }

// mapLocationCPU loads a checkpoint to the CPU first: torch.load otherwise
// restores every tensor to the device it was saved from.
func mapLocationCPU() Fix {
	return Fix{
		ID:      "map-location-cpu",
		Title:   "Load checkpoints to CPU first",
		Why:     "torch.load puts tensors back on the device they were saved from (cuda:0 in every process); loading to the CPU and copying only the model's weights also keeps the optimizer state off the GPU.",
		Snippet: "state = torch.load(path, map_location=\"cpu\", weights_only=True)\nmodel.load_state_dict(state[\"model\"] if \"model\" in state else state)",
		Caveat:  "None.",
	}
}
