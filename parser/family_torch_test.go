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

// TestTorchRetypedTotal: a message retyped by hand keeps its device and
// capacity ("GPU 2 has total 47.40 GiB").
func TestTorchRetypedTotal(t *testing.T) {
	res, err := Parse(strings.NewReader("torch.OutOfMemoryError: Tried to allocate 6.20 GiB. GPU 2 has total 47.40 GiB of which 1.96 GiB is free.\n"), "in.log")
	if err != nil || len(res.Events) != 1 {
		t.Fatalf("%v, %d events", err, len(res.Events))
	}
	ev := res.Events[0]
	if ev.Device == nil || ev.Device.Index == nil || *ev.Device.Index != 2 || ev.TotalBytes == nil || *ev.TotalBytes != 50895362458 || ev.FreeBytes == nil || *ev.FreeBytes != 2104533975 {
		t.Errorf("device %+v, total %v, free %v", ev.Device, ev.TotalBytes, ev.FreeBytes)
	}
}

// TestSelfListedAsProcessN: inside a container PyTorch lists its own
// process as "Process N has …" (NVML's PIDs are the host's). A list of
// one, ended without a this-process clause, is this process even when the
// message is cut before PyTorch's own figures; a list cut before it ended,
// or of two, is not decided.
func TestSelfListedAsProcessN(t *testing.T) {
	const head = "OutOfMemoryError: CUDA out of memory. Tried to allocate 9.47 GiB. GPU 0 has a total capacity of 14.75 GiB of which 3.78 GiB is free. "
	for _, tc := range []struct {
		tail   string
		self   bool
		others int
	}{
		{"Process 2116 has 10.95 GiB memory in use. Of th\n", true, 0},
		{"Process 2116 has 10.95 GiB memory in use.\n", false, 1},
		{"Process 2116 has 10.95 GiB memory in use. Process 2117 has 1.00 GiB memory in use. Of th\n", false, 2},
	} {
		res, err := Parse(strings.NewReader(head+tc.tail), "in.log")
		if err != nil || len(res.Events) != 1 {
			t.Fatalf("%v, %d events", err, len(res.Events))
		}
		ev := res.Events[0]
		if self := ev.ProcessInUseBytes != nil && *ev.ProcessInUseBytes == 11757472973; self != tc.self || len(ev.OtherProcesses) != tc.others {
			t.Errorf("%q: this process %v (%v), %d others; want %v, %d", tc.tail, self, ev.ProcessInUseBytes, len(ev.OtherProcesses), tc.self, tc.others)
		}
	}
}

// TestFreeClauseGarbled: a paste that garbled "of which" ("of whi ich")
// still gives the free figure, which stands before " is free".
func TestFreeClauseGarbled(t *testing.T) {
	res, err := Parse(strings.NewReader("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 84.20 GiB. GPU 0 has a total capacity of 47.54 GiB of whi ich 43.61 GiB is free. Process 13444 has 3.92 GiB memory in use.\n"), "in.log")
	if err != nil || len(res.Events) != 1 {
		t.Fatalf("%v, %d events", err, len(res.Events))
	}
	if ev := res.Events[0]; ev.FreeBytes == nil || *ev.FreeBytes != 46825880945 {
		t.Errorf("free %v, want 46825880945 (43.61 GiB)", ev.FreeBytes)
	}
}
