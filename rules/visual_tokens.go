package rules

import (
	"fmt"

	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
)

// visualTokens: too many image or video tokens, or the vision encoder's
// temporaries at high resolution. Its strongest form is arithmetic: the
// request factors exactly as tokens × a visual vocabulary × 4 bytes (a
// visual tokenizer's float32 softmax).
func visualTokens() Culprit {
	return Culprit{
		ID:             "visual-tokens",
		Title:          "Too many image/video tokens, or high-resolution vision-encoder temporaries",
		Doc:            "A vision-language model turns every image into visual tokens whose number grows with the image's pixel count (and a video's frame count). The vision encoder's temporaries grow with them — for full-attention towers with their square — and a visual tokenizer's float32 softmax over its visual vocabulary costs tokens × vocabulary × 4 bytes. Capping the processor's resolution (max_pixels, image size) bounds all of it.",
		Recognise:      "Frames in a vision tower, visual tokenizer or merge_multimodal; a softmax over a visual vocabulary; an image being processed just before the failure; a request ≈ visual tokens × width × bytes.",
		Excludes:       []string{parser.KindHostKill, parser.KindCPU, parser.KindServing},
		ExcludesPhases: []string{parser.PhaseOptimizer},
		Signals: []Signal{
			{Name: visSoftmax, Strength: EvidenceSignal, Start: 3.0, Doc: "a softmax in the image path whose request factors exactly as tokens × a visual vocabulary × 4 B"},
			{Name: visFrames, Strength: EvidenceSignal, Start: 1.5, Doc: "frames or nearby lines in the vision encoder or image processing"},
			{Name: visEngineImage, Strength: EvidenceSignal, Start: 0.5, Doc: "a native engine (ggml, a CUDA runtime) encoding an image when it failed"},
		},
		GuessNeeds:  imagesInvolved,
		WouldDecide: "the input image's resolution and the processor's max_pixels / image size setting",
		Capture:     "print pixel_values.shape (or the image's width × height) before the failing call",
		Assess:      checkVisualTokens,
	}
}

// Signals of visual-tokens.
const (
	visSoftmax     = "visual-tokens/visual-softmax-arithmetic"
	visFrames      = "visual-tokens/vision-frames"
	visEngineImage = "visual-tokens/engine-encoding-image"
)

// visionCue holds the words that point at the image path of a vision-language model.
func visionCue() cue {
	return words("visual_tokenizer", "vision_tower", "vision_model", "visual.", "get_image_features", "encode_images", "image_features", "pixel_values", "merge_multimodal", "multi_modal_projector", "mm_projector", "patch_embed", "siglip", "navit", "mmproj", "clip_image", "encode_image", "vit.", "VisionTransformer", "visual_embed", "vision_encoder", "pixel_values_videos", "_grid_thw", "get_video_features", "prepare_inputs_labels_for_multimodal", "clip_vision")
}

// appImageCue holds the words an application prints around any image job
// ("processing image...", process_image, a server's image slices). They
// point at a vision-language model's image path only where a language
// model runs: a segmentation network's evaluation loop prints them too.
func appImageCue() cue {
	return words("process_image", "processing image", "image slice")
}

// languageModelCue holds the words of a language model at work outside
// generation: llama.cpp's loggers and server prefixes (on any backend,
// Metal included), its multimodal library, and the language-model half of
// a vision-language model's frames.
func languageModelCue() cue {
	return words("llama_", "ggml_", "mtmd", "srv  ", "slot ", "language_model", "ForConditionalGeneration", "ForCausalLM", "llava")
}

// languageModelRuns reports whether the log shows a language model at
// work: an LLM engine (llama.cpp's ggml, Ollama, a serving engine), its
// words (languageModelCue), generation, or a vision-language model named
// by the catalogue.
func (f *Facts) languageModelRuns(haveVis bool) bool {
	switch {
	case haveVis, f.Ev.Framework == "ggml", f.Ev.Framework == "ollama", f.Ev.Kind == parser.KindServing, f.Ev.Phase == parser.PhaseGenerate:
		return true
	}
	for _, c := range []cue{parser.CueServing(), parser.CueGenerate(), languageModelCue()} {
		if _, ok := f.Find(c); ok {
			return true
		}
	}
	return false
}

// imagesInvolved reports whether the log shows images or video near the
// failure, or the --model hint names a vision-language model.
func imagesInvolved(f *Facts) bool {
	if f.Model != nil {
		if _, ok := models.VisionOf(*f.Model); ok {
			return true
		}
	}
	if _, ok := f.Notice("image-input"); ok {
		return true
	}
	_, ok := f.Find(imageWorkCue())
	return ok
}

// imageWorkCue holds the words of a job that handles images or video: the
// vision path's own words and the general ones around it.
func imageWorkCue() cue {
	return words(append(append(visionCue().Words, appImageCue().Words...), "image", "images", "img", "imgs", "video", "videos", "vision", "visual", "pixel", "pixels", "multimodal", "VL", "vl")...)
}

func checkVisualTokens(f *Facts) *Finding {
	ev := f.Ev
	fd := &Finding{Culprit: "visual-tokens", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested, Inference: f.Inference > 0}}
	var vis models.Vision
	haveVis := false
	if f.Model != nil {
		vis, haveVis = models.VisionOf(*f.Model)
		fd.Model = f.Model.ID
	}
	e, visual := f.Find(visionCue())
	if !visual && f.languageModelRuns(haveVis) {
		if e, visual = f.Notice("image-input"); !visual {
			e, visual = f.Find(appImageCue())
		}
	}
	// The float32 softmax of a visual tokenizer: tokens × width × 4 B.
	if sm, ok := f.Find(words("softmax")); ok && (visual || haveVis && vis.SoftmaxWidth > 0) && f.Requested > 0 {
		widths := models.VisualSoftmaxWidths()
		if haveVis && vis.SoftmaxWidth > 0 {
			widths = []int64{vis.SoftmaxWidth}
		}
		lo, hi := requestRange(ev)
		for _, w := range widths {
			if t, ok := factor(lo, hi, w*4); ok && t >= 16 {
				fd.fire(visSoftmax)
				fd.Quantities.Tokens, fd.Quantities.Vocab, fd.Quantities.BytesPerElem = t, w, 4
				fd.Title = fmt.Sprintf("The visual tokenizer's float32 softmax over %s visual words", commas(w))
				fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("%s ≈ %s tokens × %s × 4 B", size(f.Requested), commas(t), commas(w)))
				fd.Evidence = append(fd.Evidence, sm)
				if visual && e.Line != sm.Line {
					fd.Evidence = append(fd.Evidence, e)
				}
				fd.Explanation = fmt.Sprintf("The visual tokenizer turns every visual token into a probability distribution over %s visual words in float32: %s visual tokens need %s for that one temporary. The number of visual tokens grows with the image's pixel count.", commas(w), commas(t), size(t*w*4))
				break
			}
		}
	}
	if len(fd.Signals) == 0 {
		if !visual {
			return nil
		}
		fd.fire(visFrames)
		if ev.Kind == parser.KindCUDARuntime || ev.Framework == "ggml" {
			fd.fire(visEngineImage) // an engine encoding an image when it ran out
		}
		fd.Evidence = append(fd.Evidence, e)
		fd.Title = "The vision encoder ran out of memory on a large image"
		fd.Explanation = "The failure is in the image path. Vision encoders' memory grows with the image's pixel count (tokens, and for full-attention towers their square), so a large or high-resolution image can need far more than the language model."
		fd.Decide = "the input image's resolution and the processor's max_pixels / image size setting"
	}
	fd.Evidence = append(fd.Evidence, f.EventLine())
	if haveVis && vis.PixelsPerToken > 0 && vis.DefaultMaxPixels > 0 {
		def := vis.DefaultMaxPixels / vis.PixelsPerToken
		fd.Quantities.DefaultTokens = def
		if _, set := f.Setting(vis.Knob); !set {
			fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("default %s = %s → up to %s visual tokens per image", vis.Knob, vis.DefaultMaxLabel, commas(def)))
			fd.Explanation += fmt.Sprintf(" The log sets no %s, so the processor's default of %s (≈%s visual tokens) applies: that default is what drives this allocation.", vis.Knob, vis.DefaultMaxLabel, commas(def))
		}
		if fd.Quantities.Tokens == 0 {
			fd.Quantities.Tokens = def
		}
	}
	return fd
}
