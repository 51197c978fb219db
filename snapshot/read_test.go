package snapshot

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// expectation is what make_snapshots.py computed from the structure it
// pickled, independently of this package.
type expectation struct {
	Device      int              `json:"device"`
	Active      int64            `json:"active_bytes"`
	Allocated   int64            `json:"allocated_bytes"`
	Reserved    int64            `json:"reserved_bytes"`
	Inactive    int64            `json:"inactive_bytes"`
	LargestFree int64            `json:"largest_free_block_bytes"`
	OOM         *OOM             `json:"oom"`
	BytesByKind map[string]int64 `json:"bytes_by_kind"`
}

func snapshotsDir(parts ...string) string {
	return filepath.Join(append([]string{"..", "fixtures", "snapshots"}, parts...)...)
}

func loadExpect(t *testing.T, path string) expectation {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var e expectation
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// check compares a Measured with the script's own totals.
func check(t *testing.T, m *Measured, e expectation) {
	t.Helper()
	if m.Device != e.Device || m.ActiveBytes != e.Active || m.AllocatedBytes != e.Allocated || m.ReservedBytes != e.Reserved ||
		m.InactiveBytes != e.Inactive || m.LargestFreeBlockBytes != e.LargestFree {
		t.Errorf("totals: got device %d active %d allocated %d reserved %d inactive %d largest free %d; want %+v",
			m.Device, m.ActiveBytes, m.AllocatedBytes, m.ReservedBytes, m.InactiveBytes, m.LargestFreeBlockBytes, e)
	}
	switch {
	case (m.OOM == nil) != (e.OOM == nil):
		t.Errorf("oom: got %v, want %v", m.OOM, e.OOM)
	case m.OOM != nil && (m.OOM.RequestedBytes != e.OOM.RequestedBytes || *m.OOM.DeviceFreeBytes != *e.OOM.DeviceFreeBytes):
		t.Errorf("oom: got %d requested, %d free; want %d, %d", m.OOM.RequestedBytes, *m.OOM.DeviceFreeBytes, e.OOM.RequestedBytes, *e.OOM.DeviceFreeBytes)
	}
	got := map[string]int64{}
	for _, h := range m.Holders {
		got[h.Kind] += h.Bytes
	}
	if m.OmittedHolders > 0 {
		t.Fatalf("%d holders omitted; the fixtures should list all", m.OmittedHolders)
	}
	for k, want := range e.BytesByKind {
		if got[k] != want {
			t.Errorf("kind %s: got %d bytes, want %d", k, got[k], want)
		}
	}
	for k, n := range got {
		if _, ok := e.BytesByKind[k]; !ok {
			t.Errorf("kind %s: got %d bytes, want none", k, n)
		}
	}
}

// TestFixtures reads each snapshot twice — from a file (two passes, trace
// entries dropped) and from a plain reader (one pass, everything kept) —
// and compares both with the script's totals.
func TestFixtures(t *testing.T) {
	for _, name := range []string{"weights-load", "optimizer-step", "kv-cache-growth", "fragmented"} {
		t.Run(name, func(t *testing.T) {
			e := loadExpect(t, snapshotsDir(name+".expect.json"))
			f, err := os.Open(snapshotsDir(name + ".pickle"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m, err := Read(f, name+".pickle", ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			check(t, m, e)
			b, err := os.ReadFile(snapshotsDir(name + ".pickle"))
			if err != nil {
				t.Fatal(err)
			}
			m2, err := Read(bytes.NewBuffer(b), name+".pickle", ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			check(t, m2, e)
		})
	}
}

// TestProtocols reads one snapshot pickled in every protocol, 0 to 5.
func TestProtocols(t *testing.T) {
	e := loadExpect(t, snapshotsDir("protocols", "expect.json"))
	for p := 0; p <= 5; p++ {
		path := snapshotsDir("protocols", "p"+string(rune('0'+p))+".pickle")
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Read(f, path, ReadOptions{})
		f.Close()
		if err != nil {
			t.Fatalf("protocol %d: %v", p, err)
		}
		check(t, m, e)
	}
}

// TestLegacy reads the format before PyTorch 2.1 (stacks in each block's
// history) and torch.cuda.memory_snapshot()'s bare segment list, which has
// no trace and so no failure.
func TestLegacy(t *testing.T) {
	e := loadExpect(t, snapshotsDir("legacy", "expect.json"))
	for _, name := range []string{"history", "segments-only"} {
		f, err := os.Open(snapshotsDir("legacy", name+".pickle"))
		if err != nil {
			t.Fatal(err)
		}
		m, err := Read(f, name, ReadOptions{})
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := e
		if name == "segments-only" {
			want.OOM = nil
		}
		check(t, m, want)
	}
}
