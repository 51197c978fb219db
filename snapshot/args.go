package snapshot

// argKind is how an opcode's argument is encoded after the opcode byte.
type argKind uint8

const (
	argNone  argKind = iota
	argU1            // one unsigned byte
	argU2            // two bytes, little-endian
	argI4            // four bytes, signed
	argU4            // four bytes, unsigned
	argU8            // eight bytes (FRAME's length, read and ignored)
	argRaw8          // eight raw bytes (BINFLOAT, big-endian)
	argLen1          // a one-byte length, then that many bytes
	argLen4          // a four-byte unsigned length, then the bytes
	argLen4s         // a four-byte signed length, then the bytes
	argLen8          // an eight-byte length, then the bytes
	argLine          // text up to a newline
	argLine2         // two lines (GLOBAL, INST)
	argBad           // not an opcode
)

// kindOf returns the argument encoding of op.
func kindOf(op byte) argKind {
	switch op {
	case opMark, opStop, opPop, opPopMark, opDup, opNone, opBinPersID, opReduce,
		opAppend, opBuild, opDict, opEmptyDict, opAppends, opList, opEmptyList,
		opObj, opSetItem, opTuple, opEmptyTuple, opSetItems, opNewObj, opTuple1,
		opTuple2, opTuple3, opNewTrue, opNewFalse, opEmptySet, opAddItems,
		opFrozenSet, opNewObjEx, opStackGlobal, opMemoize, opNextBuffer, opReadonlyBuffer:
		return argNone
	case opBinInt1, opBinGet, opBinPut, opProto, opExt1:
		return argU1
	case opBinInt2, opExt2:
		return argU2
	case opBinInt:
		return argI4
	case opLongBinGet, opLongBinPut, opExt4:
		return argU4
	case opFrame:
		return argU8
	case opBinFloat:
		return argRaw8
	case opShortBinString, opShortBinBytes, opShortBinUnicod, opLong1:
		return argLen1
	case opBinUnicode, opBinBytes:
		return argLen4
	case opBinString, opLong4:
		return argLen4s
	case opBinUnicode8, opBinBytes8, opByteArray8:
		return argLen8
	case opInt, opLong, opFloat, opString, opUnicode, opGet, opPut, opPersID:
		return argLine
	case opGlobal, opInst:
		return argLine2
	}
	return argBad
}

// arg is an opcode's decoded argument.
type arg struct {
	n     int64  // the integer, or the payload's length
	data  []byte // the payload or first line (nil when skipped)
	str   string // the payload of a string opcode (isText)
	line2 []byte
}

// isText reports the opcodes whose payload is a str.
func isText(op byte) bool {
	switch op {
	case opBinUnicode, opShortBinUnicod, opBinUnicode8, opBinString, opShortBinString:
		return true
	}
	return false
}

// readArg reads op's argument. With skip, payloads are discarded unread
// (the reference scan needs only lengths and memo indices).
func (in *input) readArg(op byte, skip bool) (arg, error) {
	var a arg
	var err error
	var u uint64
	switch kindOf(op) {
	case argNone:
	case argU1:
		u, err = in.uint(1)
		a.n = int64(u)
	case argU2:
		u, err = in.uint(2)
		a.n = int64(u)
	case argI4:
		u, err = in.uint(4)
		a.n = int64(int32(uint32(u)))
	case argU4:
		u, err = in.uint(4)
		a.n = int64(u)
	case argU8:
		_, err = in.uint(8)
	case argRaw8:
		a.n = 8
		a.data, err = in.payload(8, skip)
	case argLen1, argLen4, argLen4s, argLen8:
		a.n, err = in.length(kindOf(op))
		switch {
		case err != nil:
		case !skip && isText(op):
			a.str, err = in.text(a.n)
		default:
			a.data, err = in.payload(a.n, skip)
		}
	case argLine:
		a.data, err = in.line()
	case argLine2:
		a.data, err = in.line()
		if err == nil {
			a.line2, err = in.line()
		}
	default:
		err = in.fail("unknown opcode 0x%02x", op)
	}
	return a, err
}

// length reads a payload's length prefix.
func (in *input) length(k argKind) (int64, error) {
	switch k {
	case argLen1:
		u, err := in.uint(1)
		return int64(u), err
	case argLen4:
		u, err := in.uint(4)
		return int64(u), err
	case argLen4s:
		u, err := in.uint(4)
		return int64(int32(uint32(u))), err
	}
	u, err := in.uint(8)
	if u > 1<<62 {
		return 0, in.fail("a length of %d bytes", u)
	}
	return int64(u), err
}

func (in *input) payload(n int64, skip bool) ([]byte, error) {
	if skip {
		return nil, in.skip(n)
	}
	return in.bytes(n)
}
