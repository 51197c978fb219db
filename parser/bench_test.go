package parser

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

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

// BenchmarkPrefilter times the block prefilter alone — the search for the
// lines that hold a block key, block by block — on the training shape,
// beside a grep-like baseline on the same bytes (bytes.Count of "out of
// memory", one memchr-driven pass): ratio is the prefilter's time over the
// baseline's, measured side by side in one run, so that it reads the same
// on a loaded machine. Issue 11 asks the whole read to stay within 2× grep.
func BenchmarkPrefilter(b *testing.B) {
	var buf bytes.Buffer
	if err := loggen.WriteShape(&buf, "training", 100000); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	tables := prefilterTables()
	var p preparedBlock
	scan := func() (hits int) {
		for lo := 0; lo < len(data); {
			hi := min(lo+blockSize, len(data))
			if nl := bytes.LastIndexByte(data[lo:hi], '\n'); hi < len(data) && nl >= 0 {
				hi = lo + nl + 1
			}
			p.prepare(data[lo:hi], tables, false)
			hits += len(p.hits)
			lo = hi
		}
		return hits
	}
	grep := func() int { return bytes.Count(data, []byte("out of memory")) }
	b.SetBytes(int64(len(data)))
	var scanT, grepT time.Duration
	for b.Loop() {
		t0 := time.Now()
		scan()
		scanT += time.Since(t0)
		b.StopTimer() // ns/op and MB/s are the prefilter's alone
		t1 := time.Now()
		grep()
		grepT += time.Since(t1)
		b.StartTimer()
	}
	b.ReportMetric(float64(scanT)/float64(grepT), "ratio")
}
