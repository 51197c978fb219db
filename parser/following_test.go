package parser

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/oomdoc/oomdoc/fixtures"
)

// TestFollowingLines: the lines printed after a failure are quoted on the
// event, up to the next failure, with their line numbers: here the
// traceback of a message-first paste.
func TestFollowingLines(t *testing.T) {
	log := oomLine + "Traceback (most recent call last):\n  File \"/app/train.py\", line 9, in <module>\n    loss.backward()\n\nERROR: worker 3 exited\n"
	res, err := Parse(strings.NewReader(log), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 {
		t.Fatalf("%d events", len(res.Events))
	}
	want := []Span{{2, "Traceback (most recent call last):"}, {3, `File "/app/train.py", line 9, in <module>`}, {4, "loss.backward()"}, {6, "ERROR: worker 3 exited"}}
	if got := res.Events[0].Following; !reflect.DeepEqual(got, want) {
		t.Errorf("following %v, want %v", got, want)
	}
	two := oomLine + "next line\n" + strings.Replace(oomLine, "2.00 GiB", "4.00 GiB", 1) + "after\n"
	res, _ = Parse(strings.NewReader(two), "x")
	if len(res.Events) != 2 || len(res.Events[0].Following) != 1 || res.Events[0].Following[0].Text != "next line" {
		t.Errorf("the first event's quote must stop at the second failure: %+v", res.Events)
	}
}

// TestFollowingFastEqualsFull: the quoted following lines are the same in
// a fast read and a full read of every fixture, and after 5,000 lines of
// noise.
func TestFollowingFastEqualsFull(t *testing.T) {
	noise := bytes.Repeat([]byte("step 1 loss 0.5 lr 0.0003 grad_norm 1.2 tokens/s 41234\n"), 5000)
	for _, path := range fixtures.Paths(filepath.Join("..", "fixtures")) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) || isNotebook(data, path) {
			continue
		}
		for _, in := range [][]byte{data, append(append([]byte{}, noise...), data...)} {
			fast, _ := Parse(bytes.NewReader(in), "x")
			slow, _ := parseLines(bytes.NewReader(in), "x", true)
			for i := range fast.Events {
				if i < len(slow.Events) && !reflect.DeepEqual(fast.Events[i].Following, slow.Events[i].Following) {
					t.Errorf("%s: event %d follows %v in a fast read, %v in a full one", path, i, fast.Events[i].Following, slow.Events[i].Following)
				}
			}
		}
	}
}
