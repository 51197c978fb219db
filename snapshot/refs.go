package snapshot

import (
	"io"
	"strconv"
)

// Refs says, for each memo index, the offset of the last GET that fetches
// it (0: never fetched).
type Refs []int64

// referenced reports whether memo index i is fetched again.
func (r Refs) referenced(i uint64) bool { return i < uint64(len(r)) && r[i] > 0 }

// scanRefs reads a pickle once without building anything and returns,
// for each memo index, where it is last fetched. The decoder then keeps
// only values fetched again, and drops each from the memo after its last
// fetch, so that objects no longer reachable — in a snapshot, most trace
// entries and the stacks only they use — can be freed as it goes.
func scanRefs(r io.Reader, size int64, lim Limits) (Refs, error) {
	in := newInput(r, size, lim.MaxInputBytes)
	var idx memoIndex
	var refs Refs
	for {
		in.op = in.off
		op, err := in.byte()
		if err != nil {
			return nil, err
		}
		a, err := in.readArg(op, true)
		if err != nil {
			return nil, err
		}
		switch op {
		case opStop:
			return refs, nil
		case opMemoize:
			if _, ok := idx.next(); !ok {
				return nil, in.fail("too many memoised objects")
			}
		case opBinPut, opLongBinPut, opPut:
			i, err := memoArg(in, op, a)
			if err != nil {
				return nil, err
			}
			if !idx.put(i) {
				return nil, in.fail("memo index %d skips past the %d stored so far", i, idx.n)
			}
		case opBinGet, opLongBinGet, opGet:
			i, err := memoArg(in, op, a)
			if err != nil {
				return nil, err
			}
			if !idx.assigned.has(i) {
				return nil, in.fail("GET of memo %d, which was never stored", i)
			}
			for uint64(len(refs)) <= i { // i is stored, so below idx.n: grows by at most one per PUT
				refs = append(refs, 0)
			}
			refs[i] = in.op
		}
	}
}

// memoArg returns the memo index of a PUT or GET opcode.
func memoArg(in *input, op byte, a arg) (uint64, error) {
	i := uint64(a.n)
	if op == opPut || op == opGet {
		n, err := strconv.ParseUint(string(a.data), 10, 64)
		if err != nil {
			return 0, in.fail("bad memo index %q", a.data)
		}
		i = n
	}
	if i >= maxMemoIndex {
		return 0, in.fail("memo index %d is past the limit of %d", i, maxMemoIndex)
	}
	return i, nil
}
