//go:build !amd64

package parser

// hasVectorScan reports whether vectorCandidates can run here: not on
// this architecture, where the prefilter keeps one pass per group.
func hasVectorScan() bool { return false }

// vectorCandidates is never called where hasVectorScan is false; it reads
// nothing, leaving every byte to pivotSet.candidates' own loop.
func vectorCandidates(b []byte, tables *[128]byte, out []uint32) (n, scanned, newlines int) {
	return 0, 0, 0
}
