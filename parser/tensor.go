package parser

import (
	"math/bits"
	"strconv"
	"strings"
)

// dtypeWidth is the size in bytes of one element of a dtype as TensorFlow,
// NumPy and XLA print it, or of a C type in a message's "N *
// sizeof(float)" (the LP64 model: long and size_t are 8 bytes); 0 for a
// name not known.
func dtypeWidth(dtype string) int64 {
	switch dtype {
	case "bool", "int8", "uint8", "qint8", "quint8", "float8_e4m3fn", "float8_e5m2", "s8", "u8", "pred",
		"char", "int8_t", "uint8_t":
		return 1
	case "half", "float16", "bfloat16", "int16", "uint16", "f16", "bf16", "s16", "u16",
		"__half", "short", "int16_t", "uint16_t":
		return 2
	case "float", "float32", "int32", "uint32", "qint32", "f32", "s32", "u32",
		"int", "int32_t", "uint32_t":
		return 4
	case "double", "float64", "int64", "uint64", "complex64", "f64", "s64", "u64", "c64",
		"long", "int64_t", "uint64_t", "size_t":
		return 8
	case "complex128", "c128":
		return 16
	}
	return numpyTypeWidth(dtype)
}

// numpyTypeWidth is the element size of a NumPy array-protocol type string
// ("<U50": 50 UCS-4 characters, 200 bytes; "|S10": 10 bytes; "<f8": 8
// bytes), as NumPy prints it for structured and string arrays; 0 for
// anything else.
func numpyTypeWidth(t string) int64 {
	if t != "" && strings.IndexByte("<>|=", t[0]) >= 0 {
		t = t[1:]
	}
	if len(t) < 2 || len(t) > 8 {
		return 0
	}
	n, err := strconv.ParseInt(t[1:], 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	switch t[0] {
	case 'U':
		return 4 * n
	case 'S', 'a', 'V', 'f', 'i', 'u', 'c', 'b':
		return n
	}
	return 0
}

// tensorBytes is the size of a tensor of the shape and dtype, nil when the
// dtype is unknown, the shape empty or the product overflows.
func tensorBytes(shape []int64, dtype string) *int64 {
	w := dtypeWidth(dtype)
	if w == 0 || len(shape) == 0 {
		return nil
	}
	n := uint64(w)
	for _, d := range shape {
		if d < 0 {
			return nil
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo >= maxBytes {
			return nil
		}
		n = lo
	}
	v := int64(n)
	return &v
}
