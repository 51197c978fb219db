package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"
)

// snapshotFixtures are the snapshots fixtures/snapshots/make_snapshots.py writes.
var snapshotFixtures = []string{"weights-load", "optimizer-step", "kv-cache-growth", "fragmented"}

// TestSnapshotGoldens pins the report of each snapshot fixture, read by the
// real CLI as `oomdoc x.pickle`, in text and JSON, beside the fixtures.
func TestSnapshotGoldens(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir(fixture("snapshots", "golden")), goldie.WithNameSuffix(".golden"))
	for _, name := range snapshotFixtures {
		for _, v := range []struct {
			suffix string
			flags  []string
		}{
			{"txt", []string{"--color=never", "--width=100"}},
			{"md", []string{"--format=markdown"}},
			{"json", []string{"--format=json"}},
		} {
			t.Run(name+"/"+v.suffix, func(t *testing.T) {
				r := runWith(t, "", append(v.flags, fixture("snapshots", name+".pickle"))...)
				if r.code != 0 || r.stderr != "" {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
				g.Assert(t, name+"."+v.suffix, []byte(r.stdout))
			})
		}
	}
}

// TestBadSnapshot: a truncated or hostile pickle is one line on stderr and
// exit 3; the log inputs beside it are still reported.
func TestBadSnapshot(t *testing.T) {
	b, err := os.ReadFile(fixture("snapshots", "weights-load.pickle"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.pickle")
	evil := filepath.Join(dir, "evil.pkl")
	notpickle := filepath.Join(dir, "notes.pickle")
	for p, data := range map[string][]byte{
		cut:       b[:len(b)/2],
		evil:      []byte("\x80\x02cos\nsystem\nX\x02\x00\x00\x00ls\x85R."),
		notpickle: []byte("hello\n"),
	} {
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ path, want string }{
		{cut, "truncated"},
		{evil, `names "os.system"`},
		{notpickle, "not a readable memory snapshot"},
	} {
		r := runWith(t, "", tc.path, fixture("formats", "no-failure.log"))
		if r.code != exitInput || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 3 and one line with %q", filepath.Base(tc.path), r.code, r.stderr, tc.want)
		}
		if !strings.Contains(r.stdout, "no-failure.log") {
			t.Errorf("%s: the readable input was not reported:\n%s", filepath.Base(tc.path), r.stdout)
		}
	}
}

// TestSnapshotOnStdin reads a snapshot piped in (one pass, no seeking).
func TestSnapshotOnStdin(t *testing.T) {
	b, err := os.ReadFile(fixture("snapshots", "fragmented.pickle"))
	if err != nil {
		t.Fatal(err)
	}
	r := runWith(t, string(b), "--color=never", "--width=100")
	want := runWith(t, "", "--color=never", "--width=100", fixture("snapshots", "fragmented.pickle"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := strings.ReplaceAll(r.stdout, "memory snapshot -,", "memory snapshot fragmented.pickle,")
	got = strings.ReplaceAll(got, "where     -:0", "where     "+fixture("snapshots", "fragmented.pickle")+":0")
	if got != want.stdout {
		t.Errorf("stdin report differs from the file's:\n%s\n---\n%s", r.stdout, want.stdout)
	}
}
