package render

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/oomdoc/oomdoc/advice"
	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/rules"
)

// BenchmarkPastePipeline runs what a pasted traceback costs inside the
// process — parse, rules, advice and the text report — on the Ovis
// reference case. Its time beside bench/run.sh's process-start-to-exit
// figure splits a paste's latency into start-up and analysis. The model
// catalogue is loaded in every round, as each process does.
func BenchmarkPastePipeline(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "fixtures", "reference", "ovis2.5-2b-visual-softmax.log"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := parser.Parse(bytes.NewReader(data), "paste.log")
		if err != nil {
			b.Fatal(err)
		}
		rep := advice.Build(rules.Input{Result: res, Catalog: models.Load()})
		if err := Text(io.Discard, rep, Options{Width: 80}); err != nil {
			b.Fatal(err)
		}
	}
}
