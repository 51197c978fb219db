package models

import "strings"

// Vision holds what drives the image-token count of a vision-language
// family, from research/models.md §3–4.
type Vision struct {
	Family string
	// PixelsPerToken is the image area one token stands for (Ovis2.5:
	// patch 16 with a 2×2 merge = 32² pixels; Qwen2-VL: 28²).
	PixelsPerToken int64
	// DefaultMaxPixels is the processor's default cap on image area.
	DefaultMaxPixels int64
	// DefaultMaxLabel spells the default as the code does ("1344*1792").
	DefaultMaxLabel string
	// SoftmaxWidth is the width of a float32 softmax over the visual
	// vocabulary that the visual tokenizer runs per token (Ovis), 0 if none.
	SoftmaxWidth int64
	// Knob is the argument that caps image size, spelled for the user.
	Knob string
}

// VisionOf returns the image-token facts for a model's family.
func VisionOf(m Model) (Vision, bool) {
	f := strings.ToLower(m.Family)
	switch {
	case f == "ovis2.5":
		return Vision{Family: f, PixelsPerToken: 32 * 32, DefaultMaxPixels: 1344 * 1792, DefaultMaxLabel: "1344*1792",
			SoftmaxWidth: 65536 - 4, Knob: "max_pixels"}, true
	case f == "ovis2":
		return Vision{Family: f, PixelsPerToken: 28 * 28, DefaultMaxPixels: 10 * 448 * 448, DefaultMaxLabel: "max_partition=9 (+1 global)",
			SoftmaxWidth: 65536 - 5, Knob: "max_partition"}, true
	case f == "qwen2-vl" || f == "qwen2.5-vl":
		return Vision{Family: f, PixelsPerToken: 28 * 28, DefaultMaxPixels: 16384 * 28 * 28, DefaultMaxLabel: "16384*28*28", Knob: "max_pixels"}, true
	case strings.HasPrefix(f, "llava"):
		return Vision{Family: f, PixelsPerToken: 14 * 14, DefaultMaxPixels: 336 * 336, DefaultMaxLabel: "336*336", Knob: "image_size"}, true
	case strings.HasPrefix(f, "internvl"):
		return Vision{Family: f, PixelsPerToken: 28 * 28, DefaultMaxPixels: 13 * 448 * 448, DefaultMaxLabel: "max_dynamic_patch=12", Knob: "max_num"}, true
	}
	return Vision{}, false
}

// VisualSoftmaxWidths returns the visual-vocabulary widths that visual
// tokenizers take a float32 softmax over (Ovis2.5: 65536 − 4 indicator ids;
// Ovis2 / 1.6: 65536 − 5).
func VisualSoftmaxWidths() []int64 { return []int64{65532, 65531} }
