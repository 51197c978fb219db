package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/oomdoc/oomdoc/advice"
	"github.com/oomdoc/oomdoc/snapshot"
)

// TestMeasuredUntrusted: file and function names come from the pickle and
// are printed only sanitised, in every format.
func TestMeasuredUntrusted(t *testing.T) {
	evil := "\x1b[2J\x1b]8;;http://x\x07train.py"
	m := &snapshot.Measured{Source: "snapshot", Input: "x.pickle", ActiveBytes: 10, ReservedBytes: 10,
		Holders: []snapshot.Holder{{Bytes: 10, Blocks: 1, Kind: snapshot.KindWeights, Because: "from_pretrained\x1b[31m",
			Site: &snapshot.Frame{File: evil, Line: 3, Function: "f\r\n"}, Stack: []snapshot.Frame{}}}}
	rep := advice.Report{Inputs: []string{"x.pickle"}}
	o := Options{Width: 80, Measured: map[string]*snapshot.Measured{"x.pickle": m}}
	for _, f := range []string{FormatText, FormatMarkdown, FormatJSON} {
		var b bytes.Buffer
		if err := Write(&b, f, rep, o); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.ContainsAny(out, "\x1b\x07\r") {
			t.Errorf("%s: control characters reached the output:\n%q", f, out)
		}
		if !strings.Contains(out, "train.py") {
			t.Errorf("%s: the site is missing:\n%s", f, out)
		}
	}
}
