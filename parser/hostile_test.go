package parser

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// repeatReader yields n bytes of one byte value without holding them.
type repeatReader struct {
	b byte
	n int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), r.n)
	for i := range p[:k] {
		p[i] = r.b
	}
	r.n -= k
	return int(k), nil
}

const oomLine = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB of which 1.06 GiB is free. Of the allocated memory 21.00 GiB is allocated by PyTorch, and 300.00 MiB is reserved by PyTorch but unallocated.\n"

// TestHugeLineBoundedMemory: a 200 MB line with no newline, then an OOM
// after a \r (tqdm style) on the same line, then one on its own line. Both
// are found, and the parser allocates far less than the input.
func TestHugeLineBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 200 MB")
	}
	in := io.MultiReader(&repeatReader{b: 'x', n: 200 << 20}, strings.NewReader("\r"+oomLine+oomLine))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := Parse(in, "huge.log")
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 {
		// the same message twice in a row from one stream is one failure
		t.Fatalf("got %d events, want 1", len(res.Events))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("allocated %d MiB to read a 200 MB line; the bound is 32 MiB", alloc>>20)
	}
}

// TestManyEvents: 100,000 failures keep MaxEvents and count the rest.
func TestManyEvents(t *testing.T) {
	var b bytes.Buffer
	for i := range 100000 {
		fmt.Fprintf(&b, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %d.00 MiB. GPU 0 has a total capacity of 23.65 GiB of which 1.06 GiB is free. Of the allocated memory 21.00 GiB is allocated by PyTorch, and 300.00 MiB is reserved by PyTorch but unallocated.\nstep %d\n", 2+i%1000*2, i)
	}
	res, err := Parse(&b, "many.log")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != MaxEvents || res.Dropped == 0 {
		t.Errorf("kept %d events, dropped %d; want %d kept and the rest counted", len(res.Events), res.Dropped, MaxEvents)
	}
}

// TestDeepChain: 1,000 chained exceptions, each with frames, end in one OOM.
func TestDeepChain(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "Traceback (most recent call last):\n  File \"x.py\", line %d, in f%d\n    g()\nValueError: %d\n\nDuring handling of the above exception, another exception occurred:\n\n", i+1, i, i)
	}
	b.WriteString("Traceback (most recent call last):\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "  File \"deep.py\", line %d, in r\n    r()\n", i+1)
	}
	b.WriteString(oomLine)
	res, err := Parse(strings.NewReader(b.String()), "deep.log")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 {
		t.Fatalf("got %d events", len(res.Events))
	}
	if n := len(res.Events[0].Frames); n == 0 || n > maxFrames {
		t.Errorf("%d frames kept, want 1..%d", n, maxFrames)
	}
}

// TestAbsurdFigures: sentinels, overflows and negative numbers are unknown,
// never sizes.
func TestAbsurdFigures(t *testing.T) {
	tests := []struct{ name, log string }{
		{"1EB", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate more than 1EB memory.\n"},
		{"overflow", "RuntimeError: CUDA out of memory. Tried to allocate 99999999999999999999.00 GiB (GPU 0; 99999999999999999999999 GiB total capacity; -5 bytes free)\n"},
		{"nvml sentinel", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of 15.00 GiB of which 0 bytes is free. Process 1 has 17179869184.00 GiB memory in use.\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := onlyEvent(t, tc.log)
			for _, p := range []*int64{ev.RequestedBytes, ev.TotalBytes, ev.FreeBytes} {
				if p != nil && (*p < 0 || *p >= maxBytes) {
					t.Errorf("absurd figure kept: %d", *p)
				}
			}
			for _, pr := range ev.OtherProcesses {
				if pr.Bytes != nil {
					t.Errorf("NVML sentinel kept as %d bytes", *pr.Bytes)
				}
			}
		})
	}
}

// TestGarbageAndEmpty: binary input and runs of NUL bytes are refused with
// ErrBinary (and an empty result); invalid UTF-8 and stray NULs in text are
// read; an empty input is no error.
func TestGarbageAndEmpty(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	garbage := make([]byte, 1<<20)
	for i := range garbage {
		garbage[i] = byte(r.UintN(256))
	}
	textWithNUL := append([]byte(strings.Repeat("step 1 loss 0.5\n", 200)), 0)
	textWithNUL = append(textWithNUL, oomLine...)
	tests := []struct {
		name   string
		data   []byte
		binary bool
		events int
	}{
		{"garbage", garbage, true, 0},
		{"nuls", bytes.Repeat([]byte{0}, 4096), true, 0},
		{"empty", nil, false, 0},
		{"bad utf-8", []byte("\xff\xfe\xfd Killed\xff\n"), false, 0},
		{"text with a stray NUL", textWithNUL, false, 1},
	}
	for _, tc := range tests {
		res, err := Parse(bytes.NewReader(tc.data), tc.name)
		if res == nil {
			t.Errorf("%s: nil result", tc.name)
			continue
		}
		if got := errors.Is(err, ErrBinary); got != tc.binary || !tc.binary && err != nil {
			t.Errorf("%s: err = %v, want binary=%v", tc.name, err, tc.binary)
		}
		if len(res.Events) != tc.events {
			t.Errorf("%s: %d events, want %d", tc.name, len(res.Events), tc.events)
		}
	}
}

// errReader fails after some data, as a broken pipe or disk does.
type errReader struct{ n int }

func (e *errReader) Read(p []byte) (int, error) {
	if e.n == 0 {
		return 0, fmt.Errorf("device on fire")
	}
	e.n = 0
	return copy(p, oomLine), nil
}

// TestReadErrorKeepsPartialResult: what was read before the error is kept,
// and the error names the input and line.
func TestReadErrorKeepsPartialResult(t *testing.T) {
	res, err := Parse(&errReader{n: 1}, "flaky.log")
	var pe *ParseError
	if err == nil || !strings.Contains(err.Error(), "flaky.log") {
		t.Fatalf("err = %v", err)
	}
	if !asParseError(err, &pe) || res == nil || len(res.Events) != 1 {
		t.Errorf("want the event read before the error; got %v events, err %v", res, err)
	}
}

func asParseError(err error, pe **ParseError) bool {
	p, ok := err.(*ParseError)
	*pe = p
	return ok
}

// TestShapeCacheKeepsDigitForms: a line shaped like an earlier harmless one
// but for a digit that makes it a failure is still read ("exits with
// return code = -15" then "= -9").
func TestShapeCacheKeepsDigitForms(t *testing.T) {
	log := "[launch.py:434:sigkill_handler] ['python', 'train.py'] exits with return code = -15\n" +
		"[launch.py:434:sigkill_handler] ['python', 'train.py'] exits with return code = -9\n"
	res, err := Parse(strings.NewReader(log), "ds.log")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 || res.Events[0].Line != 2 {
		t.Fatalf("want the -9 line as the one failure, got %+v", res.Events)
	}
}
