package main

import (
	"path/filepath"
	"testing"

	"github.com/oomdoc/oomdoc/fixtures"
)

// TestDeterministicReports runs every fixture twice in each format and
// compares the outputs byte for byte: no map order, clock or scheduling
// reaches a report. Under the race detector (CI runs it so) every eighth
// fixture is taken, to keep the time small.
func TestDeterministicReports(t *testing.T) {
	paths := fixtures.Paths(filepath.Join("..", "..", "fixtures"))
	step := 1
	if raceEnabled || testing.Short() {
		step = 8
	}
	n := 0
	for i := 0; i < len(paths); i += step {
		p := paths[i]
		for _, format := range []string{"text", "markdown", "json"} {
			args := []string{"--format", format, "--color=never", "--width=80", p}
			a, b := runWith(t, "", args...), runWith(t, "", args...)
			if a != b {
				t.Errorf("%s, %s: two runs differ\nfirst:\n%.400s\nsecond:\n%.400s", p, format, a.stdout+a.stderr, b.stdout+b.stderr)
			}
			n++
		}
	}
	t.Logf("%d inputs × formats compared", n)
}
