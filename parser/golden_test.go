package parser

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/oomdoc/oomdoc/fixtures"
)

// TestGoldenEvents pins the events and context extracted from every
// fixture (fixtures/<dir>/golden/<name>.events.golden). Update with
// GOLDIE_UPDATE=1 go test ./parser -run TestGoldenEvents and review the diff.
func TestGoldenEvents(t *testing.T) {
	for _, path := range fixtures.Paths(filepath.Join("..", "fixtures")) {
		dir, base := filepath.Split(path)
		t.Run(strings.TrimPrefix(path, "../fixtures/"), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			res, err := Parse(f, base)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(res); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			g := goldie.New(t, goldie.WithFixtureDir(filepath.Join(dir, "golden")), goldie.WithNameSuffix(".events.golden"))
			g.Assert(t, base, got)
		})
	}
}
