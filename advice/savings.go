package advice

import "github.com/oomdoc/oomdoc/models"

// Weight formats for the "what fits" arithmetic (research/models.md §1,
// peers.md §7).
const (
	FormatFP32  = "fp32"
	FormatFP16  = "bf16/fp16"
	FormatInt8  = "int8"
	FormatNF4   = "nf4"
	FormatNF4DQ = "nf4 + double quant"
)

// nonLinearParams estimates the parameters bitsandbytes leaves in 16-bit:
// the input embedding and lm_head (vocab × hidden each). Only nn.Linear
// layers are quantised, and transformers keeps lm_head unquantised.
func nonLinearParams(m models.Model) int64 {
	if m.Vocab == 0 || m.Hidden == 0 {
		return 0
	}
	return min(2*m.Vocab*m.Hidden, m.Params)
}

// WeightBytes estimates the weights of params parameters, of which
// nonLinear stay 16-bit under quantisation: 4 B/param for fp32, 2 for
// 16-bit, 1 for LLM.int8, 4.5 bits for NF4 (4 bits + an fp32 absmax per 64
// values) and ≈4.127 bits with double quantisation.
func WeightBytes(params, nonLinear int64, format string) int64 {
	linear := params - nonLinear
	switch format {
	case FormatFP32:
		return params * 4
	case FormatFP16:
		return params * 2
	case FormatInt8:
		return linear + nonLinear*2
	case FormatNF4:
		return linear*45/80 + nonLinear*2
	case FormatNF4DQ:
		return linear*4127/8000 + nonLinear*2
	}
	return 0
}

// Reserve is what a device needs beyond the weights to run at all: the
// CUDA context and a minimum of activations — 512 MiB or 5% of the
// device, whichever is larger.
func Reserve(capacity int64) int64 {
	return max(512<<20, capacity/20)
}

// Fits reports whether weights of the given size leave the reserve free.
func Fits(bytes, capacity int64) bool {
	return bytes+Reserve(capacity) <= capacity
}

// ScaledSaving is what a tensor proportional to a count saves when the
// count drops from old to new: bytes × (old − new) / old.
func ScaledSaving(bytes, old, new int64) int64 {
	if old <= 0 || new >= old || bytes <= 0 {
		return 0
	}
	return bytes/old*(old-new) + bytes%old*(old-new)/old
}

// QuadraticSaving is what a tensor quadratic in a length saves when the
// length is divided by k: bytes × (1 − 1/k²).
func QuadraticSaving(bytes, k int64) int64 {
	if k <= 1 {
		return 0
	}
	return bytes - bytes/(k*k)
}

// AdamState8bitSaving is what an 8-bit Adam saves over float32 Adam: its
// two states shrink from 8 to 2 bytes per parameter.
func AdamState8bitSaving(params int64) int64 { return params * 6 }
