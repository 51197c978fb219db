package snapshot

import (
	"os"
	"testing"
)

// TestLarge reads the snapshot named by OOMDOC_LARGE_SNAPSHOT (see
// make_snapshots.py --large); skipped without it.
func TestLarge(t *testing.T) {
	path := os.Getenv("OOMDOC_LARGE_SNAPSHOT")
	if path == "" {
		t.Skip("OOMDOC_LARGE_SNAPSHOT not set")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := Read(f, path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d holders, active %d", len(m.Holders), m.ActiveBytes)
}
