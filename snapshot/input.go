package snapshot

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// Limits bound what a pickle may make the decoder do.
type Limits struct {
	// MaxInputBytes is the largest pickle read.
	MaxInputBytes int64
	// MaxValueBytes bounds an estimate of the decoded values' size in
	// memory (what the stack, the lists and dicts, and the memo hold).
	MaxValueBytes int64
	// MaxMarks is the most MARKs open at once (how deeply marked
	// containers nest while they are built).
	MaxMarks int
}

// DefaultLimits are the limits oomdoc reads snapshots with: a 4 GiB
// pickle, 2 GiB of decoded values, 1,000 nested marks.
func DefaultLimits() Limits {
	return Limits{MaxInputBytes: 4 << 30, MaxValueBytes: 2 << 30, MaxMarks: 1000}
}

// A FormatError is a pickle the decoder cannot or will not read: truncated,
// malformed, past a limit, or naming a Python object.
type FormatError struct {
	Offset int64 // byte offset of the opcode
	Msg    string
}

// Error says where and what.
func (e *FormatError) Error() string {
	return fmt.Sprintf("not a readable memory snapshot: byte %d: %s", e.Offset, e.Msg)
}

// errTruncated is the reason given when the input ends inside the pickle.
const errTruncated = "the pickle is truncated (the file ends before its STOP opcode)"

// input reads a pickle's bytes, counting offsets and enforcing the size
// limit before anything is allocated.
type input struct {
	r    *bufio.Reader
	off  int64
	op   int64 // offset of the current opcode
	size int64 // the whole input's size when known, else -1
	max  int64
}

func newInput(r io.Reader, size, max int64) *input {
	return &input{r: bufio.NewReaderSize(r, 64<<10), size: size, max: max}
}

func (in *input) fail(format string, a ...any) error {
	return &FormatError{Offset: in.op, Msg: fmt.Sprintf(format, a...)}
}

// ioErr turns a read error into a FormatError (end of input is truncation).
func (in *input) ioErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return in.fail(errTruncated)
	}
	return fmt.Errorf("read snapshot: %w", err)
}

func (in *input) byte() (byte, error) {
	if in.off >= in.max {
		return 0, in.fail("the pickle is larger than the %d-byte limit", in.max)
	}
	b, err := in.r.ReadByte()
	if err != nil {
		return 0, in.ioErr(err)
	}
	in.off++
	return b, nil
}

// check refuses a length the rest of the input cannot hold.
func (in *input) check(n int64) error {
	if n < 0 {
		return in.fail("negative length %d", n)
	}
	if n > in.max-in.off {
		return in.fail("a %d-byte value passes the %d-byte input limit", n, in.max)
	}
	if in.size >= 0 && n > in.size-in.off {
		return in.fail(errTruncated)
	}
	return nil
}

// bytes reads n bytes. Large values grow in steps, so that a length
// prefix in a truncated stream never allocates more than was read.
func (in *input) bytes(n int64) ([]byte, error) {
	if err := in.check(n); err != nil {
		return nil, err
	}
	const step = 1 << 20
	if n <= step {
		buf := make([]byte, n)
		if _, err := io.ReadFull(in.r, buf); err != nil {
			return nil, in.ioErr(err)
		}
		in.off += n
		return buf, nil
	}
	buf := make([]byte, 0, step)
	for int64(len(buf)) < n {
		k := min(n-int64(len(buf)), step)
		start := len(buf)
		buf = append(buf, make([]byte, k)...)
		if _, err := io.ReadFull(in.r, buf[start:]); err != nil {
			return nil, in.ioErr(err)
		}
		in.off += k
	}
	return buf, nil
}

// text reads n bytes as a string, copying them once.
func (in *input) text(n int64) (string, error) {
	if err := in.check(n); err != nil {
		return "", err
	}
	if n <= int64(in.r.Size()) {
		b, err := in.r.Peek(int(n))
		if err != nil {
			return "", in.ioErr(err)
		}
		s := string(b)
		_, _ = in.r.Discard(int(n))
		in.off += n
		return s, nil
	}
	b, err := in.bytes(n)
	return string(b), err
}

// skip discards n bytes.
func (in *input) skip(n int64) error {
	if err := in.check(n); err != nil {
		return err
	}
	for n > 0 {
		k := int(min(n, 1<<30))
		d, err := in.r.Discard(k)
		in.off += int64(d)
		n -= int64(d)
		if err != nil {
			return in.ioErr(err)
		}
	}
	return nil
}

// uint reads a little-endian unsigned integer of n bytes (1, 2, 4 or 8).
func (in *input) uint(n int) (uint64, error) {
	if err := in.check(int64(n)); err != nil {
		return 0, err
	}
	b, err := in.r.Peek(n)
	if err != nil {
		return 0, in.ioErr(err)
	}
	var u uint64
	for i := n - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	_, _ = in.r.Discard(n)
	in.off += int64(n)
	return u, nil
}

// line reads a text argument up to its newline (protocol 0 opcodes).
func (in *input) line() ([]byte, error) {
	const maxLine = 1 << 20
	var out []byte
	for {
		b, err := in.byte()
		if err != nil {
			return nil, err
		}
		if b == '\n' {
			return out, nil
		}
		if len(out) >= maxLine {
			return nil, in.fail("a text argument runs past %d bytes without a newline", maxLine)
		}
		out = append(out, b)
	}
}
