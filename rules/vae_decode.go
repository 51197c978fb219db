package rules

import (
	"regexp"
	"strings"
	"sync"

	"github.com/oomdoc/oomdoc/parser"
)

// vaeDecode: a diffusion VAE decoding a large latent at high resolution.
func vaeDecode() Culprit {
	return Culprit{
		ID:             "vae-decode",
		Title:          "A diffusion VAE decoding a large latent at high resolution",
		Doc:            "Decoding latents to pixels runs convolutions and attention at full image resolution; its peak grows with width × height (and frames, for video, and images per batch) and is often the largest spike of a generation. Tiled or sliced decoding processes the image in pieces.",
		Recognise:      "Frames in vae.decode / AutoencoderKL / decode_first_stage / upsampling blocks; \"vae: failed to allocate the compute buffer\"; the failure comes after sampling finished.",
		Excludes:       []string{parser.KindHostKill, parser.KindCPU, parser.KindServing},
		ExcludesPhases: []string{parser.PhaseLoad, parser.PhaseBackward, parser.PhaseOptimizer},
		Signals: []Signal{
			{Name: vaeFrames, Strength: EvidenceSignal, Start: 2.5, Doc: "frames or lines in the VAE's decode"},
			{Name: vaePhase, Strength: EvidenceSignal, Start: 1.0, Doc: "the parser places the failure in the decode phase"},
			{Name: vaeAfter, Strength: EvidenceSignal, Start: 1.0, Doc: "in a diffusion pipeline, the failure comes right after the sampling bar completed"},
		},
		GuessNeeds:  diffusionInvolved,
		WouldDecide: "the output resolution and batch of the decode",
		Capture:     "the image size and batch passed to the pipeline",
		Assess:      checkVAEDecode,
	}
}

// Signals of vae-decode.
const (
	vaeFrames = "vae-decode/vae-frames"
	vaePhase  = "vae-decode/decode-phase"
	vaeAfter  = "vae-decode/after-sampling"
)

func checkVAEDecode(f *Facts) *Finding {
	ev := f.Ev
	e, ok := f.Find(parser.CueDecode())
	if !ok {
		e, ok = f.Notice("vae")
	}
	after, afterOK := f.afterSampling()
	if !ok && ev.Phase != parser.PhaseDecode && !afterOK {
		return nil
	}
	fd := &Finding{Culprit: "vae-decode", Event: ev.ID, Quantities: Quantities{RequestedBytes: f.Requested, Inference: true}}
	switch {
	case ok:
		fd.fire(vaeFrames)
	case ev.Phase == parser.PhaseDecode:
		fd.fire(vaePhase)
		e = f.EventLine()
	default:
		fd.fire(vaeAfter)
		e = after
	}
	fd.Evidence = append(fd.Evidence, e, f.EventLine())
	fd.Title = "The VAE decode of a high-resolution image does not fit"
	fd.Explanation = "Decoding latents to pixels runs convolutions and attention at full image resolution; its peak grows with width × height (and frames, for video) and is often the largest spike of a generation. Tiled or sliced decoding processes the image in pieces."
	return fd
}

// reBarDone matches a completed progress bar: "100%|████| 50/50 [01:05<…".
var reBarDone = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`100%\|[^|]*\|\s*(\d+)/(\d+)\b`) })

// afterSampling finds, among the last lines before the failure, a
// completed progress bar, in a log that runs a diffusion pipeline: the
// denoising loop finished and the failure is in what comes next, the
// decode of the latents.
func (f *Facts) afterSampling() (Evidence, bool) {
	if !f.diffusionPipeline() {
		return Evidence{}, false
	}
	lines := f.Ev.ContextLines
	seen := 0
	for k := len(lines) - 1; k >= 0 && seen < 3; k-- {
		if lines[k].Line >= f.Ev.Line {
			continue // the failure's own line
		}
		seen++
		text := lines[k].Text
		if i := strings.LastIndex(text, "\r"); i >= 0 {
			text = text[i+1:]
		}
		m := reBarDone().FindStringSubmatch(text)
		if m == nil || m[1] != m[2] || strings.Contains(strings.ToLower(text), "load") {
			continue // not a finished bar, or the bar of loading the pipeline
		}
		return Evidence{Input: f.Input, Line: lines[k].Line, Text: clip(strings.TrimSpace(text), 240)}, true
	}
	return Evidence{}, false
}

// diffusionInvolved reports whether the log shows a diffusion pipeline or
// a VAE near the failure, or is ComfyUI's.
func diffusionInvolved(f *Facts) bool {
	if f.diffusionPipeline() {
		return true
	}
	if _, ok := f.Notice("vae"); ok {
		return true
	}
	_, ok := f.Find(parser.CueDecode())
	return ok
}

// languageModelPossible reports whether the failing program could run a
// language model's generation or loss: not a diffusion pipeline (ComfyUI,
// A1111, diffusers), which keeps no KV cache and computes no vocabulary
// logits — there a guess of either would be noise — unless the log names
// a language model there (a ComfyUI chat or captioning node).
func languageModelPossible(f *Facts) bool {
	if !f.diffusionPipeline() {
		return true
	}
	_, ok := f.Find(words("llm", "LLM", "chat", "chatbot", "qwen", "Qwen", "llama", "Llama", "llama_cpp", "generate(", "generation/utils.py", "tokenizer", "CausalLM", "vlm", "VLM", "florence", "Florence", "joycaption", "JoyCaption", "text_generation"))
	return ok
}

// DiffusionPipeline reports whether the log runs a diffusion pipeline
// (diffusers, A1111, ComfyUI, stable-diffusion.cpp): fixes are then spelt
// in its terms, not in transformers'.
func (f *Facts) DiffusionPipeline() bool { return f.diffusionPipeline() }

// diffusionPipeline reports whether the log runs a diffusion pipeline: its
// words near the failure, or ComfyUI's prompt lines.
func (f *Facts) diffusionPipeline() bool {
	if _, ok := f.Find(diffusionCue()); ok {
		return true
	}
	_, ok := f.Notice("comfyui")
	return ok
}

// diffusionCue holds the words of a diffusion pipeline. A bare
// "scheduler" is not one: training loops name their learning-rate
// scheduler so (scheduler.step()), and vLLM has a scheduler of its own.
func diffusionCue() cue {
	return words("diffusers", "DiffusionPipeline", "Loading pipeline components", "UNet2DConditionModel", "unet", "KSampler", "StableDiffusion", "stable_diffusion", "stable-diffusion", "sdxl", "denois", "comfy", "ComfyUI", "sd_samplers", "k_diffusion", "txt2img", "img2img")
}
