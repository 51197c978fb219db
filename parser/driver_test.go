package parser

import (
	"bytes"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// TestLastNewline checks the word-at-a-time backward search against
// bytes.LastIndexByte on random short inputs dense in newlines and in bytes
// one bit away from one.
func TestLastNewline(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	const alphabet = "ab\n\x8a\x0b\x09\x00\xff"
	for range 100000 {
		b := make([]byte, r.Intn(80))
		for i := range b {
			b[i] = alphabet[r.Intn(len(alphabet))]
			if r.Intn(3) == 0 {
				b[i] = 'x'
			}
		}
		if got, want := lastNewline(b), bytes.LastIndexByte(b, '\n'); got != want {
			t.Fatalf("lastNewline(%q) = %d, want %d", b, got, want)
		}
	}
}

// TestBlockKeysAvoidFrequentPivots: every block key is searched by a pivot
// byte, one pass over each block per group; a pivot that is frequent in
// logs (a digit, a common letter) makes that pass stop on most lines and
// can double the time of a large log. Only the listed keys may force one,
// each for the reason given; keys with a lower-case pivot may ride along on
// that pass (rideAlong), since it is made anyway.
func TestBlockKeysAvoidFrequentPivots(t *testing.T) {
	allowed := map[string]string{
		"lloc": "the generic tier's 'alloc'/'allocation' in lower case holds no rarer byte",
	}
	frequent := 0
	for _, g := range prefilterTables().groups {
		if byteRank(g.pivot) < 100 {
			continue
		}
		frequent++
		forced := false
		for _, k := range g.keys {
			_, ok := allowed[string(k)]
			forced = forced || ok
		}
		for _, k := range g.keys {
			if _, ok := allowed[string(k)]; !ok && (!forced || !hasLowerRarerByte(k)) {
				t.Errorf("block key %q is searched by the frequent byte %q: anchor its matcher on a phrase with a rarer byte (a capital, punctuation)", k, g.pivot)
			}
		}
	}
	if frequent > len(allowed) {
		t.Errorf("%d passes scan for a frequent byte; the %d allowed keys need at most that many", frequent, len(allowed))
	}
}

// TestPrefilterPassBudget: each key group is one pass over every block of a
// large log, so a new family's anchor should join a group (hold one of the
// pivots below) rather than open one: a single new pass on a byte that
// logs print often cost half the prefilter's speed. Raise the budget only
// with a benchmark (BenchmarkPrefilter) that shows the pass is cheap.
func TestPrefilterPassBudget(t *testing.T) {
	const budget = 15
	groups := prefilterTables().groups
	for _, g := range groups {
		// capitals that open the commonest words of a training log: a pass
		// on them stops on nearly every line ("Epoch 3", "ERROR", glog's
		// "E0402"/"I0402" prefixes, "INFO")
		if g.pivot == 'E' || g.pivot == 'I' {
			t.Errorf("a pass pivots on %q, which opens most lines of a training log: anchor %q on a rarer byte", g.pivot, g.keys)
		}
	}
	for _, g := range groups {
		// A pass on a frequent byte stops on nearly every line; its follow
		// filter is what keeps it cheap. A key that lets the commonest
		// followers through ("l " of "model ", "la" of "layer") makes every
		// stop try every key of the group.
		if byteRank(g.pivot) < 100 || !g.filtered {
			continue
		}
		for _, c := range []byte(" aeiou") {
			if g.follows[c] {
				t.Errorf("the pass on frequent %q lets %q through: a key of %q needs another anchor", g.pivot, c, g.keys)
			}
		}
	}
	if len(groups) > budget {
		var pivots []string
		for _, g := range groups {
			pivots = append(pivots, fmt.Sprintf("%q×%d", g.pivot, len(g.keys)))
		}
		t.Errorf("%d passes per block, budget %d: %s", len(groups), budget, strings.Join(pivots, " "))
	}
}

// hasLowerRarerByte reports whether k holds a lower-case letter that is not
// among the most frequent bytes: a key that would otherwise make a pass of
// its own on that letter, and so may ride along on a frequent pass.
func hasLowerRarerByte(k []byte) bool {
	for _, c := range k {
		if c >= 'a' && c <= 'z' && byteRank(c) < 100 {
			return true
		}
	}
	return false
}

// TestRideAlong: a group on a lower-case pivot whose every key holds a byte
// of a forced frequent key is merged into that key's pass; a group on a
// capital stays a pass of its own, and nothing is lost.
func TestRideAlong(t *testing.T) {
	groups := groupKeys([]string{"lloc", "kill:", "killed", "Tried to", "xceed"})
	var pivots []byte
	keys := 0
	for _, g := range groups {
		pivots = append(pivots, g.pivot)
		keys += len(g.keys)
		for i, k := range g.keys {
			if k[g.offs[i]] != g.pivot {
				t.Errorf("key %q: offset %d is not its pivot %q", k, g.offs[i], g.pivot)
			}
		}
	}
	if keys != 5 {
		t.Errorf("%d keys in the groups, want 5", keys)
	}
	slices.Sort(pivots)
	if want := "Tlx"; string(pivots) != want {
		t.Errorf("pivots %q, want the passes %q (kill:, killed riding on lloc's l)", pivots, want)
	}
}
