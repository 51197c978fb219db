// Command genlog writes a deterministic multi-rank training log ending in
// one CUDA OOM per rank, for benchmarks: genlog -size 1GiB -ranks 8 > big.log
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/oomdoc/oomdoc/bench/loggen"
	"github.com/oomdoc/oomdoc/parser"
)

func main() {
	size := flag.String("size", "128MiB", "body size before the final failures (e.g. 1GiB)")
	ranks := flag.Int("ranks", 8, "ranks that log and fail")
	seed := flag.Uint64("seed", 1, "random seed; the same seed gives the same log")
	shape := flag.String("shape", "", "write a benchmark shape instead: "+strings.Join(loggen.Shapes, ", "))
	count := flag.Int("n", 0, "the shape's count of failures, ranks or lines (0: its default)")
	flag.Parse()
	if *shape != "" {
		if err := loggen.WriteShape(os.Stdout, *shape, *count); err != nil {
			fmt.Fprintf(os.Stderr, "genlog: %v\n", err)
			os.Exit(1)
		}
		return
	}
	n, ok := parser.ParseSize(*size)
	if !ok {
		fmt.Fprintf(os.Stderr, "genlog: bad -size %q\n", *size)
		os.Exit(2)
	}
	if err := loggen.Write(os.Stdout, loggen.Options{Size: n, Ranks: *ranks, Seed: *seed}); err != nil {
		fmt.Fprintf(os.Stderr, "genlog: %v\n", err)
		os.Exit(1)
	}
}
