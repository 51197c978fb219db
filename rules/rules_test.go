package rules

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/oomdoc/oomdoc/fixtures"
	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
)

var kebab = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// specCulprits reads the culprit ids from the shared spec, when the
// checkout has it beside it (CI does).
func specCulprits(t *testing.T) []string {
	data, err := os.ReadFile(filepath.Join("..", "..", "shared", "spec", "culprits.md"))
	if err != nil {
		t.Skipf("spec not beside the checkout: %v", err)
	}
	var ids []string
	inTable := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "## Culprits") {
			inTable = true
			continue
		}
		if inTable && strings.HasPrefix(line, "## ") {
			break
		}
		if m := regexp.MustCompile(`^\| ([a-z-]+) \|`).FindStringSubmatch(line); inTable && m != nil && m[1] != "id" {
			ids = append(ids, m[1])
		}
	}
	return ids
}

// TestRegistry checks that every culprit has exactly one well-formed rule
// and a fixtures folder with a positive and a negative case, and that every
// culprit of the spec is covered.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	signalOwner := map[string]string{}
	var ids []string
	for _, r := range All() {
		switch {
		case !kebab.MatchString(r.ID):
			t.Errorf("%q: id must be kebab-case", r.ID)
		case seen[r.ID]:
			t.Errorf("%q: duplicate id", r.ID)
		case r.Title == "" || r.Doc == "" || r.Recognise == "" || r.Assess == nil || len(r.Signals) == 0:
			t.Errorf("%q: Title, Doc, Recognise, Signals and Assess are required", r.ID)
		case r.WouldDecide == "" || r.Capture == "":
			t.Errorf("%q: WouldDecide and Capture are required (they are shown when the culprit is only a guess)", r.ID)
		}
		seen[r.ID] = true
		ids = append(ids, r.ID)
		for _, s := range r.Signals {
			if !strings.HasPrefix(s.Name, r.ID+"/") {
				t.Errorf("%q: signal %q must be named %s/…", r.ID, s.Name, r.ID)
			}
			if signalOwner[s.Name] != "" {
				t.Errorf("%q: signal %q is declared twice (also by %s)", r.ID, s.Name, signalOwner[s.Name])
			}
			signalOwner[s.Name] = r.ID
		}
		logs, _ := filepath.Glob(filepath.Join("..", "fixtures", "culprits", r.ID, "*.log"))
		pos, neg := 0, 0
		for _, l := range logs {
			if strings.HasPrefix(filepath.Base(l), "not-") {
				neg++
			} else {
				pos++
			}
		}
		if pos == 0 || neg == 0 {
			t.Errorf("%q: fixtures/culprits/%s/ needs a positive case and a not-*.log negative case (has %d and %d)", r.ID, r.ID, pos, neg)
		}
	}
	if !sort.StringsAreSorted(ids) {
		t.Errorf("All() must list rules in id order: %v", ids)
	}
	dirs, _ := filepath.Glob(filepath.Join("..", "fixtures", "culprits", "*"))
	for _, d := range dirs {
		if !seen[filepath.Base(d)] {
			t.Errorf("fixtures/culprits/%s names no rule", filepath.Base(d))
		}
	}
	t.Run("spec", func(t *testing.T) {
		spec := specCulprits(t)
		if len(spec) < 10 {
			t.Fatalf("read only %d culprit ids from the spec", len(spec))
		}
		for _, id := range spec {
			if !seen[id] {
				t.Errorf("culprit %q of spec/culprits.md has no rule", id)
			}
		}
		if len(spec) != len(ids) {
			t.Errorf("spec lists %d culprits, the registry %d", len(spec), len(ids))
		}
	})
}

// TestCulpritFixtures runs the engine on every culprit fixture, first one
// culprit alone (as gitleaks validates a rule against its own true and
// false positives), then all together: a positive case must fire evidence
// for its culprit and rank it first; a not-*.log near miss must fire no
// evidence for it and may name it only as a low guess, never first.
func TestCulpritFixtures(t *testing.T) {
	cat := models.Load()
	logs, _ := filepath.Glob(filepath.Join("..", "fixtures", "culprits", "*", "*.log"))
	if len(logs) == 0 {
		t.Fatal("no culprit fixtures")
	}
	for _, path := range logs {
		id := filepath.Base(filepath.Dir(path))
		name := strings.TrimSuffix(filepath.Base(path), ".log")
		t.Run(id+"/"+name, func(t *testing.T) {
			res := parseLog(t, path)
			in := Input{Result: res, Catalog: cat}
			negative := strings.HasPrefix(name, "not-")
			c, ok := Lookup(id)
			if !ok {
				t.Fatalf("no culprit %s", id)
			}
			alone := Diagnose(in, []Culprit{c})
			fired := len(alone) > 0 && alone[0].Basis == BasisEvidence
			switch {
			case negative && fired:
				t.Errorf("alone, %s fires evidence on its near miss: %v", id, alone[0].Signals)
			case !negative && !fired:
				t.Errorf("alone, %s fires no evidence on its own case", id)
			}
			fs := Diagnose(in, All())
			var got []string
			for _, fd := range fs {
				got = append(got, fd.Culprit+"("+fd.Basis+")")
				if fd.Confidence < 0 || fd.Confidence > maxConfidence {
					t.Errorf("%s: confidence %v outside [0, %v]", fd.Culprit, fd.Confidence, maxConfidence)
				}
				for _, e := range fd.Evidence {
					if e.Line < 0 || e.Line > res.Lines {
						t.Errorf("%s: evidence line %d outside the input (%d lines)", fd.Culprit, e.Line, res.Lines)
					}
				}
				if negative && fd.Culprit == id && fd.Basis == BasisEvidence {
					t.Errorf("negative case names %s with evidence: %v", id, got)
				}
			}
			if negative {
				if len(fs) > 0 && fs[0].Culprit == id {
					t.Errorf("negative case names %s first: %v", id, got)
				}
				return
			}
			if len(fs) == 0 || fs[0].Culprit != id {
				t.Errorf("want %s first, got %v", id, got)
			}
		})
	}
}

// TestPriorCap: over every fixture, a finding without an evidence signal
// the weights support is a prior, at most PriorCap, and never ranked above
// a finding with evidence; every fired signal is declared by its culprit.
func TestPriorCap(t *testing.T) {
	cat := models.Load()
	w := committedWeights()
	for _, path := range fixtures.Paths(filepath.Join("..", "fixtures")) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := parser.Parse(f, filepath.Base(path))
		f.Close()
		if err != nil {
			continue // unreadable inputs are the parser's tests' business
		}
		prior := false
		for _, fd := range Diagnose(Input{Result: res, Catalog: cat}, All()) {
			c, _ := Lookup(fd.Culprit)
			for _, s := range fd.Signals {
				if _, ok := c.signal(s); !ok {
					t.Errorf("%s: %s fired undeclared signal %q", path, fd.Culprit, s)
				}
				if _, ok := w.Signal[s]; !ok {
					t.Errorf("%s: signal %q has no fitted weight (refit)", path, s)
				}
			}
			switch {
			case !supported(&c, fd.Signals, w) && (fd.Basis != BasisPrior || fd.Confidence > PriorCap):
				t.Errorf("%s: %s has no supported evidence but basis %q at %.2f", path, fd.Culprit, fd.Basis, fd.Confidence)
			case fd.Basis == BasisPrior:
				prior = true
			case prior:
				t.Errorf("%s: %s (evidence) ranked below a prior", path, fd.Culprit)
			}
		}
	}
}

// TestNoInputNoFinding: a log without failures gets no diagnosis.
func TestNoInputNoFinding(t *testing.T) {
	res, err := parser.Parse(strings.NewReader("epoch 1 loss 0.3\nall good\n"), "ok.log")
	if err != nil {
		t.Fatal(err)
	}
	if fs := Diagnose(Input{Result: res, Catalog: models.Load()}, All()); len(fs) != 0 {
		t.Errorf("findings for a clean log: %v", fs)
	}
}

func TestFactor(t *testing.T) {
	tests := []struct {
		name         string
		lo, hi, unit int64
		want         int64
		ok           bool
	}{
		{"Ovis 576 MiB, allocator-rounded", 576<<20 - 2<<20 + 1, 576<<20 + 5242, 65532 * 4, 2304, true},
		{"exact product", 24179 << 20, 24179 << 20, 262144 * 4, 24179, true},
		{"the top of the range is a multiple", 1000, 1001, 7, 143, true},
		{"range below one unit", 10, 12, 7, 1, false},
		{"unit larger than the range", 5, 6, 100, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := factor(tc.lo, tc.hi, tc.unit)
			if ok != tc.ok || ok && got != tc.want {
				t.Errorf("factor = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestDeviceSpelling(t *testing.T) {
	tests := []struct{ device, in, want string }{
		{"xpu", "print torch.cuda.memory_allocated()", "print torch.xpu.memory_allocated()"},
		{"mps", "torch.cuda.empty_cache()", "torch.mps.empty_cache()"},
		{"cuda", "torch.cuda.mem_get_info()", "torch.cuda.mem_get_info()"},
		{"", "nvidia-smi", "nvidia-smi"},
	}
	for _, tc := range tests {
		if got := deviceSpelling(tc.in, tc.device); got != tc.want {
			t.Errorf("deviceSpelling(%q, %q) = %q, want %q", tc.in, tc.device, got, tc.want)
		}
	}
}

// TestEvidenceOutranksAPriorOnAnotherFailure: a culprit with evidence on
// one failure of a log stays a finding when another failure of the same
// log fires only a prior for it, even a heavily weighted one.
func TestEvidenceOutranksAPriorOnAnotherFailure(t *testing.T) {
	res, err := parser.Parse(strings.NewReader("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB of which 1.25 GiB is free.\n"), "x.log")
	if err != nil || len(res.Events) == 0 {
		t.Fatalf("parse: %v, %d events", err, len(res.Events))
	}
	cs := All()
	a := assess(Input{Result: res, Catalog: models.Load()}, cs)
	k := -1
	for i := range cs {
		if cs[i].ID == "activations" {
			k = i
		}
	}
	w := committedWeights()
	w.Signal[actTrainFull] = w.Signal[actBackward] + 1 // the prior outweighs the evidence
	a.options = append(a.options[:0],
		option{culprit: k, finding: Finding{Culprit: "activations", Event: "e1", Signals: []string{actBackward}}},
		option{culprit: k, finding: Finding{Culprit: "activations", Event: "e2", Signals: []string{actTrainFull}}})
	for _, fd := range score(a, cs, w) {
		if fd.Culprit == "activations" && (fd.Basis != BasisEvidence || fd.Event != "e1") {
			t.Errorf("activations: basis %s from %s, want evidence from e1", fd.Basis, fd.Event)
		}
	}
}
