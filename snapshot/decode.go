package snapshot

import (
	"encoding/binary"
	"io"
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"
)

// Options tune Decode.
type Options struct {
	Limits Limits
	// Size is the input's length when known (0 or less: unknown): a
	// length prefix past it is reported as truncation before anything is
	// allocated.
	Size int64
	// Refs, when not nil, say where each memo index is last fetched
	// (scanRefs): values never fetched again are not kept, and the others
	// are let go after their last fetch.
	Refs Refs
	// Drop is asked about each dict once its items are set; when it says
	// yes and the dict is not fetched again from the memo, the dict is left
	// out of the lists it is appended to. Only used with Refs.
	Drop func(*Dict) bool
	// Discard is asked, as each empty list is pushed, whether the reader
	// needs its items, given the stack below it; when it says no, appends
	// to the list are dropped. Only used with Refs.
	Discard func(stack []any) bool
}

// classRef is a GLOBAL the decoder allows: collections.OrderedDict, which
// REDUCE turns into a plain dict.
type classRef struct{ module, name string }

// decoder is the pickle stack machine.
type decoder struct {
	in      *input
	opt     Options
	cost    int64 // estimated bytes the decoded values hold
	stack   []any
	marks   []int
	memo    []any // by memo index; nil where a value was not kept
	idx     memoIndex
	dropped int
}

// Decode reads one pickle from r and returns its value. It executes
// nothing: any opcode that would name or call a Python object other than
// the plain-data constructors (allowed) is refused with a FormatError.
// Zero Limits are DefaultLimits.
func Decode(r io.Reader, opt Options) (any, error) {
	if opt.Limits == (Limits{}) {
		opt.Limits = DefaultLimits()
	}
	if opt.Size <= 0 {
		opt.Size = -1
	}
	d := &decoder{in: newInput(r, opt.Size, opt.Limits.MaxInputBytes), opt: opt}
	v, err := d.run()
	return v, err
}

// charge adds n bytes to the estimate of what the decoded values hold.
func (d *decoder) charge(n int64) error {
	d.cost += n
	if d.cost+16*int64(len(d.stack)) > d.opt.Limits.MaxValueBytes {
		return d.in.fail("the decoded snapshot would pass the %d-byte memory limit", d.opt.Limits.MaxValueBytes)
	}
	return nil
}

func (d *decoder) push(v any) error {
	d.stack = append(d.stack, v)
	return d.charge(0)
}

// frameStart is where the values after the last MARK begin.
func (d *decoder) frameStart() int {
	if len(d.marks) == 0 {
		return 0
	}
	return d.marks[len(d.marks)-1]
}

func (d *decoder) pop() (any, error) {
	if len(d.stack) <= d.frameStart() {
		return nil, d.in.fail("the pickle pops from an empty stack")
	}
	v := d.stack[len(d.stack)-1]
	d.stack = d.stack[:len(d.stack)-1]
	return v, nil
}

func (d *decoder) top() (any, error) {
	if len(d.stack) <= d.frameStart() {
		return nil, d.in.fail("the pickle reads an empty stack")
	}
	return d.stack[len(d.stack)-1], nil
}

// popMark removes and returns the values pushed since the last MARK.
func (d *decoder) popMark() ([]any, error) {
	if len(d.marks) == 0 {
		return nil, d.in.fail("the pickle closes a MARK it never opened")
	}
	m := d.marks[len(d.marks)-1]
	d.marks = d.marks[:len(d.marks)-1]
	items := d.stack[m:]
	d.stack = d.stack[:m]
	return items, nil
}

func (d *decoder) run() (any, error) {
	for {
		d.in.op = d.in.off
		op, err := d.in.byte()
		if err != nil {
			return nil, err
		}
		if name := opName(op); name != "" && op != opGlobal && op != opStackGlobal && op != opReduce {
			return nil, d.in.fail("%s would build a Python object; a memory snapshot holds only plain data, so the file was refused (nothing in it was run)", name)
		}
		a, err := d.in.readArg(op, false)
		if err != nil {
			return nil, err
		}
		if op == opStop {
			return d.pop()
		}
		if err := d.step(op, a); err != nil {
			return nil, err
		}
	}
}

// step runs one opcode with its argument.
func (d *decoder) step(op byte, a arg) error {
	switch op {
	case opProto:
		if a.n > 5 {
			return d.in.fail("pickle protocol %d is newer than 5", a.n)
		}
	case opFrame:
	case opMark:
		if len(d.marks) >= d.opt.Limits.MaxMarks {
			return d.in.fail("more than %d MARKs open at once", d.opt.Limits.MaxMarks)
		}
		d.marks = append(d.marks, len(d.stack))
	case opPop:
		if len(d.stack) > d.frameStart() || len(d.marks) == 0 {
			_, err := d.pop()
			return err
		}
		_, err := d.popMark()
		return err
	case opPopMark:
		_, err := d.popMark()
		return err
	case opDup:
		v, err := d.top()
		if err != nil {
			return err
		}
		return d.push(v)
	case opNone:
		return d.push(nil)
	case opNewTrue:
		return d.push(true)
	case opNewFalse:
		return d.push(false)
	case opBinInt, opBinInt1, opBinInt2:
		return d.push(a.n)
	case opLong1, opLong4:
		return d.pushLong(a.data)
	case opInt, opLong:
		return d.pushText(op, a.data)
	case opFloat:
		f, err := strconv.ParseFloat(string(a.data), 64)
		if err != nil {
			return d.in.fail("bad FLOAT %q", a.data)
		}
		return d.push(f)
	case opBinFloat:
		return d.push(math.Float64frombits(binary.BigEndian.Uint64(a.data)))
	case opBinUnicode, opShortBinUnicod, opBinUnicode8, opBinString, opShortBinString:
		if err := d.charge(32 + int64(len(a.str))); err != nil {
			return err
		}
		return d.push(a.str)
	case opBinBytes, opShortBinBytes, opBinBytes8, opByteArray8:
		if err := d.charge(32 + int64(len(a.data))); err != nil {
			return err
		}
		return d.push(Bytes(a.data))
	case opUnicode, opString:
		s, err := d.textString(op, a.data)
		if err != nil {
			return err
		}
		if err := d.charge(32 + int64(len(s))); err != nil {
			return err
		}
		return d.push(s)
	default:
		return d.container(op, a)
	}
	return nil
}

// pushLong pushes a LONG1/LONG4 two's-complement little-endian integer.
func (d *decoder) pushLong(b []byte) error {
	if len(b) == 0 {
		return d.push(int64(0))
	}
	if len(b) <= 8 {
		var u uint64
		for i := len(b) - 1; i >= 0; i-- {
			u = u<<8 | uint64(b[i])
		}
		if shift := 64 - 8*len(b); shift > 0 {
			return d.push(int64(u<<shift) >> shift) // sign-extend
		}
		return d.push(int64(u))
	}
	if err := d.charge(48 + int64(len(b))); err != nil {
		return err
	}
	be := make([]byte, len(b))
	for i := range b {
		be[len(b)-1-i] = b[i]
	}
	x := new(big.Int).SetBytes(be)
	if b[len(b)-1]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	if x.IsInt64() {
		return d.push(x.Int64())
	}
	return d.push(x)
}

// pushText pushes a protocol-0 INT or LONG ("I01\n" is True, as Python 2 wrote it).
func (d *decoder) pushText(op byte, s []byte) error {
	t := string(s)
	if op == opInt && (t == "01" || t == "00") {
		return d.push(t == "01")
	}
	if op == opLong && len(t) > 0 && t[len(t)-1] == 'L' {
		t = t[:len(t)-1]
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		return d.push(n)
	}
	if err := d.charge(48 + int64(len(t))); err != nil {
		return err
	}
	x, ok := new(big.Int).SetString(t, 10)
	if !ok {
		return d.in.fail("bad integer %q", s)
	}
	return d.push(x)
}

// textString decodes protocol 0's STRING (a quoted repr) and UNICODE
// (raw-unicode-escape) arguments.
func (d *decoder) textString(op byte, b []byte) (string, error) {
	if op == opString {
		if len(b) < 2 || (b[0] != '\'' && b[0] != '"') || b[len(b)-1] != b[0] {
			return "", d.in.fail("STRING argument is not quoted")
		}
		s, err := unescape(b[1:len(b)-1], true)
		if err != nil {
			return "", d.in.fail("bad STRING escape")
		}
		return s, nil
	}
	s, err := unescape(b, false)
	if err != nil {
		return "", d.in.fail("bad UNICODE escape")
	}
	return s, nil
}

// unescape decodes Python escapes: \uXXXX and \UXXXXXXXX always, and the
// repr escapes (\n, \xhh, \\, \', …) when repr is set. Other bytes stand
// for themselves (raw-unicode-escape is Latin-1 outside its escapes).
func unescape(b []byte, repr bool) (string, error) {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			if repr {
				out = append(out, c)
			} else {
				out = utf8.AppendRune(out, rune(c))
			}
			continue
		}
		e := b[i+1]
		n := 0
		switch {
		case e == 'u':
			n = 4
		case e == 'U':
			n = 8
		case repr && e == 'x':
			n = 2
		}
		if n > 0 {
			if i+2+n > len(b) {
				return "", strconv.ErrSyntax
			}
			v, err := strconv.ParseUint(string(b[i+2:i+2+n]), 16, 32)
			if err != nil {
				return "", err
			}
			if e == 'x' {
				out = append(out, byte(v))
			} else {
				out = utf8.AppendRune(out, rune(v))
			}
			i += 1 + n
			continue
		}
		if !repr {
			out = utf8.AppendRune(out, '\\')
			continue
		}
		i++
		switch e {
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case '\\', '\'', '"':
			out = append(out, e)
		default:
			out = append(out, '\\', e)
		}
	}
	return string(out), nil
}
