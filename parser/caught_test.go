package parser

import (
	"strings"
	"testing"
)

// TestCaughtAndSkipped: a failure the program says it caught, skipping the
// batch, within caughtWindow lines after it, is no crash; a skip that
// names no memory, or comes later, leaves the failure standing.
func TestCaughtAndSkipped(t *testing.T) {
	const oom = "THCudaCheck FAIL file=/pytorch/torch/lib/THC/generic/THCStorage.cu line=58 error=2 : out of memory\n"
	for _, tc := range []struct {
		name, after string
		caught      bool
	}{
		{"fairseq", "| WARNING: ran out of memory on GPU #2, skipping batch\n| epoch 001: 318/72115\n", true},
		{"own loop", "OOM in step 12, skipping this batch\n", true},
		{"second line", "torch.cuda.empty_cache() called\nWARNING: out of memory, skipping the batch\n", true},
		{"skip alone", " Skipping batch\n", true},
		{"skip without memory", "loss is NaN, skipping batch\n", false},
		{"too late", "| epoch 001: 318/72115\n| epoch 001: 319/72115\nWARNING: ran out of memory, skipping batch\n", false},
		{"no skip", "WARNING: ran out of memory on GPU #2\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Parse(strings.NewReader(oom+tc.after), "x.log")
			if err != nil {
				t.Fatal(err)
			}
			caught := len(res.Events) == 0
			if caught != tc.caught {
				t.Fatalf("events %d, want caught=%v", len(res.Events), tc.caught)
			}
			var notice bool
			for _, n := range res.Context.Notices {
				notice = notice || n.ID == "nonfatal-oom-skipped" && n.Line == 1
			}
			if notice != tc.caught {
				t.Errorf("nonfatal-oom-skipped notice on line 1: %v, want %v (%+v)", notice, tc.caught, res.Context.Notices)
			}
		})
	}
}

// TestEchoOf: a message's words without its figures, near it, are its
// echo; a longer or different message, or one with a figure, is not.
func TestEchoOf(t *testing.T) {
	n := int64(151781376)
	full := &Event{Message: "[enforce fail at alloc_cpu.cpp:81] data. DefaultCPUAllocator: not enough memory: you tried to allocate 151781376 bytes.", RequestedBytes: &n}
	for _, tc := range []struct {
		short *Event
		want  bool
	}{
		{&Event{Message: "DefaultCPUAllocator: not enough memory"}, true},
		{&Event{Message: "DefaultCPUAllocator: can't allocate memory"}, false},
		{&Event{Message: "DefaultCPUAllocator: not enough memory", RequestedBytes: &n}, false},
		{&Event{Message: full.Message}, false},
	} {
		if got := echoOf(tc.short, full); got != tc.want {
			t.Errorf("echoOf(%q) = %v, want %v", tc.short.Message, got, tc.want)
		}
	}
}
