package parser

import (
	"strings"
	"testing"
)

// TestTorchDeviceWord: the backend an allocator message names, with text
// a paste glued to it and another vendor's backend in the same message
// shape.
func TestTorchDeviceWord(t *testing.T) {
	const rest = " out of memory. Tried to allocate 130.00 MiB (GPU 1; 7.80 GiB total capacity; 5.91 GiB already allocated; 33.56 MiB free; 6.09 GiB reserved in total by PyTorch)\n"
	for _, tc := range []struct{ head, kind, device string }{
		{"RuntimeError: CUDA", KindCUDA, "cuda"},
		{"# whyCUDA", KindCUDA, "cuda"},
		{"RuntimeError: HIP", KindHIP, "rocm"},
		{"RuntimeError: MLU", KindCUDA, "mlu"},
		{"RuntimeError: Ran", KindCUDA, "cuda"},
	} {
		res, err := Parse(strings.NewReader(tc.head+rest), "in.log")
		if err != nil || len(res.Events) != 1 {
			t.Fatalf("%q: %v, %d events", tc.head, err, len(res.Events))
		}
		ev := res.Events[0]
		if ev.Kind != tc.kind || ev.Device == nil || ev.Device.Type != tc.device {
			t.Errorf("%q: kind %s, device %+v; want %s on %s", tc.head, ev.Kind, ev.Device, tc.kind, tc.device)
		}
	}
}
