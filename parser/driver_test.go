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
