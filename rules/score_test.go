package rules

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
)

type corpusLabel struct {
	RootCause  string   `json:"root_cause"`
	Acceptable []string `json:"acceptable_causes"`
}

// TestCorpusScore scores the rules on the labelled corpus: the first
// diagnosis must be the label's root cause or an acceptable cause in at
// least 80% of cases, and one of the first three in at least 95%. The
// figures are printed; the threshold is the acceptance bar.
func TestCorpusScore(t *testing.T) {
	labels, _ := filepath.Glob(filepath.Join("..", "fixtures", "corpus", "*.json"))
	if len(labels) == 0 {
		t.Fatal("no labelled corpus")
	}
	cat := models.Load()
	top1, top3 := 0, 0
	for _, lf := range labels {
		var lb corpusLabel
		data, err := os.ReadFile(lf)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &lb); err != nil {
			t.Fatal(err)
		}
		ok := map[string]bool{lb.RootCause: true}
		for _, a := range lb.Acceptable {
			ok[a] = true
		}
		logf, err := os.Open(strings.TrimSuffix(lf, ".json") + ".log")
		if err != nil {
			t.Fatal(err)
		}
		res, err := parser.Parse(logf, filepath.Base(logf.Name()))
		logf.Close()
		if err != nil {
			t.Fatal(err)
		}
		fs := Diagnose(Input{Result: res, Catalog: cat}, All())
		var got []string
		hit1, hit3 := false, false
		for i, fd := range fs {
			got = append(got, fd.Culprit)
			if ok[fd.Culprit] {
				hit1 = hit1 || i == 0
				hit3 = hit3 || i < 3
			}
		}
		if hit1 {
			top1++
		}
		if hit3 {
			top3++
		}
		if !hit1 {
			t.Logf("%s: want %s %v, got %v", filepath.Base(lf), lb.RootCause, lb.Acceptable, got)
		}
	}
	n := len(labels)
	t.Logf("corpus score: first diagnosis right %d/%d (%.0f%%), in the first three %d/%d (%.0f%%)", top1, n, 100*float64(top1)/float64(n), top3, n, 100*float64(top3)/float64(n))
	if top1*100 < 80*n {
		t.Errorf("first diagnosis right in %d/%d cases, below 80%%", top1, n)
	}
	if top3*100 < 95*n {
		t.Errorf("right within the first three in %d/%d cases, below 95%%", top3, n)
	}
}
