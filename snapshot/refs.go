package snapshot

import (
	"io"
	"strconv"
)

// scanRefs reads a pickle once without building anything and returns the
// memo indices that a GET fetches later. The decoder then keeps only those
// memoised values, so that objects stored once and never fetched again —
// in a snapshot, every trace entry and its own stack — can be freed.
func scanRefs(r io.Reader, size int64, lim Limits) (bitset, error) {
	in := newInput(r, size, lim.MaxInputBytes)
	var idx memoIndex
	var refs bitset
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
			refs.add(i)
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
