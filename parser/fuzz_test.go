package parser

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oomdoc/oomdoc/fixtures"
)

// FuzzParse feeds arbitrary input to the parser, seeded with every fixture.
// Invariants: no panic; every event, frame and following line lies inside
// the input; sizes are never negative; every event says how it was
// detected; the same input gives the same result; a fast read equals a
// full line-by-line read.
func FuzzParse(f *testing.F) {
	for _, p := range fixtures.Paths(filepath.Join("..", "fixtures")) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("Tried to allocate 17179869184.00 GiB (GPU 0; 0 bytes total capacity; -1 bytes free)"))
	f.Add([]byte("\x1b]52;c;ZXZpbA==\x07Killed\r\n\x00\xff\xfe"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Parse(bytes.NewReader(data), "fuzz.log")
		if err != nil && !errors.Is(err, ErrBinary) {
			t.Fatalf("parse error on in-memory input: %v", err)
		}
		lines := res.Lines // gzip and notebooks are counted after decoding
		if raw := bytes.Count(data, []byte("\n")) + 1; lines > raw && !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) && !bytes.Contains(data, []byte(`"cells"`)) {
			t.Fatalf("read %d lines from an input of %d", lines, raw)
		}
		for _, ev := range res.Events {
			if ev.Line < 1 || ev.Line > lines {
				t.Fatalf("event line %d outside 1..%d", ev.Line, lines)
			}
			for _, fr := range ev.Frames {
				if fr.LogLine < 1 || fr.LogLine > lines {
					t.Fatalf("frame line %d outside 1..%d", fr.LogLine, lines)
				}
			}
			for _, p := range []*int64{ev.RequestedBytes, ev.TotalBytes, ev.FreeBytes, ev.AllocatedBytes, ev.ReservedBytes, ev.ReservedUnallocatedBytes, ev.ProcessInUseBytes} {
				if p != nil && *p < 0 {
					t.Fatalf("negative size %d in %s", *p, ev.Message)
				}
			}
			if !strings.HasPrefix(ev.ID, "e") || ev.Kind == "" || ev.Detection == nil {
				t.Fatalf("event without id, kind or detection: %+v", ev)
			}
			for _, sp := range ev.Following {
				if sp.Line <= ev.Line || sp.Line > lines {
					t.Fatalf("following line %d outside %d..%d", sp.Line, ev.Line+1, lines)
				}
			}
		}
		if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) && !isNotebook(data, "fuzz.log") && err == nil {
			slow, _ := parseLines(bytes.NewReader(data), "fuzz.log", true)
			if a, b := resultJSON(t, res), resultJSON(t, slow); a != b {
				t.Fatalf("fast and full reads differ\nfast: %.300s\nfull: %.300s", a, b)
			}
		}
		again, _ := Parse(bytes.NewReader(data), "fuzz.log")
		a, _ := json.Marshal(res)
		b, _ := json.Marshal(again)
		if !bytes.Equal(a, b) {
			t.Fatalf("non-deterministic result")
		}
	})
}
