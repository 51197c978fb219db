package snapshot

// maxMemoIndex bounds memo indices (2^28 bits of bitset are 32 MiB).
const maxMemoIndex = 1 << 28

// bitset is a growable set of memo indices.
type bitset []uint64

func (b *bitset) add(i uint64) {
	w := i / 64
	for uint64(len(*b)) <= w {
		*b = append(*b, 0)
	}
	(*b)[w] |= 1 << (i % 64)
}

func (b bitset) has(i uint64) bool {
	w := i / 64
	return w < uint64(len(b)) && b[w]&(1<<(i%64)) != 0
}

// memoIndex follows which memo indices a pickle has assigned, as Python's
// unpickler does: MEMOIZE stores under len(memo), the number of distinct
// indices assigned so far.
type memoIndex struct {
	assigned bitset
	n        uint64
}

// put records an explicit index (PUT, BINPUT, LONG_BINPUT). Picklers
// number the memo from 0 without gaps; an index past the next one is
// refused, so that the bitsets grow by at most one bit per opcode.
func (m *memoIndex) put(i uint64) bool {
	if i >= maxMemoIndex || i > m.n {
		return false
	}
	if !m.assigned.has(i) {
		m.assigned.add(i)
		m.n++
	}
	return true
}

// next records and returns MEMOIZE's index.
func (m *memoIndex) next() (uint64, bool) {
	i := m.n
	return i, m.put(i)
}
