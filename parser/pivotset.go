package parser

import (
	"bytes"
	"math/bits"
	"sort"
)

// A pivotSet finds every group's pivot in one pass over a chunk instead of
// one pass per group. Where the processor has the vector instructions for
// it (AVX2 on amd64), candidates runs a nibble-table lookup ("shufti")
// over 32 bytes at a time and reports the offsets where a pivot may stand,
// followed by a byte its group's keys may have next; each candidate is then
// tried against the groups that pivot on its byte, exactly as a group's
// own pass would try it. Elsewhere the prefilter keeps its passes
// (anchorLinesIn), which need no such instructions.
//
// The tables: bucket k (of eight) holds pivot bytes that share one high
// nibble; plo[n] has bit k set when bucket k holds a byte whose low nibble
// is n, phi[n] when its high nibble is n, so that pivotBits[c] =
// plo[c&15] & phi[c>>4] names the buckets c may be a pivot of. With one
// high nibble per bucket that is exact; when the pivots span more than
// eight high nibbles the rarest buckets are merged, which admits a few
// bytes no group pivots on (groupsOf, empty for them, rejects those).
// flo and fhi do the same for the bytes that may follow a bucket's pivots
// (keyGroup.follows, every byte for a group without a follow filter), a
// superset, as nibble tables admit every pairing of their nibbles. Offset
// i is a candidate when pivotBits[b[i]] & followBits[b[i+1]] != 0, the
// last byte of a chunk followed by every byte.
type pivotSet struct {
	tables     [128]byte   // plo, phi, flo, fhi: 16 bytes each, twice for the two lanes
	pivotBits  [256]uint8  // the buckets each byte may be a pivot of
	followBits [256]uint8  // the buckets whose pivots each byte may follow
	groupsOf   [256]uint32 // the groups that pivot on each byte, as a bit set
	vector     bool        // candidates runs the vector kernel
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
	set := func(table int, c byte, k int) {
		p.tables[table+int(c&15)] |= 1 << k
		p.tables[table+16+int(c&15)] |= 1 << k
		p.tables[table+32+int(c>>4)] |= 1 << k
		p.tables[table+48+int(c>>4)] |= 1 << k
	}
	for k, bucket := range buckets {
		for _, c := range bucket {
			set(0, c, k)
			for gi, g := range groups {
				if g.pivot != c || p.groupsOf[c]&(1<<gi) == 0 {
					continue
				}
				for f := range 256 {
					if !g.filtered || g.follows[f] {
						set(64, byte(f), k)
					}
				}
			}
		}
	}
	for c := range 256 {
		p.pivotBits[c] = p.tables[c&15] & p.tables[32+c>>4]
		p.followBits[c] = p.tables[64+c&15] & p.tables[96+c>>4]
	}
	return p
}

// candidate reports whether offset i of b is a candidate.
func (p *pivotSet) candidate(b []byte, i int) bool {
	next := uint8(0xff)
	if i+1 < len(b) {
		next = p.followBits[b[i+1]]
	}
	return p.pivotBits[b[i]]&next != 0
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

// candidates writes to out the offsets in b that are candidates
// (candidate), in order, and returns how many it wrote, how far into b it read (all of b,
// or less when out filled up; with room for fewer than 32 offsets the
// vector kernel is not used) and how many newlines it read.
func (p *pivotSet) candidates(b []byte, out []uint32) (n, scanned, newlines int) {
	if p.vector && len(out) >= 32 {
		n, scanned, newlines = vectorCandidates(b, &p.tables, out)
		if len(b)-scanned >= 33 {
			return n, scanned, newlines // out is full
		}
	}
	for ; scanned < len(b); scanned++ {
		if p.candidate(b, scanned) {
			if n == len(out) {
				break
			}
			out[n] = uint32(scanned)
			n++
		}
		if b[scanned] == '\n' {
			newlines++
		}
	}
	return n, scanned, newlines
}

// anchorLines appends to starts the start offsets (plus base) of chunk's
// lines that hold a key of groups, sorted, as one pass per group would
// find them, and returns chunk's newlines, counted in the same pass. When
// most lines hold a key every line is returned, as passAnchorLines does.
// cand is scratch space.
func (p *pivotSet) anchorLines(starts []int, chunk []byte, base int, groups []keyGroup, cand []uint32) ([]int, int) {
	first, newlines := len(starts), 0
	next := 0 // the first offset not on a line already found
	for pos := 0; pos < len(chunk); {
		n, scanned, nls := p.candidates(chunk[pos:], cand)
		newlines += nls
		for _, c := range cand[:n] {
			i := pos + int(c)
			if i < next || !p.keyAt(chunk, i, groups) {
				continue
			}
			starts = append(starts, base+lastNewline(chunk[:i])+1)
			if end := bytes.IndexByte(chunk[i:], '\n'); end >= 0 {
				next = i + end + 1
			} else {
				next = len(chunk)
			}
		}
		pos += scanned
	}
	if len(starts)-first > (newlines+1)/2 {
		// Most lines hold a key (a log of memory figures): every line is a
		// hit, and a line without a key is fed and stops at segment's gate.
		starts = appendLineStarts(starts[:first], chunk, base)
	}
	return starts, newlines
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
