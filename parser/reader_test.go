package parser

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// chunkReader returns at most n bytes per Read, as a pipe does.
type chunkReader struct {
	r io.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// TestBlockReaderKeepsTheBlockBefore: every block stays intact until the
// second call after it (what preparedBlocks relies on to read one block
// ahead), the blocks hold whole lines, and together they are the input.
func TestBlockReaderKeepsTheBlockBefore(t *testing.T) {
	lines := strings.Repeat("step 12 loss 0.25 lr 1e-4\n", 3<<20/26)
	cases := []struct {
		name string
		in   string
	}{
		{"short lines over several blocks", lines},
		{"a 2 MiB line between", lines[:len(lines)/2] + strings.Repeat("y", 2<<20) + "\n" + lines},
		{"no final newline", lines + "tail without newline"},
		{"fits one read", "one line\ntwo lines\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			br := newBlockReader(chunkReader{strings.NewReader(tc.in), 7919})
			var got bytes.Buffer
			var prev []byte     // the block returned last, as the reader holds it
			var prevCopy []byte // … and as it was returned
			for {
				b, ok := br.next()
				if prev != nil && !bytes.Equal(prev, prevCopy) {
					t.Fatalf("the block before was overwritten by the next call")
				}
				if !ok {
					break
				}
				if i := bytes.IndexByte(b, '\n'); len(b) > 0 && b[len(b)-1] != '\n' && !br.done() {
					t.Fatalf("a block ends mid-line (first newline at %d of %d)", i, len(b))
				}
				got.Write(b)
				prev, prevCopy = b, append(prevCopy[:0], b...)
			}
			if got.String() != tc.in {
				t.Errorf("blocks joined give %d bytes, want the input's %d", got.Len(), len(tc.in))
			}
		})
	}
}

// TestBlockReaderOverLongLines: over-long lines come back as head and
// tail, each intact until the second call after it, in turn.
func TestBlockReaderOverLongLines(t *testing.T) {
	long := func(c byte) string { return strings.Repeat(string(c), longLineSize+1<<20) + "\n" }
	in := long('a') + long('b') + "short\n" + long('c')
	br := newBlockReader(strings.NewReader(in))
	var prev, prevCopy []byte
	var firsts []byte
	for {
		b, ok := br.next()
		if prev != nil && !bytes.Equal(prev, prevCopy) {
			t.Fatalf("block %d was overwritten by the next call", len(firsts))
		}
		if !ok {
			break
		}
		if len(b) > MaxLineBytes+tailBytes+2 {
			t.Fatalf("block of %d bytes: an over-long line is kept as head and tail", len(b))
		}
		firsts = append(firsts, b[0])
		prev, prevCopy = b, append(prevCopy[:0], b...)
	}
	if string(firsts) != "absc" {
		t.Errorf("blocks start with %q, want %q", firsts, "absc")
	}
}
