package parser

import (
	"strings"
	"testing"
)

// TestCaughtAndWentOn: a failure the program says it caught, skipping the
// batch or retrying another way, within caughtWindow lines after it, is no
// crash; a skip that names no memory, a retry that names no allocation,
// or either coming later, leaves the failure standing.
func TestCaughtAndWentOn(t *testing.T) {
	const oom = "THCudaCheck FAIL file=/pytorch/torch/lib/THC/generic/THCStorage.cu line=58 error=2 : out of memory\n"
	for _, tc := range []struct {
		name, after string
		caught      bool
		notice      string
	}{
		{"fairseq", "| WARNING: ran out of memory on GPU #2, skipping batch\n| epoch 001: 318/72115\n", true, "nonfatal-oom-skipped"},
		{"own loop", "OOM in step 12, skipping this batch\n", true, "nonfatal-oom-skipped"},
		{"second line", "torch.cuda.empty_cache() called\nWARNING: out of memory, skipping the batch\n", true, "nonfatal-oom-skipped"},
		{"skip alone", " Skipping batch\n", true, "nonfatal-oom-skipped"},
		{"llama.cpp retry", "graph_reserve: failed to allocate compute buffers\nsched_reserve: compute buffer allocation failed, retrying without pipeline parallelism\n", true, "nonfatal-oom-retry"},
		{"retry of something else", "download failed, retrying with a mirror\n", false, ""},
		{"skip without memory", "loss is NaN, skipping batch\n", false, ""},
		{"too late", "| epoch 001: 318/72115\n| epoch 001: 319/72115\nWARNING: ran out of memory, skipping batch\n", false, ""},
		{"no skip", "WARNING: ran out of memory on GPU #2\n", false, ""},
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
				notice = notice || n.ID == tc.notice && n.Line == 1
			}
			if notice != tc.caught {
				t.Errorf("%s notice on line 1: %v, want %v (%+v)", tc.notice, notice, tc.caught, res.Context.Notices)
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

// TestBFCCallerSaysNotAFailure: the BFC allocator's warning for a request
// its caller falls back from is no failure; its plain out-of-memory line
// is one.
func TestBFCCallerSaysNotAFailure(t *testing.T) {
	for _, tc := range []struct {
		line   string
		events int
	}{
		{"W tensorflow/core/common_runtime/bfc_allocator.cc:213] Ran out of memory trying to allocate 1.24GiB. The caller indicates that this is not a failure, but may mean that there could be performance gains if more memory is available.", 0},
		{"W tensorflow/core/common_runtime/bfc_allocator.cc:271] Ran out of memory trying to allocate 320.00MiB.  See logs for memory state.", 1},
	} {
		res, err := Parse(strings.NewReader(tc.line+"\n"), "x.log")
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Events) != tc.events {
			t.Errorf("%.60q…: %d events, want %d", tc.line, len(res.Events), tc.events)
		}
	}
}
