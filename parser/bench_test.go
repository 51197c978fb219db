package parser

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/oomdoc/oomdoc/bench/loggen"
)

var largeLog = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	if err := loggen.Write(&b, loggen.Options{Size: 32 << 20, Ranks: 8, Seed: 1}); err != nil {
		panic(err)
	}
	return b.Bytes()
})

// BenchmarkParsePaste parses a ~4 KB pasted traceback (the Ovis reference
// case): the interactive case, where the whole run should take milliseconds.
func BenchmarkParsePaste(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "fixtures", "reference", "ovis2.5-2b-visual-softmax.log"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(data), "paste.log"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseLarge parses a 32 MiB generated 8-rank training log with
// progress bars, logger lines and warnings, ending in one OOM per rank.
func BenchmarkParseLarge(b *testing.B) {
	data := largeLog()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Parse(bytes.NewReader(data), "large.log")
		if err != nil || len(res.Events) != 8 {
			b.Fatalf("%v events, err %v", len(res.Events), err)
		}
	}
}

// BenchmarkShapes parses the linear-time shapes of bench/loggen (issue 15
// §1): repeated identical failures, many distinct ones, many ranks,
// escape-heavy JSON lines, every line anchored, a real training run.
func BenchmarkShapes(b *testing.B) {
	for _, name := range loggen.Shapes {
		n := 0
		if name == "anchored" {
			n = 1 << 18
		}
		var buf bytes.Buffer
		if err := loggen.WriteShape(&buf, name, n); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Parse(bytes.NewReader(data), name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
