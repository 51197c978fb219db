package parser

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"path/filepath"

	"github.com/oomdoc/oomdoc/bench/loggen"

	"github.com/oomdoc/oomdoc/fixtures"
)

func resultJSON(t *testing.T, r *Result) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFastReadEqualsFullRead: reading only the anchored lines (and the
// lines around them) gives exactly what reading every line gives, on every
// fixture.
func TestFastReadEqualsFullRead(t *testing.T) {
	for _, path := range fixtures.Paths(filepath.Join("..", "fixtures")) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fast, _ := Parse(bytes.NewReader(data), "x")
		if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) || isNotebook(data, path) {
			continue // decoded inputs take the same path after decoding
		}
		slow, _ := parseLines(bytes.NewReader(data), "x", true)
		if a, b := resultJSON(t, fast), resultJSON(t, slow); a != b {
			t.Errorf("%s: fast and full reads differ\nfast: %.400s\nfull: %.400s", path, a, b)
		}
	}
}

// TestLargeLogEqualsItsTail: the events of a 64 MiB multi-rank log are the
// events of its last lines alone (the speed issue's scale test), and equal
// to a full line-by-line read.
func TestLargeLogEqualsItsTail(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 64 MiB")
	}
	var b bytes.Buffer
	if err := loggen.Write(&b, loggen.Options{Size: 64 << 20, Ranks: 8, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	full, err := Parse(bytes.NewReader(data), "big.log")
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Events) != 8 {
		t.Fatalf("%d events in the large log, want one per rank (8)", len(full.Events))
	}
	// the tail: the last 200 lines
	cut := len(data)
	for k := 0; k < 200; k++ {
		cut = bytes.LastIndexByte(data[:cut-1], '\n') + 1
	}
	tail, err := Parse(bytes.NewReader(data[cut:]), "big.log")
	if err != nil {
		t.Fatal(err)
	}
	offset := bytes.Count(data[:cut], []byte("\n"))
	if len(tail.Events) != len(full.Events) {
		t.Fatalf("tail has %d events, the whole log %d", len(tail.Events), len(full.Events))
	}
	for i := range full.Events {
		a, b := full.Events[i], tail.Events[i]
		if a.Line != b.Line+offset || a.Message != b.Message || *a.Rank != *b.Rank || len(a.Frames) != len(b.Frames) || a.Phase != b.Phase {
			t.Errorf("event %d differs: line %d vs %d+%d, rank %d vs %d, phase %s vs %s", i, a.Line, b.Line, offset, *a.Rank, *b.Rank, a.Phase, b.Phase)
		}
	}
	slow, _ := parseLines(bytes.NewReader(data), "big.log", true)
	if resultJSON(t, slow) != resultJSON(t, full) {
		t.Errorf("fast and full reads of the large log differ")
	}
	one, _ := ParseWith(bytes.NewReader(data), "big.log", Options{OneThread: true})
	if resultJSON(t, one) != resultJSON(t, full) {
		t.Errorf("a read on one goroutine differs from the staged read")
	}
}

// TestTracebackAcrossBlocks puts a traceback across the boundary between
// two blocks, at every split point, and checks the fast read still equals
// the full read (the replay of the previous block's tail).
func TestTracebackAcrossBlocks(t *testing.T) {
	tb := "Traceback (most recent call last):\n  File \"/app/train.py\", line 9, in <module>\n    loss.backward()\n  File \"/opt/torch/_tensor.py\", line 626, in backward\n    torch.autograd.backward(\n" + oomLine
	filler := "step 1 loss 0.5 lr 0.0003 grad_norm 1.2 tokens/s 41234 ......................................\n"
	for back := 0; back <= len(tb); back += 7 {
		// The first block is the whole read buffer up to its last newline.
		edge := blockSize + MaxLineBytes
		var b bytes.Buffer
		for b.Len() < edge-back-len(filler) {
			b.WriteString(filler)
		}
		for b.Len() < edge-back-1 {
			b.WriteByte('.')
		}
		b.WriteString("\n")
		b.WriteString(tb)
		data := b.Bytes()
		if bytes.IndexByte(data[:edge], '\n') < 0 || len(data) <= edge {
			t.Fatal("test data does not cross the block edge")
		}
		fast, _ := Parse(bytes.NewReader(data), "x")
		slow, _ := parseLines(bytes.NewReader(data), "x", true)
		if resultJSON(t, fast) != resultJSON(t, slow) {
			t.Fatalf("split %d bytes before the block end: fast and full reads differ", back)
		}
		if len(fast.Events) != 1 || len(fast.Events[0].Frames) != 2 || fast.Events[0].Phase != PhaseBackward {
			t.Fatalf("split %d: %d events, frames %v", back, len(fast.Events), fast.Events)
		}
	}
}

// TestFastReadKeepsTailAcrossShortBlocks: when a read ends a block just
// before the failure, leaving a block of a line or two, the lines a replay
// needs are still those before it — here CRLF noise whose every line holds
// a key but is quiet, with the failure in the last bytes of a 1.1 MB log
// and no final newline (a review's reproducer).
func TestFastReadKeepsTailAcrossShortBlocks(t *testing.T) {
	var b bytes.Buffer
	// noise up to just before the edge of the first read (blockSize +
	// MaxLineBytes), so that the next line straddles it and becomes a
	// block of its own, and the failure's line, unterminated, another
	for n := 0; b.Len() < blockSize+MaxLineBytes-100; n++ {
		fmt.Fprintf(&b, "[rank%d]:[W kernel %d] allocator cache flush skipped, will retry at step %d\r\n", n%4, n, 1000+(n*7919)%9000)
	}
	b.WriteString("2024-11-02 09:14:07.5512 [E:onnxruntime:, sequential_executor.cc:516 ExecuteKernel] Non-zero status code returned while running Softmax node. Name:'/decoder/layers.3/attn/Softmax' Status Message: \r\n")
	b.WriteString("/onnxruntime_src/onnxruntime/core/framework/bfc_arena.cc:376 void* onnxruntime::BFCArena::AllocateRawInternal(size_t, bool, onnxruntime::Stream*, bool, onnxruntime::WaitNotificationFn) Failed to allocate memory for requested buffer of size 402653184")
	data := b.Bytes()
	fast, _ := Parse(bytes.NewReader(data), "x")
	slow, _ := parseLines(bytes.NewReader(data), "x", true)
	if len(fast.Events) != 1 {
		t.Fatalf("%d events, want 1", len(fast.Events))
	}
	if a, c := resultJSON(t, fast), resultJSON(t, slow); a != c {
		t.Errorf("fast and full reads differ\nfast: %.600s\nfull: %.600s", a, c)
	}
}
