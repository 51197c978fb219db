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
