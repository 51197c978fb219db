package parser

import "testing"

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"576.00 MiB", 603979776, true},
		{"15.57 GiB", 16718160200, true},
		{"0 bytes", 0, true},
		{"1024 bytes", 1024, true},
		{"1018.00 KiB", 1042432, true},
		{"167,772,160 B", 167772160, true},
		{"1,016,636,448 B", 1016636448, true},
		{"1,02 GiB", 0, false},
		{"12,3456 B", 0, false},
		{"6.00MiB", 6291456, true},       // XLA: no space
		{"449MiB", 470810624, true},      // nvidia-smi
		{"7.23 GB", 7763153388, true},    // old MPS: GB means GiB
		{"896.00 MB", 939524096, true},   // old MPS
		{"20.93G", 22473416376, true},    // TPU
		{"384.0KiB", 393216, true},       // XLA one-decimal KiB
		{"5520758552", 5520758552, true}, // raw bytes
		{"55.250MiB", 57933824, true},    // MegEngine: three decimals
		{"4096.00 GiB", 4398046511104, true},
		{"1.02 PiB", 1148417904979476, true}, // NumPy's units go past TiB
		{"4.00PiB", 4503599627370496, true},  // XLA: no space
		{"17179869184.00 GiB", 0, false},     // NVML's "not available" sentinel: over 2^60
		{"more than 1EB", 0, false},
		{"-3 MiB", 0, false},
		{"12 parsecs", 0, false},
		{"", 0, false},
		{"99999999999999999999 GiB", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := ParseSize(tc.in)
			if ok != tc.ok || got != tc.want {
				t.Errorf("ParseSize(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestOversize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"4585490524328388608", true},      // ONNX Runtime's BFC arena, a request of 4 EiB
		{"1152921504606846976", true},      // exactly 2^60 bytes
		{"1152921504606846975", false},     // one byte under: a size, however large
		{"99999999999999999999 GiB", true}, // twenty digits
		{"17179869184.00 GiB", true},       // well formed, however it came about
		{"2.00 EiB", true},                 // an exbibyte unit is read, then refused
		{"576.00 MiB", false},
		{"more than 1EB", false}, // no figure at all
		{"-3 MiB", false},
		{"12 parsecs", false},
		{"", false},
	} {
		if got := oversize(tc.in); got != tc.want {
			t.Errorf("oversize(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestFormatSize(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0 bytes"},
		{1024, "1024 bytes"},
		{1025, "1.00 KiB"},
		{1048576, "1024.00 KiB"},
		{2097152, "2.00 MiB"},
		{1073741824, "1024.00 MiB"},
		{603979776, "576.00 MiB"},
		{16718160200, "15.57 GiB"},
		{4398046511104, "4096.00 GiB"},
		{-2097152, "-2.00 MiB"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			if got := FormatSize(tc.in); got != tc.want {
				t.Errorf("FormatSize(%d) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestSizeRoundTrip: every figure PyTorch's format_size prints parses back
// to a value that prints the same.
func TestSizeRoundTrip(t *testing.T) {
	for _, n := range []int64{0, 512, 99999, 1 << 20, 603979776, 16718160200, 1 << 40} {
		s := FormatSize(n)
		back, ok := ParseSize(s)
		if !ok || FormatSize(back) != s {
			t.Errorf("%d → %q → %d (%v) → %q", n, s, back, ok, FormatSize(back))
		}
	}
}

func TestSizeReport(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"llama_kv_cache_init:      CUDA1 KV buffer size =    82.44 MiB", true},
		{"llama_new_context_with_model: KV self size  = 1005.79 MiB, K (f16):  502.89 MiB", true},
		{"llm_load_tensors:        CUDA0 buffer size =  7605.34 MiB", true},
		{"ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 292926534144", false},
		{"llama_kv_cache_init: failed to allocate buffer for kv cache", false},
		{"batch_size = 8", false},
		{"past_key_values = model(input_ids, use_cache=True)", false},
	} {
		if got := SizeReport(tc.line); got != tc.want {
			t.Errorf("SizeReport(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}
