package parser

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzNotebook feeds arbitrary bytes to the streaming notebook decoder.
// Invariants: no panic; it ends; what it yields is valid UTF-8 and at most
// three bytes per input byte (an invalid byte becomes U+FFFD).
func FuzzNotebook(f *testing.F) {
	nb, err := os.ReadFile(filepath.Join("..", "fixtures", "formats", "notebook-error-output.ipynb"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(nb)
	f.Add([]byte(`{"cells": [{"outputs": [{"text": ["a\ud83d\ude00", "\ud800"], "traceback": null}]}], "nbformat": 4}`))
	f.Add([]byte(`{"cells": [{"outputs": [{"data": {"x": [[[[[[{"y": "\"}]"}]]]]]]}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := io.ReadAll(notebookReader(bufio.NewReader(bytes.NewReader(data))))
		if err != nil && !bytes.Contains([]byte(err.Error()), []byte("decode notebook")) {
			t.Fatalf("error without its operation: %v", err)
		}
		if !utf8.Valid(out) {
			t.Fatalf("invalid UTF-8 out: %q", out)
		}
		if len(out) > 3*len(data) {
			t.Fatalf("%d bytes out of %d in", len(out), len(data))
		}
	})
}

// FuzzGzip checks the gzip layer: a compressed input reads exactly as the
// text it holds, and any cut of it ends with what was read and an error,
// never a panic or a hang.
func FuzzGzip(f *testing.F) {
	f.Add([]byte(testOOM), uint16(20))
	f.Add(gz([]byte(testOOM)), uint16(7))
	f.Add([]byte("\xff\xfeh\x00i\x00"), uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		whole := gz(data)
		plain, perr := decodeAll(data)
		packed, gerr := decodeAll(whole)
		if perr == nil && gerr == nil && !bytes.Equal(plain, packed) {
			t.Fatalf("gzip changes the text: %q vs %q", packed, plain)
		}
		if perr == nil && gerr != nil && !errors.Is(gerr, ErrTooDeep) {
			t.Fatalf("the text reads but its gzip does not: %v", gerr)
		}
		start := time.Now()
		res, err := Parse(bytes.NewReader(whole[:int(cut)%(len(whole)+1)]), "cut.gz")
		if res == nil {
			t.Fatalf("no result (err %v)", err)
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("a cut gzip took %v", time.Since(start))
		}
	})
}

// decodeAll returns the decoded text of an input.
func decodeAll(data []byte) ([]byte, error) {
	src, err := decodeInput(bytes.NewReader(data), "x")
	if err != nil {
		return nil, err
	}
	return io.ReadAll(src)
}

// FuzzUTF16 checks the UTF-16 decoder: any bytes give valid UTF-8 of
// bounded size, and UTF-8 text encoded as UTF-16 (either byte order)
// decodes back to itself.
func FuzzUTF16(f *testing.F) {
	f.Add([]byte("Epoch 1 café 😀\n"))
	f.Add([]byte{0x00, 0xd8, 0x61})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, bom := range [][]byte{{0xff, 0xfe}, {0xfe, 0xff}} {
			out, err := io.ReadAll(newUTF16Reader(bufio.NewReader(bytes.NewReader(append(bom, data...)))))
			if err != nil || !utf8.Valid(out) || len(out) > 3*len(data)/2+3 {
				t.Fatalf("%d bytes out of %d, valid %v, err %v", len(out), len(data), utf8.Valid(out), err)
			}
		}
		if utf8.Valid(data) {
			s := string(data)
			for _, big := range []bool{false, true} {
				out, _ := io.ReadAll(newUTF16Reader(bufio.NewReader(bytes.NewReader(utf16Bytes(s, big)))))
				if string(out) != s {
					t.Fatalf("round trip: %q → %q", s, out)
				}
			}
		}
	})
}
