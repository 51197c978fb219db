package parser

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

const testOOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.06 GiB is free.\n"

func TestLooksBinary(t *testing.T) {
	random := make([]byte, 8<<10)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range random {
		random[i] = byte(r.UintN(256))
	}
	var keras strings.Builder
	for i := 0; keras.Len() < 8<<10; i++ {
		keras.WriteString(strings.Repeat("\b", 60) + "\r" + fmt.Sprintf("%4d/200 [======>...] - ETA: 3s - loss: 0.51", i))
	}
	latin1 := bytes.Repeat([]byte("Fehler: Speicher ersch\xf6pft beim Laden, caf\xe9 na\xefve\n"), 200)
	tests := []struct {
		name string
		in   []byte
		want bool
	}{
		{"log", bytes.Repeat([]byte(testOOM), 60), false},
		{"keras backspaces", []byte(keras.String()), false},
		{"bells and vertical tabs", bytes.Repeat([]byte("done\a\v step 1\n"), 100), false},
		{"latin-1 text", latin1, false},
		{"utf-8 text", bytes.Repeat([]byte("内存不足：CUDA out of memory ███▌\n"), 100), false},
		{"zeros", make([]byte, 8<<10), true},
		{"random bytes", random, true},
		{"elf", append([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00\x01\x00\x00\x00"), make([]byte, 200)...), true},
		{"control bytes", bytes.Repeat([]byte("ab\x01\x02\x03\x04\x05\x06\x0e\x0f"), 100), true},
		{"short", []byte("\x00\x01"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := looksBinary(tc.in); got != tc.want {
				t.Errorf("looksBinary = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestIsNotebook(t *testing.T) {
	nb, err := os.ReadFile(filepath.Join("..", "fixtures", "formats", "notebook-error-output.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, head string
		want       bool
	}{
		{"fixture", string(nb), true},
		{"cells first", `{"cells": [{"cell_type": "code", "source": []`, true},
		{"nbformat", `{"metadata": {"kernelspec": {}}, "nbformat": 4, "nbformat_minor": 5}`, true},
		{"json lines with a cells key", `{"cells": 3, "msg": "start"}` + "\n" + `{"msg": "CUDA out of memory"}`, false},
		{"json lines with a cells list", `{"cells": [{"cell_type": "code"}]}` + "\n" + `{"cells": []}`, false},
		{"cells of numbers", `{"cells": [1, 2, 3]}`, false},
		{"cells nested deeper", `{"x": {"cells": [{"cell_type": "code"}]}}`, false},
		{"a log", testOOM, false},
		{"an array", `[{"cells": []}]`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := isNotebook([]byte(tc.head), "x.log"); got != tc.want {
				t.Errorf("isNotebook(%.60q) = %v, want %v", tc.head, got, tc.want)
			}
		})
	}
	if !isNotebook([]byte("anything"), "Run.IPYNB") {
		t.Error("the .ipynb name is not a notebook")
	}
}

// referenceNotebookText is the text a whole-document decode gives (the
// decoder notebookReader replaced), to check the stream against.
func referenceNotebookText(t *testing.T, data []byte) string {
	var nb struct {
		Cells []struct {
			Outputs []struct {
				Text      json.RawMessage `json:"text"`
				Traceback []string        `json:"traceback"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			for _, tb := range o.Traceback {
				b.WriteString(tb + "\n")
			}
			var one string
			var many []string
			if json.Unmarshal(o.Text, &one) == nil {
				b.WriteString(one)
			} else if json.Unmarshal(o.Text, &many) == nil {
				b.WriteString(strings.Join(many, ""))
			}
		}
	}
	return b.String()
}

func TestNotebookStreamEqualsWholeDecode(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("..", "fixtures", "formats", "notebook-error-output.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	crafted := `{"metadata": {"a": [1, {"b": "}]\"["}], "n": null, "t": true},
 "cells": [{"cell_type": "markdown", "source": ["# x"]},
  {"cell_type": "code", "outputs": [
    {"output_type": "stream", "name": "stdout", "text": ["step 1\n", "caf\u00e9 \ud83d\ude00 \u001b[31mred\u001b[0m\n"]},
    {"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo", "text/plain": ["<Figure>"]}},
    {"output_type": "error", "ename": "OutOfMemoryError", "evalue": "x", "traceback": ["\u001b[0;31mOutOfMemoryError\u001b[0m: CUDA out of memory. Tried to allocate 2.00 GiB.", "tab\there \"quoted\" back\\slash \/"]},
    {"output_type": "stream", "text": "lone \ud800 surrogate, raw ü\n"}
  ], "source": "x"}],
 "nbformat": 4}`
	for name, data := range map[string][]byte{"fixture": fixture, "crafted": []byte(crafted)} {
		t.Run(name, func(t *testing.T) {
			got, err := io.ReadAll(notebookReader(bufio.NewReader(bytes.NewReader(data))))
			if err != nil {
				t.Fatal(err)
			}
			if want := referenceNotebookText(t, data); string(got) != want {
				t.Errorf("stream:\n%q\nwhole decode:\n%q", got, want)
			}
		})
	}
}

func TestNotebookErrors(t *testing.T) {
	for _, in := range []string{"", "hello", `{"cells": [}`, `{"cells": [{"outputs": [{"text": "a"`, `{"cells": "\x"}`} {
		_, err := io.ReadAll(notebookReader(bufio.NewReader(strings.NewReader(in))))
		if err == nil || !strings.Contains(err.Error(), "decode notebook") {
			t.Errorf("%q: err %v", in, err)
		}
	}
}

// hugeNotebook streams a notebook of about size bytes: one embedded image
// of that size, then an output holding the OOM traceback.
func hugeNotebook(size int) io.Reader {
	head := `{"cells": [{"cell_type": "code", "outputs": [{"output_type": "display_data", "data": {"image/png": "`
	tail := `"}}, {"output_type": "error", "traceback": ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]}]}], "nbformat": 4}`
	return io.MultiReader(strings.NewReader(head), &repeatReader{b: 'A', n: int64(size)}, strings.NewReader(tail))
}

// TestNotebookBoundedMemory: a 256 MB notebook whose last output is the
// OOM is read in full, in flat memory, and the OOM found.
func TestNotebookBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 256 MB")
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	res, err := Parse(hugeNotebook(256<<20), "big.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if len(res.Events) != 1 {
		t.Fatalf("%d events, want the OOM", len(res.Events))
	}
	grown := int64(after.HeapSys) - int64(before.HeapSys)
	t.Logf("256 MB notebook: %v, heap grew %d MiB", time.Since(start).Round(time.Millisecond), grown>>20)
	if grown > 32<<20 {
		t.Errorf("the heap grew by %d MiB", grown>>20)
	}
}

func gz(data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func TestGzipDepthAndTruncation(t *testing.T) {
	log := []byte(strings.Repeat("step 1\n", 100) + testOOM)
	once, twice := gz(log), gz(gz(log))
	for name, data := range map[string][]byte{"once": once, "twice": twice} {
		res, err := Parse(bytes.NewReader(data), name)
		if err != nil || len(res.Events) != 1 {
			t.Errorf("%s: err %v, %d events", name, err, len(res.Events))
		}
	}
	if _, err := Parse(bytes.NewReader(gz(twice)), "thrice"); !errors.Is(err, ErrTooDeep) {
		t.Errorf("three layers: err %v, want ErrTooDeep", err)
	}
	// A bomb of 2,000 layers (the review's 20,000 only take longer to
	// build here): refused at once.
	nested := log
	for range 2000 {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, gzip.NoCompression)
		w.Write(nested)
		w.Close()
		nested = b.Bytes()
	}
	start := time.Now()
	if _, err := Parse(bytes.NewReader(nested), "bomb.gz"); !errors.Is(err, ErrTooDeep) || time.Since(start) > time.Second {
		t.Errorf("2,000 layers: err %v after %v", err, time.Since(start))
	}
	// Cut: what was read is parsed, and the error says the input is truncated.
	res, err := Parse(bytes.NewReader(once[:len(once)-6]), "cut.gz")
	if !errors.Is(err, ErrTruncated) || len(res.Events) != 1 || res.Lines != 101 {
		t.Errorf("cut trailer: err %v, %d events, %d lines", err, len(res.Events), res.Lines)
	}
	res, err = Parse(bytes.NewReader(once[:len(once)/2]), "half.gz")
	if !errors.Is(err, ErrTruncated) || res.Lines == 0 {
		t.Errorf("cut in half: err %v, %d lines", err, res.Lines)
	}
}

func utf16Bytes(s string, big bool) []byte {
	out := []byte{0xff, 0xfe}
	if big {
		out = []byte{0xfe, 0xff}
	}
	for _, c := range utf16.Encode([]rune(s)) {
		if big {
			out = append(out, byte(c>>8), byte(c))
		} else {
			out = append(out, byte(c), byte(c>>8))
		}
	}
	return out
}

func TestUTF16(t *testing.T) {
	text := "Epoch 1 ██ café 😀\r\n" + testOOM
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"little-endian", utf16Bytes(text, false), text},
		{"big-endian", utf16Bytes(text, true), text},
		{"odd final byte", append(utf16Bytes("ab", false), 'c'), "ab\uFFFD"},
		{"lone high surrogate", append(utf16Bytes("a", false), 0x00, 0xd8, 'b', 0), "a\uFFFDb"},
		{"lone low surrogate", append(utf16Bytes("a", false), 0x00, 0xdc), "a\uFFFD"},
		{"high surrogate at the end", append(utf16Bytes("a", false), 0x3d, 0xd8), "a\uFFFD"},
		{"two high surrogates", append(utf16Bytes("", false), 0x3d, 0xd8, 0x3d, 0xd8, 0x00, 0xde), "\uFFFD😀"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := io.ReadAll(newUTF16Reader(bufio.NewReader(bytes.NewReader(tc.in))))
			if err != nil || string(got) != tc.want {
				t.Errorf("got %q (%v), want %q", got, err, tc.want)
			}
		})
	}
	res, err := Parse(bytes.NewReader(utf16Bytes(text, false)), "ps.log")
	if err != nil || len(res.Events) != 1 || res.Events[0].RequestedBytes == nil {
		t.Errorf("UTF-16 log: err %v, events %+v", err, res.Events)
	}
	// without its byte-order mark, ASCII text in UTF-16 is still text
	for _, big := range []bool{false, true} {
		res, err := Parse(bytes.NewReader(utf16Bytes(testOOM, big)[2:]), "nobom.log")
		if err != nil || len(res.Events) != 1 || res.Events[0].RequestedBytes == nil {
			t.Errorf("UTF-16 (big-endian %v) without a mark: err %v, events %+v", big, err, res.Events)
		}
	}
}

func TestInputLimit(t *testing.T) {
	lt := &limitedText{r: &repeatReader{b: 'a', n: 5000}, left: 1000}
	n, err := io.Copy(io.Discard, lt)
	if n != 1000 || !errors.Is(err, ErrInputLimit) {
		t.Errorf("read %d, err %v", n, err)
	}
}

// TestPendingFailuresCloseInLineOrder: two failures pending at the end of
// input on one physical line are numbered the same way every time.
func TestPendingFailuresCloseInLineOrder(t *testing.T) {
	in := "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB\r[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB"
	first, _ := Parse(strings.NewReader(in), "x")
	a, _ := json.Marshal(first)
	for range 40 {
		again, _ := Parse(strings.NewReader(in), "x")
		if b, _ := json.Marshal(again); !bytes.Equal(a, b) {
			t.Fatalf("results differ between runs:\n%s\n%s", a, b)
		}
	}
}
