package parser

import (
	"bytes"
	"math/bits"
	"sort"
)

// A pivotSet finds every group's pivot in one pass over a chunk instead of
// one pass per group. Where the processor has the vector instructions for
// it (AVX2 on amd64), candidates runs a nibble-table lookup ("shufti")
// over 32 bytes at a time and reports the offsets of the bytes in the set;
// each candidate is then tried against the groups that pivot on its byte,
// exactly as a group's own pass would try it. Elsewhere the prefilter
// keeps its passes (anchorLinesIn), which need no such instructions.
//
// The tables: bucket k (of eight) holds pivot bytes that share one high
// nibble; lo[n] has bit k set when bucket k holds a byte whose low nibble
// is n, hi[n] when its high nibble is n. A byte b is a candidate when
// lo[b&15] & hi[b>>4] != 0. With one high nibble per bucket that is
// exactly the set; when the pivots span more than eight high nibbles the
// rarest buckets are merged, which admits a few bytes no group pivots on,
// and groupsOf (empty for them) rejects those.
type pivotSet struct {
	tables   [64]byte    // lo (16 bytes, twice for the two lanes), then hi
	member   [256]bool   // the bytes the tables admit, for the tail
	groupsOf [256]uint32 // the groups that pivot on each byte, as a bit set
	vector   bool        // candidates runs the vector kernel
}

// maxPivotGroups is how many groups groupsOf can name.
const maxPivotGroups = 32

// newPivotSet builds the set for groups, or returns nil when the processor
// lacks the vector kernel or the groups do not fit, and the passes are to
// be used instead.
func newPivotSet(groups []keyGroup) *pivotSet {
	if !hasVectorScan() || len(groups) > maxPivotGroups {
		return nil
	}
	return buildPivotSet(groups, true)
}

// buildPivotSet builds the tables for groups' pivots; vector says whether
// candidates may run the vector kernel.
func buildPivotSet(groups []keyGroup, vector bool) *pivotSet {
	p := &pivotSet{vector: vector}
	var high [16][]byte // the pivots by high nibble
	for gi, g := range groups {
		if p.groupsOf[g.pivot] == 0 {
			high[g.pivot>>4] = append(high[g.pivot>>4], g.pivot)
		}
		p.groupsOf[g.pivot] |= 1 << gi
	}
	var buckets [][]byte
	for _, hb := range high {
		if len(hb) > 0 {
			buckets = append(buckets, hb)
		}
	}
	// More than eight: merge the two buckets of the rarest bytes (the
	// non-ASCII lead and continuation bytes of the CJK and Cyrillic
	// keys), until eight are left.
	for len(buckets) > 8 {
		sort.SliceStable(buckets, func(i, j int) bool { return bucketRank(buckets[i]) > bucketRank(buckets[j]) })
		n := len(buckets)
		buckets = append(buckets[:n-2], append(buckets[n-2], buckets[n-1]...))
	}
	for k, bucket := range buckets {
		for _, c := range bucket {
			p.tables[c&15] |= 1 << k
			p.tables[16+c&15] |= 1 << k
			p.tables[32+c>>4] |= 1 << k
			p.tables[48+c>>4] |= 1 << k
		}
	}
	for c := range 256 {
		p.member[c] = p.tables[c&15]&p.tables[32+c>>4] != 0
	}
	return p
}

// bucketRank is the most frequent of a bucket's bytes (byteRank: higher is
// more frequent).
func bucketRank(b []byte) int {
	r := 0
	for _, c := range b {
		r = max(r, byteRank(c))
	}
	return r
}

// candidates writes to out the offsets in b of the bytes in the set, in
// order, and returns how many it wrote and how far into b it read: all of
// b, or less when out filled up (out must have room for at least 32).
func (p *pivotSet) candidates(b []byte, out []uint32) (n, scanned int) {
	if p.vector {
		n, scanned = vectorCandidates(b, &p.tables, out)
		if len(b)-scanned >= 32 {
			return n, scanned // out is full
		}
	}
	for ; scanned < len(b); scanned++ {
		if p.member[b[scanned]] {
			if n == len(out) {
				break
			}
			out[n] = uint32(scanned)
			n++
		}
	}
	return n, scanned
}

// anchorLines appends to starts the start offsets (plus base) of chunk's
// lines that hold a key of groups, sorted, as one pass per group would
// find them; lines is the chunk's line count. When most lines hold a key
// every line is returned, as anchorLinesIn does. cand is scratch space.
func (p *pivotSet) anchorLines(starts []int, chunk []byte, base, lines int, groups []keyGroup, cand []uint32) []int {
	first := len(starts)
	next := 0 // the first offset not on a line already found
	for pos := 0; pos < len(chunk); {
		n, scanned := p.candidates(chunk[pos:], cand)
		for _, c := range cand[:n] {
			i := pos + int(c)
			if i < next || !p.keyAt(chunk, i, groups) {
				continue
			}
			starts = append(starts, base+lastNewline(chunk[:i])+1)
			if len(starts)-first > lines/2 {
				return appendLineStarts(starts[:first], chunk, base)
			}
			end := bytes.IndexByte(chunk[i:], '\n')
			if end < 0 {
				return starts
			}
			next = i + end + 1
		}
		pos += scanned
	}
	return starts
}

// keyAt reports whether a key of a group that pivots on chunk[i] holds its
// pivot at i.
func (p *pivotSet) keyAt(chunk []byte, i int, groups []keyGroup) bool {
	for set := p.groupsOf[chunk[i]]; set != 0; set &= set - 1 {
		g := &groups[bits.TrailingZeros32(set)]
		if g.filtered && (i+1 >= len(chunk) || !g.follows[chunk[i+1]]) {
			continue
		}
		for k, w := range g.keys {
			if st := i - g.offs[k]; st >= 0 && st+len(w) <= len(chunk) && chunk[st] == w[0] && bytes.Equal(chunk[st:st+len(w)], w) {
				return true
			}
		}
	}
	return false
}
