package advice

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/oomdoc/oomdoc/fixtures"
	"github.com/oomdoc/oomdoc/rules"
)

// rawLines reads a fixture's lines as the parser numbers them (a .gz is
// read decompressed); ok is false for a notebook, whose numbering is that
// of the extracted outputs.
func rawLines(t *testing.T, path string) ([]string, bool) {
	if strings.HasSuffix(path, ".ipynb") {
		return nil, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r io.Reader = bytes.NewReader(data)
	if len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out, true
}

var reLineMention = regexp.MustCompile(`(?i)\bline (\d+)\b`)

// A claim is one piece of report text with the lines it cites.
type claim struct {
	where string
	text  string
	cites []fact
}

// claimsOf lists the report's advice text with its citations.
func claimsOf(rep Report) []claim {
	var out []claim
	for _, d := range rep.Diagnoses {
		for _, fx := range d.Fixes {
			out = append(out, claim{"fix " + fx.ID, strings.Join([]string{fx.Title, fx.Why, fx.Saving, fx.Snippet, fx.Note, fx.Caveat}, "\n"), fx.cites})
		}
	}
	for _, x := range rep.Ineffective {
		c := claim{where: "won't-help " + x.ID, text: x.Title + "\n" + x.Why}
		if x.Line > 0 {
			c.cites = []fact{{Line: x.Line, Token: x.Token}}
		}
		out = append(out, c)
	}
	for _, c := range rep.Capture {
		out = append(out, claim{where: "capture", text: c})
	}
	return out
}

// TestEveryClaimCitesItsLine walks every fixture and corpus log: every
// "line N" the advice names is one of its citations, every cited line holds
// the word the claim is about, and a claim about what the user did never
// cites PyTorch's own hint or documentation text.
func TestEveryClaimCitesItsLine(t *testing.T) {
	cited := 0
	for _, path := range fixtures.Paths(filepath.Join("..", "fixtures")) {
		rep := build(t, path, rules.Hints{})
		lines, readable := rawLines(t, path)
		evLine := map[int]bool{}
		for _, ev := range rep.Events {
			evLine[ev.Line] = true
		}
		for _, c := range claimsOf(rep) {
			have := map[int]bool{}
			for _, f := range c.cites {
				have[f.Line] = true
			}
			for _, m := range reLineMention.FindAllStringSubmatch(c.text, -1) {
				if n, _ := strconv.Atoi(m[1]); !have[n] {
					t.Errorf("%s: %s names line %d without citing it: %q", path, c.where, n, c.text)
				}
			}
			for _, f := range c.cites {
				cited++
				if f.Token == "" {
					t.Errorf("%s: %s cites line %d without the word it is about", path, c.where, f.Line)
					continue
				}
				if !readable {
					continue
				}
				if f.Line < 1 || f.Line > len(lines) {
					t.Errorf("%s: %s cites line %d of %d", path, c.where, f.Line, len(lines))
					continue
				}
				raw := lines[f.Line-1]
				if !strings.Contains(strings.ToLower(raw), strings.ToLower(f.Token)) {
					t.Errorf("%s: %s cites line %d for %q, which it does not hold: %q", path, c.where, f.Line, f.Token, clip(raw))
				}
				if !evLine[f.Line] && isHintText(raw) {
					t.Errorf("%s: %s cites PyTorch's own hint text at line %d: %q", path, c.where, f.Line, clip(raw))
				}
			}
		}
		for _, x := range rep.Ineffective {
			if x.Tried && evLine[x.Line] {
				t.Errorf("%s: won't-help %s says the user tried it, citing the failure message (line %d)", path, x.ID, x.Line)
			}
		}
	}
	if cited < 10 {
		t.Errorf("only %d citations over every fixture: the test checks too little", cited)
	}
	t.Logf("%d citations checked", cited)
}

func clip(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}

// TestHintTextIsNeverTheUsersSetting: the PyTorch 2.x message's own
// "try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True … (…cuda.html
// #environment-variables)" never reads as the user setting it, in any
// fixture; the one fixture that sets it from Python is named.
func TestHintTextIsNeverTheUsersSetting(t *testing.T) {
	for _, path := range fixtures.Paths(filepath.Join("..", "fixtures")) {
		rep := build(t, path, rules.Hints{})
		for _, x := range rep.Ineffective {
			if x.ID == "alloc-conf-in-python" && !strings.Contains(path, "context-nvidia-smi-summary-alloc-conf") {
				t.Errorf("%s: %s", path, x.Why)
			}
		}
	}
	rep := build(t, filepath.Join("..", "fixtures", "formats", "context-nvidia-smi-summary-alloc-conf.log"), rules.Hints{})
	if _, ok := ineffectiveIDs(rep)["alloc-conf-in-python"]; !ok {
		t.Errorf("os.environ[\"PYTORCH_CUDA_ALLOC_CONF\"] at line 20 is not reported: %v", rep.Ineffective)
	}
}
