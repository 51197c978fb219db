package render

import (
	"bytes"
	"encoding/json"
	"errors"
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

// pipeline runs parse → rules → advice → every renderer on data and checks
// the invariants every report must keep.
func pipeline(t testing.TB, cat models.Catalog, data []byte) {
	res, err := parser.Parse(bytes.NewReader(data), "in.log")
	if err != nil && !errors.Is(err, parser.ErrBinary) {
		t.Fatalf("parse: %v", err)
	}
	rep := advice.Build(rules.Input{Result: res, Catalog: cat})
	var js bytes.Buffer
	if err := JSON(&js, rep); err != nil {
		t.Fatalf("json: %v", err)
	}
	var decoded map[string]any
	if err := json.Unmarshal(js.Bytes(), &decoded); err != nil {
		t.Fatalf("invalid JSON: %v", err)
	}
	if decoded["schema"] != advice.Schema {
		t.Fatalf("schema = %v", decoded["schema"])
	}
	for _, color := range []bool{false, true} {
		var txt bytes.Buffer
		if err := Text(&txt, rep, Options{Color: color, Width: 80}); err != nil {
			t.Fatalf("text: %v", err)
		}
		if !color && strings.ContainsAny(txt.String(), "\x1b\x07") {
			t.Fatalf("escape sequence in the plain text report")
		}
	}
	var md bytes.Buffer
	if err := Markdown(&md, rep); err != nil {
		t.Fatalf("markdown: %v", err)
	}
	if strings.ContainsAny(md.String(), "\x1b\x07\x08") {
		t.Fatalf("control character in the Markdown report")
	}
	for _, d := range rep.Diagnoses {
		if d.Confidence <= 0 || d.Confidence > 1 {
			t.Fatalf("confidence %v", d.Confidence)
		}
		for _, fx := range d.Fixes {
			if fx.SavesBytes != nil && *fx.SavesBytes <= 0 {
				t.Fatalf("fix %s saves %d bytes", fx.ID, *fx.SavesBytes)
			}
		}
	}
}

// FuzzPipeline runs the whole pipeline on arbitrary input, seeded with
// every fixture.
func FuzzPipeline(f *testing.F) {
	for _, p := range fixtures.Paths(filepath.Join("..", "fixtures")) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	cat := models.Load()
	f.Fuzz(func(t *testing.T, data []byte) { pipeline(t, cat, data) })
}

// TestEveryPrefix cuts each reference fixture, and a spread of real logs,
// at every byte offset and runs the whole pipeline on each prefix.
func TestEveryPrefix(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of pipeline runs")
	}
	cat := models.Load()
	files, _ := filepath.Glob(filepath.Join("..", "fixtures", "reference", "*.log"))
	for _, id := range []string{"trn-034", "inf-028", "inf-036", "trn-004"} {
		files = append(files, filepath.Join("..", "fixtures", "corpus", id+".log"))
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n <= len(data); n++ {
			pipeline(t, cat, data[:n])
		}
	}
}
