package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

const oomLine = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.06 GiB is free.\n"

// TestEndlessDevicesEnd: /dev/zero and /dev/urandom, named or on stdin,
// are refused in bounded time with one line and status 3.
func TestEndlessDevicesEnd(t *testing.T) {
	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		if _, err := os.Stat(dev); err != nil {
			continue
		}
		start := time.Now()
		r := runWith(t, "", dev)
		if r.code != exitInput || !strings.Contains(r.stderr, "binary") || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
			t.Errorf("%s: status %d, stdout %q, stderr %q", dev, r.code, r.stdout, r.stderr)
		}
		f, err := os.Open(dev)
		if err != nil {
			t.Fatal(err)
		}
		env, out, errb := testEnv(f, false, nil)
		code := run(nil, env)
		f.Close()
		if code != exitInput || out.Len() != 0 {
			t.Errorf("< %s: status %d, stdout %q, stderr %q", dev, code, out.String(), errb.String())
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s took %v", dev, d)
		}
	}
}

// TestInputsPeopleHave: decoded inputs and the refusals around them, as
// the user sees them.
func TestInputsPeopleHave(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	u16 := []byte{0xff, 0xfe}
	for _, c := range utf16.Encode([]rune("Epoch 1\r\n" + oomLine)) {
		u16 = append(u16, byte(c), byte(c>>8))
	}
	var keras strings.Builder
	keras.WriteString("Epoch 1/10\n")
	for i := 1; i <= 200; i++ {
		keras.WriteString(strings.Repeat("\b", 60) + "\r" + strings.Repeat("=", i%30) + " - loss: 0.5")
	}
	keras.WriteString("\ntensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[8192,65536] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc [Op:MatMul]\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(strings.Repeat("step 1 loss 0.5\n", 5000) + oomLine))
	zw.Close()
	truncated := gz.Bytes()[:gz.Len()-6] // the trailer cut: the text is all there
	tests := []struct {
		name, file string
		code       int
		stdout     []string // in the report
		stderr     []string
		noStdout   string
	}{
		{"UTF-16 with a BOM", write("ps.log", u16), 0, []string{"2.00 GiB requested"}, nil, ""},
		{"Keras backspace progress bar", write("keras.log", []byte(keras.String())), 0, []string{"TensorFlow"}, nil, ""},
		{"JSON lines with a cells key", write("jl.log", []byte(`{"cells": 3, "msg": "start"}`+"\n"+`{"msg": "`+strings.TrimSpace(oomLine)+`"}`+"\n")), 0, []string{"2.00 GiB requested"}, nil, ""},
		{"truncated gzip", write("cut.log.gz", truncated), exitInput, []string{"2.00 GiB requested"}, []string{"input is truncated", "5001 lines read"}, ""},
		{"not a notebook", write("bad.ipynb", []byte("hello, not json\n")), exitInput, nil, []string{"decode notebook"}, "No out-of-memory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runWith(t, "", "--color=never", tc.file)
			if r.code != tc.code {
				t.Errorf("status %d, want %d; stderr %q", r.code, tc.code, r.stderr)
			}
			for _, w := range tc.stdout {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("report lacks %q:\n%.600s", w, r.stdout)
				}
			}
			for _, w := range tc.stderr {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q: %q", w, r.stderr)
				}
			}
			if tc.noStdout != "" && strings.Contains(r.stdout, tc.noStdout) {
				t.Errorf("a refused input also says %q", tc.noStdout)
			}
		})
	}
}

// TestStdinWithoutTracebackHint: piped output with no traceback gets one
// line saying tracebacks go to stderr; output with one does not.
func TestStdinWithoutTracebackHint(t *testing.T) {
	r := runWith(t, "step 1 loss 0.5\nstep 2 loss 0.4\n", "--color=never")
	if !strings.Contains(r.stderr, "2>&1 |") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("no hint: %q", r.stderr)
	}
	r = runWith(t, "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nValueError: bad\n", "--color=never")
	if strings.Contains(r.stderr, "2>&1") {
		t.Errorf("hint despite a traceback: %q", r.stderr)
	}
	r = runWith(t, oomLine, "--color=never")
	if strings.Contains(r.stderr, "2>&1") {
		t.Errorf("hint despite a failure: %q", r.stderr)
	}
	// Empty stdin is what `python train.py | oomdoc` gives when the error
	// went to stderr: it says so, in one line, and names standard input.
	r = runWith(t, "", "--color=never")
	if !strings.Contains(r.stderr, "standard input was empty") || strings.Count(r.stderr, "\n") != 1 || r.code != 0 {
		t.Errorf("empty stdin: code %d, stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "found in standard input.") {
		t.Errorf("empty stdin report does not name standard input: %q", r.stdout)
	}
}

// TestBadWidthIsRejected: --width outside 40..1000 is a usage error that
// names the range.
func TestBadWidthIsRejected(t *testing.T) {
	for _, w := range []string{"-5", "10", "100000"} {
		r := runWith(t, oomLine, "--width="+w)
		if r.code != exitUsage || !strings.Contains(r.stderr, "from 40 to 1000") {
			t.Errorf("--width %s: status %d, stderr %q", w, r.code, r.stderr)
		}
		r = runWith(t, "", "run", "--width="+w, "--", "true")
		if r.code != exitUsage {
			t.Errorf("run --width %s: status %d", w, r.code)
		}
	}
	if r := runWith(t, oomLine, "--width", "60"); r.code != 0 {
		t.Errorf("--width 60: status %d", r.code)
	}
}

// TestErrorsEscapeFileNames: a file name's escape sequences never reach
// the terminal through an error message.
func TestErrorsEscapeFileNames(t *testing.T) {
	dir := t.TempDir()
	evil := filepath.Join(dir, "a\x1b]52;c;ZXZpbA==\x07\n\u202eb.log")
	if err := os.Mkdir(evil+".d", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{evil}, {evil + ".d"}, {"run", "--", evil}} {
		r := runWith(t, "", args...)
		if strings.ContainsAny(r.stderr, "\x1b\x07\u202e") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%q: stderr %q", args, r.stderr)
		}
	}
}

// TestSeekTail: a file over the bound is read from the first line start
// in its last bound bytes; a gzip file is read from its start.
func TestSeekTail(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.log")
	data := []byte(strings.Repeat("0123456789\n", 100)) // 1,100 bytes
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	note := seekTail(f, int64(len(data)), 105)
	rest, _ := io.ReadAll(f)
	if string(rest) != strings.Repeat("0123456789\n", 9) || !strings.Contains(note, "from the line that starts at byte 1001") {
		t.Errorf("read %q, note %q", rest, note)
	}
	gzPath := filepath.Join(dir, "big.log.gz")
	if err := os.WriteFile(gzPath, append([]byte{0x1f, 0x8b}, data...), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := os.Open(gzPath)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if note := seekTail(g, int64(len(data)+2), 105); note != "" {
		t.Errorf("gzip: note %q", note)
	}
	if head, _ := io.ReadAll(g); len(head) != len(data)+2 {
		t.Errorf("gzip read from %d bytes in", len(data)+2-len(head))
	}
}

// TestTeeBinaryPassesThrough: --tee passes binary input through unchanged
// and says it was not analysed, with status 0: the copy succeeded.
func TestTeeBinaryPassesThrough(t *testing.T) {
	in := bytes.Repeat([]byte{0x00, 0xff, 0x01, 'x'}, 50000)
	env, out, errb := testEnv(bytes.NewReader(in), false, nil)
	if code := run([]string{"--tee"}, env); code != 0 || !bytes.Equal(out.Bytes(), in) || !strings.Contains(errb.String(), "not analysed") {
		t.Errorf("status %d, %d of %d bytes, stderr %q", code, out.Len(), len(in), errb.String())
	}
}

// TestModelNewlineStaysOnOneLine: a newline in --model cannot start a new
// line of the text report.
func TestModelNewlineStaysOnOneLine(t *testing.T) {
	r := runWith(t, "", "--color=never", "--model", "llava-hf/llava-1.5-13b-hf\nINJECTED LINE", fixture("reference", "llava-1.5-13b-load-12gib.log"))
	if !strings.Contains(r.stdout, "INJECTED LINE") {
		t.Fatalf("the report does not quote --model; the test needs it:\n%s", r.stdout)
	}
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "INJECTED LINE") {
			t.Errorf("the --model value started a line: %q", l)
		}
	}
}

func TestWordWatch(t *testing.T) {
	for _, tc := range []struct {
		chunks []string
		want   bool
	}{
		{[]string{"a Traceback b"}, true},
		{[]string{"a Trace", "back b"}, true},
		{[]string{"T", "r", "a", "c", "e", "b", "a", "c", "k"}, true},
		{[]string{"Trace", "x", "back"}, false},
		{[]string{"no word here", "at all"}, false},
	} {
		w := &wordWatch{r: &chunkReader{chunks: tc.chunks}, word: []byte("Traceback")}
		_, _ = io.Copy(io.Discard, w)
		if w.seen != tc.want {
			t.Errorf("%q: seen %v", tc.chunks, w.seen)
		}
	}
}

// chunkReader returns its chunks one Read at a time.
type chunkReader struct{ chunks []string }

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	c.chunks[0] = c.chunks[0][n:]
	if c.chunks[0] == "" {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

// TestEmptyFile: an empty file is named as empty, not searched in vain.
func TestEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "train.log")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runWith(t, "", "--color=never", path)
	if r.code != 0 || !strings.Contains(r.stdout, "train.log is empty.") {
		t.Errorf("empty file: code %d, stdout %q", r.code, r.stdout)
	}
}

// TestModelFlagOverLogsModel: --model naming another model than the log's
// says so on stderr; naming the log's own model (or none) says nothing.
func TestModelFlagOverLogsModel(t *testing.T) {
	ovis := filepath.Join("..", "..", "fixtures", "reference", "ovis2.5-2b-visual-softmax.log")
	r := runWith(t, "", "--color=never", "--model", "llava-hf/llava-1.5-13b-hf", ovis)
	if !strings.Contains(r.stderr, "names AIDC-AI/Ovis2.5-2B; the report uses --model") {
		t.Errorf("another model: stderr %q", r.stderr)
	}
	r = runWith(t, "", "--color=never", "--model", "aidc-ai/ovis2.5-2b", ovis)
	if strings.Contains(r.stderr, "the report uses --model") {
		t.Errorf("the log's own model: stderr %q", r.stderr)
	}
}

// TestGPUFlagOverLogsCapacity: --gpu giving another capacity than the
// failure prints says on stderr that the log's figure is used; the same
// device in other units (16GB for 15.57 GiB) and a log without a capacity
// say nothing.
func TestGPUFlagOverLogsCapacity(t *testing.T) {
	ovis := filepath.Join("..", "..", "fixtures", "reference", "ovis2.5-2b-visual-softmax.log")
	r := runWith(t, "", "--color=never", "--gpu", "24GiB", ovis)
	if !strings.Contains(r.stderr, "prints a capacity of 15.57 GiB; the report uses the log's") {
		t.Errorf("another capacity: stderr %q", r.stderr)
	}
	r = runWith(t, "", "--color=never", "--gpu", "16GB", ovis)
	if strings.Contains(r.stderr, "the report uses the log's") {
		t.Errorf("the same device: stderr %q", r.stderr)
	}
	bare := filepath.Join("..", "..", "fixtures", "corpus", "c4b-006.log")
	r = runWith(t, "", "--color=never", "--gpu", "12GiB", bare)
	if strings.Contains(r.stderr, "the report uses the log's") {
		t.Errorf("no capacity in the log: stderr %q", r.stderr)
	}
}
