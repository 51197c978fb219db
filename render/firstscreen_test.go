package render

import (
	"bytes"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oomdoc/oomdoc/advice"
	"github.com/oomdoc/oomdoc/fixtures"
	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/rules"
)

// TestFirstScreenActs renders every fixture and corpus log at 100 columns
// and checks what the first 12 lines hold (issue 12 §6): the verdict with
// its shortfall; the cause with its confidence and the first fix with its
// saving and its whole snippet — or, when the log does not decide the
// cause, the hedge with what it could be; never "Most likely", and never
// the raw message re-printed.
func TestFirstScreenActs(t *testing.T) {
	var reports, fixes int
	for path, rep := range fixtureReports(t) {
		if len(rep.Events) == 0 {
			continue
		}
		reports++
		var b bytes.Buffer
		if err := Text(&b, rep, Options{Width: 100}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(b.String(), "\n")
		screen := strings.Join(lines[:min(12, len(lines))], "\n")
		flat := strings.Join(strings.Fields(screen), " ")
		fail := func(format string, a ...any) {
			t.Helper()
			t.Errorf("%s: "+format+"\n%s", append([]any{path}, append(a, screen)...)...)
		}
		if !strings.HasPrefix(screen, "✗ ") {
			fail("no verdict first")
		}
		if rep.ShortBytes != nil && !strings.Contains(flat, "short by "+parser.FormatSize(*rep.ShortBytes)) && !strings.Contains(flat, "more than the device's") {
			fail("no shortfall, nor a request above the whole device")
		}
		if strings.Contains(screen, "Most likely") {
			fail("says Most likely")
		}
		if msg := strings.Join(strings.Fields(rep.Events[0].Message), " "); len(msg) > 60 && strings.Contains(flat, msg[:60]) {
			fail("re-prints the raw message")
		}
		if !rep.Decided {
			switch {
			case rep.Events[0].RequestOverflow:
				if !strings.Contains(screen, "Not a memory shortage") || len(rep.Diagnoses) > 0 {
					fail("a request no device holds is not called a size bug, or gets culprits")
				}
			case !strings.Contains(screen, "Cause not decided by this log") && !strings.Contains(screen, "Cause unknown"):
				fail("no hedge for an undecided cause")
			}
			if len(rep.Diagnoses) > 0 && !strings.Contains(screen, "Could be: ") {
				fail("no could-be list")
			}
			continue
		}
		d := rep.Diagnoses[0]
		if !strings.Contains(screen, "Cause: "+d.Culprit+" (") {
			fail("no cause with confidence")
		}
		fx, ok := firstFix(rep)
		if !ok {
			continue
		}
		fixes++
		if !strings.Contains(flat, strings.Join(strings.Fields(fx.Title), " ")) {
			fail("first fix %s not shown", fx.ID)
		}
		if fx.SavesBytes != nil && !strings.Contains(flat, "saves ≈"+parser.FormatSize(*fx.SavesBytes)) {
			fail("first fix without its saving")
		}
		for _, l := range strings.Split(fx.Snippet, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.Contains(screen, l) {
				fail("snippet line %q of %s below the first screen", l, fx.ID)
				break
			}
		}
	}
	t.Logf("%d reports, %d with a decided cause and a fix", reports, fixes)
}

// fixtureReports yields the report of every fixture and corpus log.
func fixtureReports(t *testing.T) iter.Seq2[string, advice.Report] {
	cat := models.Load()
	return func(yield func(string, advice.Report) bool) {
		for _, path := range fixtures.Paths(filepath.Join("..", "fixtures")) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			res, _ := parser.Parse(f, filepath.Base(path))
			f.Close()
			if !yield(path, advice.Build(rules.Input{Result: res, Catalog: cat})) {
				return
			}
		}
	}
}
