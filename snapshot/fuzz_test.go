package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzSnapshot feeds arbitrary bytes to Read, seekable and not, under small
// limits: it must return a result or an error, never panic, and a result
// must add up.
func FuzzSnapshot(f *testing.F) {
	paths, _ := filepath.Glob(snapshotsDir("protocols", "*.pickle"))
	small, _ := filepath.Glob(snapshotsDir("weights-load.pickle"))
	for _, p := range append(paths, small...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	lim := Limits{MaxInputBytes: 1 << 20, MaxValueBytes: 16 << 20, MaxMarks: 64}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, seek := range []bool{true, false} {
			var r = bytes.NewReader(b)
			var m *Measured
			var err error
			if seek {
				m, err = Read(r, "f", ReadOptions{Limits: lim})
			} else {
				m, err = Read(onlyReader{r}, "f", ReadOptions{Limits: lim})
			}
			if err != nil {
				continue
			}
			var sum int64
			for _, h := range m.Holders {
				sum += h.Bytes
			}
			if sum+m.OmittedBytes != m.ActiveBytes {
				t.Fatalf("holders add to %d + %d omitted, active is %d", sum, m.OmittedBytes, m.ActiveBytes)
			}
			if m.LargestFreeBlockBytes > m.InactiveBytes {
				t.Fatalf("largest free block %d > inactive %d", m.LargestFreeBlockBytes, m.InactiveBytes)
			}
		}
	})
}
