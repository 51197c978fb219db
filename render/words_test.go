package render

import (
	"testing"

	"github.com/oomdoc/oomdoc/parser"
)

func TestKindWords(t *testing.T) {
	for _, tc := range []struct {
		kind, device string // device "" means the log names none
		want         string
	}{
		{parser.KindCUDA, "cuda", "CUDA out of memory"},
		{parser.KindCUDA, "", "CUDA out of memory"},
		{parser.KindCUDA, "npu", "NPU out of memory"}, // torch_npu's copy of the allocator message
		{parser.KindCUDA, "mlu", "MLU out of memory"},
		{parser.KindHIP, "rocm", "HIP (ROCm) out of memory"},
		{parser.KindMPS, "mps", "Apple GPU (MPS/Metal) out of memory"},
		{parser.KindXLA, "tpu", "XLA RESOURCE_EXHAUSTED"},
		{parser.KindPaddle, "cuda", "PaddlePaddle out of memory"},
		{parser.KindGeneric, "tenstorrent", "Out of memory"},
		{"a-kind-from-a-newer-spec", "", "a-kind-from-a-newer-spec"},
	} {
		ev := &parser.Event{Kind: tc.kind}
		if tc.device != "" {
			ev.Device = &parser.Device{Type: tc.device}
		}
		if got := kindWords(ev); got != tc.want {
			t.Errorf("kindWords(%s on %q) = %q, want %q", tc.kind, tc.device, got, tc.want)
		}
	}
}

func TestOversubscribedWords(t *testing.T) {
	const gib = int64(1) << 30
	p := func(n int64) *int64 { return &n }
	for _, tc := range []struct {
		name                        string
		total, alloc, unalloc, free *int64
		want                        bool
	}{
		{"PyTorch holds more than the device (Windows' sysmem fallback)", p(8 * gib), p(14 * gib), p(gib / 8), p(0), true},
		{"the reserve alone over capacity", p(8 * gib), nil, p(9 * gib), p(0), true},
		{"a full device, not more", p(8 * gib), p(7 * gib), p(gib - 1), p(1), false},
		{"no capacity printed", nil, p(14 * gib), p(0), p(0), false},
	} {
		ev := &parser.Event{TotalBytes: tc.total, AllocatedBytes: tc.alloc, ReservedUnallocatedBytes: tc.unalloc, FreeBytes: tc.free}
		if got := oversubscribedWords(ev) != ""; got != tc.want {
			t.Errorf("%s: note %v, want %v", tc.name, got, tc.want)
		}
	}
}
