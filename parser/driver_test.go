package parser

import (
	"bytes"
	"math/rand"
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
// can double the time of a large log. Only the listed keys may have one,
// each for the reason given.
func TestBlockKeysAvoidFrequentPivots(t *testing.T) {
	allowed := map[string]string{
		"lloc": "the generic tier's 'alloc'/'allocation' in lower case holds no rarer byte",
	}
	for _, g := range parserTables().groups {
		if byteRank(g.pivot) < 100 {
			continue
		}
		for _, k := range g.keys {
			if _, ok := allowed[string(k)]; !ok {
				t.Errorf("block key %q is searched by the frequent byte %q: anchor its matcher on a phrase with a rarer byte (a capital, punctuation)", k, g.pivot)
			}
		}
	}
}
