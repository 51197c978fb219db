package parser

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// hardWrap wraps every line of s at width columns on spaces, as a forum,
// an e-mail or a narrow terminal does to a pasted log.
func hardWrap(s string, width int) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		for len(l) > width {
			cut := strings.LastIndexByte(l[:width], ' ')
			if cut <= 0 {
				cut = width
			}
			b.WriteString(l[:cut])
			b.WriteByte('\n')
			l = strings.TrimLeft(l[cut:], " ")
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestCorpusWrapped: every corpus log hard-wrapped at 80 and at 120
// columns gives its first event the same kind, device and figures as the
// log as posted (issue 11 §2: messages reshaped by the paste).
func TestCorpusWrapped(t *testing.T) {
	logs, _ := filepath.Glob(filepath.Join("..", "fixtures", "corpus", "*.log"))
	type figures struct {
		Kind                                     string
		Device                                   *Device
		Requested, Total, Free, Allocated, Unall *int64
	}
	first := func(r *Result) *figures {
		if len(r.Events) == 0 {
			return nil
		}
		ev := r.Events[0]
		return &figures{ev.Kind, ev.Device, ev.RequestedBytes, ev.TotalBytes, ev.FreeBytes, ev.AllocatedBytes, ev.ReservedUnallocatedBytes}
	}
	for _, path := range logs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		posted, _ := Parse(strings.NewReader(string(data)), "x")
		want := first(posted)
		for _, width := range []int{80, 120} {
			got, _ := Parse(strings.NewReader(hardWrap(string(data), width)), "x")
			if g := first(got); !reflect.DeepEqual(g, want) {
				t.Errorf("%s wrapped at %d: first event %+v, as posted %+v", filepath.Base(path), width, g, want)
			}
		}
	}
}
