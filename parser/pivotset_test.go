package parser

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// refCandidates is the set's candidates, one byte at a time.
func refCandidates(p *pivotSet, b []byte) []uint32 {
	var out []uint32
	for i := range b {
		if p.candidate(b, i) {
			out = append(out, uint32(i))
		}
	}
	return out
}

// allCandidates runs candidates over b with an out buffer of size room,
// and checks the newlines it counts.
func allCandidates(t testing.TB, p *pivotSet, b []byte, room int) []uint32 {
	var got []uint32
	buf := make([]uint32, room)
	newlines := 0
	defer func() {
		if want := bytes.Count(b, []byte("\n")); newlines != want {
			t.Fatalf("%d newlines counted in %d bytes, want %d", newlines, len(b), want)
		}
	}()
	for pos := 0; pos < len(b); {
		n, scanned, nls := p.candidates(b[pos:], buf)
		newlines += nls
		for _, c := range buf[:n] {
			got = append(got, uint32(pos)+c)
		}
		pos += scanned
	}
	return got
}

// TestPivotSetCandidates: the vector kernel reports exactly the bytes the
// tables admit, at every length and alignment and with out filling up, for
// the parser's own groups and for random pivot sets (more than eight high
// nibbles among them, so that buckets merge).
func TestPivotSetCandidates(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sets := []*pivotSet{buildPivotSet(prefilterTables().groups, hasVectorScan())}
	for range 20 {
		var groups []keyGroup
		for range 1 + rng.IntN(15) {
			c := byte(rng.IntN(256))
			groups = append(groups, keyGroup{pivot: c, keys: [][]byte{{c}}, offs: []int{0}})
		}
		sets = append(sets, buildPivotSet(groups, hasVectorScan()))
	}
	for si, p := range sets {
		for _, size := range []int{0, 1, 31, 32, 33, 63, 64, 65, 1000, 4099} {
			b := make([]byte, size)
			for i := range b {
				b[i] = byte(rng.IntN(256))
				if rng.IntN(8) == 0 {
					b[i] = '\n'
				}
			}
			want := refCandidates(p, b)
			for _, room := range []int{32, 33, 100, 5000} {
				if got := allCandidates(t, p, b, room); !slices.Equal(got, want) {
					t.Fatalf("set %d, %d bytes, room %d: got %d candidates %v…, want %d", si, size, room, len(got), got[:min(8, len(got))], len(want))
				}
			}
		}
	}
}

// TestPivotSetAdmitsEveryPivot: every group's pivot is a member, and a
// byte no group pivots on has no groups.
func TestPivotSetAdmitsEveryPivot(t *testing.T) {
	groups := prefilterTables().groups
	p := buildPivotSet(groups, false)
	for _, g := range groups {
		if p.pivotBits[g.pivot] == 0 || p.groupsOf[g.pivot] == 0 {
			t.Errorf("pivot %q is not in the set", g.pivot)
		}
		for j, k := range g.keys {
			if i := g.offs[j]; i+1 < len(k) && p.pivotBits[g.pivot]&p.followBits[k[i+1]] == 0 {
				t.Errorf("key %q: %q after its pivot is not admitted", k, k[i+1])
			}
		}
	}
}

// TestPivotSetEqualsPasses: one pass with the set finds the same anchored
// lines as one pass per group, over logs where few lines hold a key (so
// that neither takes every line) and where many do.
func TestPivotSetEqualsPasses(t *testing.T) {
	groups := prefilterTables().groups
	rng := rand.New(rand.NewPCG(3, 4))
	var keys []string
	for _, g := range groups {
		for _, k := range g.keys {
			keys = append(keys, string(k))
		}
	}
	words := []string{"step", "loss", "lr", "memory:", "MiB", "Killed", "killed", "OOM", "x", "v", "y", "l", "M", "é", "█", "内", "\t", "kill", "lloc", "CUDA", "mory"}
	for trial := range 200 {
		var b strings.Builder
		lines := 1 + rng.IntN(200)
		for range lines {
			for range rng.IntN(12) {
				if rng.IntN(40) == 0 {
					b.WriteString(keys[rng.IntN(len(keys))])
				} else {
					b.WriteString(words[rng.IntN(len(words))])
				}
				b.WriteByte(" ,:\"|"[rng.IntN(5)])
			}
			b.WriteByte('\n')
		}
		chunk := []byte(b.String())
		newlines := bytes.Count(chunk, []byte("\n"))
		want := passAnchorLines(nil, chunk, 0, newlines+1, groups)
		for _, vector := range []bool{false, hasVectorScan()} {
			p := buildPivotSet(groups, vector)
			got, nls := p.anchorLines(nil, chunk, 0, groups, make([]uint32, 64))
			if nls != newlines {
				t.Fatalf("trial %d (vector %v): %d newlines counted, want %d", trial, vector, nls, newlines)
			}
			if !slices.Equal(got, want) && !(len(got) > (newlines+1)/2 || len(want) > (newlines+1)/2) {
				t.Fatalf("trial %d (vector %v): set finds lines %v, passes %v", trial, vector, got, want)
			}
			if allLines := appendLineStarts(nil, chunk, 0); len(got) > (newlines+1)/2 && !slices.Equal(got, allLines) {
				t.Fatalf("trial %d: most lines hit but not every line returned", trial)
			}
		}
	}
}

// FuzzPivotSet: for any input, the vector kernel's candidates are the
// byte-at-a-time ones, and one pass with the set anchors the same lines
// as one pass per group (unless most lines hold a key, when both may
// return every line).
func FuzzPivotSet(f *testing.F) {
	f.Add([]byte("step 1 loss 0.25\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n"))
	f.Add([]byte("已杀死\nKilled\nx\xe5\xad\x98 VkResult -2\n"))
	groups := prefilterTables().groups
	vec := buildPivotSet(groups, hasVectorScan())
	ref := buildPivotSet(groups, false)
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := allCandidates(t, vec, b, 40), refCandidates(ref, b); !slices.Equal(got, want) {
			t.Fatalf("vector candidates %v, want %v", got, want)
		}
		lines := bytes.Count(b, []byte("\n")) + 1
		got, nls := vec.anchorLines(nil, b, 0, groups, make([]uint32, 40))
		if nls != lines-1 {
			t.Fatalf("%d newlines counted, want %d", nls, lines-1)
		}
		want := passAnchorLines(nil, b, 0, lines, groups)
		if !slices.Equal(got, want) && len(got) <= lines/2 && len(want) <= lines/2 {
			t.Fatalf("set anchors %v, passes %v", got, want)
		}
	})
}
