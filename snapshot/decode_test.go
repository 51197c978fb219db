package snapshot

import (
	"bytes"
	"errors"
	"io"
	"math/big"
	"os"
	"runtime"
	"strings"
	"testing"
)

// onlyReader hides Seek, so Read takes its one-pass path.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// TestRefused: pickles that would run code, or are malformed, fail with a
// FormatError naming the reason.
func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		name, pickle, want string
	}{
		{"global-reduce", "\x80\x02cos\nsystem\nX\x02\x00\x00\x00ls\x85R.", `names "os.system"`},
		{"stack-global", "\x80\x04\x8c\x08builtins\x8c\x04eval\x93.", `names "builtins.eval"`},
		{"build", "\x80\x02}b.", "BUILD would build a Python object"},
		{"newobj", "\x80\x02)\x81.", "NEWOBJ would build"},
		{"persid", "\x80\x02X\x01\x00\x00\x00aQ.", "PERSID"},
		{"inst", "(i__main__\nX\n.", "INST"},
		{"reduce-non-class", "\x80\x02K\x01)R.", "REDUCE calls a int"},
		{"ordereddict-with-args", "\x80\x02ccollections\nOrderedDict\nK\x01\x85R.", "arguments it does not take"},
		{"encode-no-args", "\x80\x02c_codecs\nencode\n)R.", "arguments it does not take"},
		{"truncated", "\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94(\x8c\x08segments", "truncated"},
		{"empty", "", "truncated"},
		{"no-stop", "\x80\x02}", "truncated"},
		{"huge-string", "\x80\x04\x8d\x00\x00\x00\x00\x00\x01\x00\x00abc.", "input limit"},
		{"negative-length", "\x80\x02T\xff\xff\xff\xff.", "negative length"},
		{"unknown-opcode", "\x80\x02\xff.", "unknown opcode 0xff"},
		{"proto-6", "\x80\x06N.", "protocol 6"},
		{"get-unknown", "\x80\x02h\x05.", "never stored"},
		{"pop-empty", "\x80\x020.", "empty stack"},
		{"stop-empty", "\x80\x02.", "empty stack"},
		{"close-unopened", "\x80\x02e.", "never opened"},
		{"append-to-dict", "\x80\x02}K\x01a.", "APPEND to a dict"},
		{"setitem-on-list", "\x80\x02]K\x01K\x02s.", "SETITEM on a list"},
		{"odd-dict", "\x80\x02}(K\x01u.", "key without a value"},
		{"memo-index", "\x80\x02Nr\xff\xff\xff\x7f.", "memo index"},
		{"memo-gap", "\x80\x02Nq\x05.", "skips past the 0 stored"},
		{"marks", "\x80\x02" + strings.Repeat("(", 2000) + ".", "MARKs open"},
		{"bad-int", "I12x\n.", "bad integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, seek := range []bool{true, false} {
				var r io.Reader = strings.NewReader(tc.pickle)
				if !seek {
					r = onlyReader{r}
				}
				_, err := Read(r, "x.pickle", ReadOptions{})
				var fe *FormatError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("seek=%v: got %v, want a FormatError containing %q", seek, err, tc.want)
				}
			}
		})
	}
}

// TestTruncatedEverywhere cuts a snapshot at every byte: each prefix is an
// error, never a panic or a result.
func TestTruncatedEverywhere(t *testing.T) {
	for _, p := range []string{"p0", "p2", "p4"} {
		b, err := os.ReadFile(snapshotsDir("protocols", p+".pickle"))
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < len(b); n++ {
			if _, err := Read(bytes.NewReader(b[:n]), "x", ReadOptions{}); err == nil {
				t.Fatalf("%s cut at %d of %d bytes: no error", p, n, len(b))
			}
		}
	}
}

// TestLengthPrefixDoesNotAllocate: a length prefix far past the input fails
// without allocating it, seekable or not.
func TestLengthPrefixDoesNotAllocate(t *testing.T) {
	p := "\x80\x04\x8e\x00\x00\x00\x40\x00\x00\x00\x00abc." // BINBYTES8 of 1 GiB, 3 bytes given
	for _, seek := range []bool{true, false} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var r io.Reader = strings.NewReader(p)
		if !seek {
			r = onlyReader{r}
		}
		_, err := Read(r, "x", ReadOptions{})
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("seek=%v: got %v, want truncated", seek, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
			t.Errorf("seek=%v: allocated %d bytes for a 15-byte input", seek, grew)
		}
	}
}

// TestValueLimit: a pickle whose values pass MaxValueBytes stops there.
func TestValueLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("\x80\x04](")
	for range 100000 {
		b.WriteString("\x8c\x10aaaaaaaaaaaaaaaa")
	}
	b.WriteString("e.")
	lim := Limits{MaxInputBytes: 1 << 30, MaxValueBytes: 1 << 20, MaxMarks: 10}
	_, err := Read(strings.NewReader(b.String()), "x", ReadOptions{Limits: lim})
	if err == nil || !strings.Contains(err.Error(), "memory limit") {
		t.Errorf("got %v, want the memory limit", err)
	}
	lim.MaxInputBytes = 1000
	_, err = Read(strings.NewReader(b.String()), "x", ReadOptions{Limits: lim})
	if err == nil || !strings.Contains(err.Error(), "input limit") && !strings.Contains(err.Error(), "byte limit") {
		t.Errorf("got %v, want the input limit", err)
	}
}

// TestShape: pickles of plain data that are not snapshots.
func TestShape(t *testing.T) {
	for _, tc := range []struct {
		name, pickle, want string
	}{
		{"int", "\x80\x02K\x01.", "holds a int, not a snapshot dict"},
		{"no-segments", "\x80\x02}.", `without a "segments" list`},
		{"segments-not-list", "\x80\x02}X\x08\x00\x00\x00segmentsK\x01s.", "segments: is a int"},
		{"segment-not-dict", "\x80\x02]K\x01a.", "segments[0]: is a int"},
		{"self-containing", "\x80\x02]q\x00h\x00a.", "segments[0]: is a list"},
		{"no-total", "\x80\x02]}a.", `segments[0]: has no "total_size"`},
		{"str-size", "\x80\x02]}(X\n\x00\x00\x00total_sizeX\x01\x00\x00\x001ua.", `"total_size" is a str`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.pickle), "x", ReadOptions{})
			var se *ShapeError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want a ShapeError containing %q", err, tc.want)
			}
		})
	}
}

// TestDecodeValues: the plain values of every protocol decode to the Go
// types the package documents.
func TestDecodeValues(t *testing.T) {
	for p := 0; p <= 5; p++ {
		f, err := os.Open(snapshotsDir("protocols", "p"+string(rune('0'+p))+".pickle"))
		if err != nil {
			t.Fatal(err)
		}
		v, err := Decode(f, Options{})
		f.Close()
		if err != nil {
			t.Fatalf("protocol %d: %v", p, err)
		}
		root := v.(*Dict)
		if note, _ := root.Get("note"); note != "unicode: \u00e9\u4e2d\U0001F600, float 0.5, bytes, None, True" {
			t.Errorf("protocol %d: note %q", p, note)
		}
		extra, _ := root.Get("extra")
		items := extra.(*List).Items
		if b, ok := items[0].(Bytes); !ok || string(b) != "\x00\x01" {
			t.Errorf("protocol %d: bytes %#v", p, items[0])
		}
		if items[1] != nil || items[2] != true || items[3] != false || items[4] != 0.5 || items[5] != int64(-7) {
			t.Errorf("protocol %d: scalars %#v", p, items[1:6])
		}
		if big, ok := items[6].(*big.Int); !ok || big.String() != "-1180591620717411303424" {
			t.Errorf("protocol %d: -(1<<70) decoded as %#v", p, items[6])
		}
		if tup, ok := items[7].(Tuple); !ok || len(tup) != 3 || tup[2] != int64(3) {
			t.Errorf("protocol %d: tuple %#v", p, items[7])
		}
		if set, ok := items[8].(*List); !ok || len(set.Items) != 1 || set.Items[0] != int64(4) {
			t.Errorf("protocol %d: frozenset %#v", p, items[8])
		}
	}
}
