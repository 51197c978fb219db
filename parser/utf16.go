package parser

import (
	"bufio"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// utf16Reader decodes UTF-16 with a byte-order mark (what Windows
// PowerShell's `>` writes) into UTF-8, as a stream. Unpaired surrogates and
// an odd final byte become U+FFFD.
type utf16Reader struct {
	r       *bufio.Reader
	big     bool
	pending rune // a high surrogate waiting for its pair; 0 when none
	out     []byte
	err     error
}

// utf16Text reports whether head is UTF-16 text without a byte-order mark
// (little-endian, or big-endian with big): at least 16 code units, 95% of
// them an ASCII character beside a zero byte — what a log written as
// UTF-16 without its mark looks like, which as bytes would read as binary.
func utf16Text(head []byte, big bool) bool {
	units := len(head) / 2
	if units < 16 {
		return false
	}
	ascii := 0
	for i := 0; i+1 < len(head); i += 2 {
		lo, hi := head[i], head[i+1]
		if big {
			lo, hi = hi, lo
		}
		if hi == 0 && (lo >= 0x20 && lo < 0x7f || lo == '\t' || lo == '\n' || lo == '\r') {
			ascii++
		}
	}
	return ascii*100 >= units*95
}

func newUTF16Reader(r *bufio.Reader) *utf16Reader {
	bom := make([]byte, 2)
	_, _ = io.ReadFull(r, bom)
	return &utf16Reader{r: r, big: bom[0] == 0xfe}
}

// Read returns the next UTF-8 bytes.
func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) == 0 {
		if u.err != nil {
			return 0, u.err
		}
		u.decode(len(p))
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}

// decode converts about want bytes' worth of code units into u.out.
func (u *utf16Reader) decode(want int) {
	u.out = u.out[:0]
	var unit [2]byte
	for len(u.out) < max(want, 64) {
		n, err := io.ReadFull(u.r, unit[:])
		if err != nil {
			if n == 1 {
				u.emit(utf8.RuneError)
			}
			if u.pending != 0 {
				u.emit(utf8.RuneError)
				u.pending = 0
			}
			if err == io.ErrUnexpectedEOF {
				err = io.EOF
			}
			u.err = err
			return
		}
		c := rune(unit[0]) | rune(unit[1])<<8
		if u.big {
			c = rune(unit[1]) | rune(unit[0])<<8
		}
		switch {
		case u.pending != 0:
			hi := u.pending
			u.pending = 0
			if r := utf16.DecodeRune(hi, c); r != utf8.RuneError {
				u.emit(r)
				continue
			}
			u.emit(utf8.RuneError)
			if utf16.IsSurrogate(c) && c < 0xdc00 {
				u.pending = c
				continue
			}
			if utf16.IsSurrogate(c) {
				u.emit(utf8.RuneError)
				continue
			}
			u.emit(c)
		case c >= 0xd800 && c < 0xdc00:
			u.pending = c
		case utf16.IsSurrogate(c):
			u.emit(utf8.RuneError)
		default:
			u.emit(c)
		}
	}
}

func (u *utf16Reader) emit(r rune) { u.out = utf8.AppendRune(u.out, r) }
