package parser

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// isNotebook reports whether the input is a Jupyter notebook: by its name,
// or by its structure — one JSON object whose top level has a numeric
// "nbformat" or a "cells" list of objects with a "cell_type", and nothing
// after it. A JSON-lines log whose first record happens to have a "cells"
// key is not a notebook.
func isNotebook(head []byte, name string) bool {
	if strings.HasSuffix(strings.ToLower(name), ".ipynb") {
		return true
	}
	t := bytes.TrimLeft(head, " \t\r\n")
	t = bytes.TrimPrefix(t, []byte("\ufeff"))
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.UseNumber()
	var stack []json.Delim
	expectKey := []bool{}
	key1 := ""       // the current top-level key
	inCells := false // inside the top level's "cells" list
	found := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return found // the head ends mid-document: judge what was seen
		}
		depth := len(stack)
		k, isString := tok.(string)
		if isString && depth > 0 && stack[depth-1] == '{' && expectKey[depth-1] {
			expectKey[depth-1] = false
			if depth == 1 {
				key1 = k
			}
			if depth == 3 && inCells && k == "cell_type" {
				found = true
			}
			continue
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				if depth == 1 && key1 == "cells" && v == '[' {
					inCells = true
				}
				stack = append(stack, v)
				expectKey = append(expectKey, v == '{')
				continue
			}
			stack = stack[:depth-1]
			expectKey = expectKey[:depth-1]
			if len(stack) == 0 {
				// The document ended inside the head: a notebook is alone.
				rest := bytes.TrimSpace(t[dec.InputOffset():])
				return found && len(rest) == 0
			}
			if len(stack) == 1 {
				inCells = false
			}
		case json.Number:
			if depth == 1 && key1 == "nbformat" {
				found = true
			}
		}
		if n := len(stack); n > 0 && stack[n-1] == '{' {
			expectKey[n-1] = true
		}
	}
}

// notebookReader streams the text a person would see in a notebook's
// outputs: stream text and error tracebacks (ANSI colours kept; the line
// scanner strips them), one output after another, each traceback line
// ending in a newline. It reads the JSON one byte at a time and keeps no
// value in memory — an embedded image of any size is skipped as it is
// read — so memory stays flat whatever the notebook's size.
func notebookReader(r *bufio.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriterSize(pw, 64<<10)
		nb := &nbWalker{r: r, w: w}
		err := nb.document()
		if ferr := w.Flush(); err == nil {
			err = ferr
		}
		if err != nil && !errors.Is(err, io.ErrClosedPipe) {
			pw.CloseWithError(fmt.Errorf("decode notebook: %w", err))
			return
		}
		pw.Close()
	}()
	return pr
}

// nbWalker walks a notebook's JSON and writes the output text it wants.
type nbWalker struct {
	r   *bufio.Reader
	w   *bufio.Writer
	off int64 // bytes read, for error messages
}

// errAt names the offset of a syntax error.
func (nb *nbWalker) errAt(what string) error {
	return fmt.Errorf("offset %d: %s", nb.off, what)
}

func (nb *nbWalker) byte() (byte, error) {
	c, err := nb.r.ReadByte()
	if err == nil {
		nb.off++
	} else if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return c, err
}

// peek returns the next byte that is not white space, without reading it.
func (nb *nbWalker) peek() (byte, error) {
	for {
		c, err := nb.byte()
		if err != nil {
			return 0, err
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		_ = nb.r.UnreadByte()
		nb.off--
		return c, nil
	}
}

// expect reads the next non-space byte and checks it is c.
func (nb *nbWalker) expect(c byte) error {
	got, err := nb.peek()
	if err != nil {
		return err
	}
	_, _ = nb.byte()
	if got != c {
		return nb.errAt(fmt.Sprintf("want %q, found %q", c, got))
	}
	return nil
}

// document reads the notebook: an object whose "cells" are walked.
func (nb *nbWalker) document() error {
	if c, err := nb.peek(); err == nil && c == 0xef { // a UTF-8 byte-order mark
		for range 3 {
			_, _ = nb.byte()
		}
	}
	return nb.object(func(key string) error {
		if key == "cells" {
			return nb.array(func() error { return nb.object(nb.cellField) })
		}
		return nb.skip()
	})
}

func (nb *nbWalker) cellField(key string) error {
	if key == "outputs" {
		return nb.array(func() error { return nb.object(nb.outputField) })
	}
	return nb.skip()
}

func (nb *nbWalker) outputField(key string) error {
	switch key {
	case "text":
		c, err := nb.peek()
		if err != nil {
			return err
		}
		if c == '[' {
			return nb.array(func() error { return nb.stringValue(false) })
		}
		return nb.stringValue(false)
	case "traceback":
		return nb.array(func() error { return nb.stringValue(true) })
	}
	return nb.skip()
}

// object reads {"key": value, …}, calling field for each value.
func (nb *nbWalker) object(field func(key string) error) error {
	return nb.list('{', '}', func() error {
		key, err := nb.key()
		if err != nil {
			return err
		}
		if err := nb.expect(':'); err != nil {
			return err
		}
		return field(key)
	})
}

// array reads [value, …], calling elem for each value.
func (nb *nbWalker) array(elem func() error) error { return nb.list('[', ']', elem) }

// list reads open, elements separated by commas, and end; null is an
// empty list, as a JSON decoder reads it into a slice.
func (nb *nbWalker) list(open, end byte, elem func() error) error {
	if c, err := nb.peek(); err == nil && c == 'n' {
		return nb.skip()
	}
	if err := nb.expect(open); err != nil {
		return err
	}
	if c, err := nb.peek(); err != nil {
		return err
	} else if c == end {
		_, _ = nb.byte()
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		c, err := nb.peek()
		if err != nil {
			return err
		}
		_, _ = nb.byte()
		switch c {
		case ',':
		case end:
			return nil
		default:
			return nb.errAt(fmt.Sprintf("want ',' or %q, found %q", end, c))
		}
	}
}

// key reads an object key, keeping at most 64 bytes of it (the keys walked
// are short; a longer one is skipped, not stored).
func (nb *nbWalker) key() (string, error) {
	var b bytes.Buffer
	err := nb.str(func(r rune) error {
		if b.Len() < 64 {
			b.WriteRune(r)
		}
		return nil
	}, nil)
	return b.String(), err
}

// stringValue writes a string value to the output (with a newline after it
// when line is set); a value that is not a string is skipped.
func (nb *nbWalker) stringValue(line bool) error {
	c, err := nb.peek()
	if err != nil {
		return err
	}
	if c != '"' {
		return nb.skip()
	}
	if err := nb.str(func(r rune) error {
		_, err := nb.w.WriteRune(r)
		return err
	}, func(b []byte) error { return writeText(nb.w, b) }); err != nil {
		return err
	}
	if line {
		return nb.w.WriteByte('\n')
	}
	return nil
}

// str reads a JSON string, passing each decoded rune to emit. With bulk
// set, runs of plain text (no quote, no escape) go to bulk whole instead,
// straight from the read buffer: an embedded image is skipped at memory
// speed, not one byte at a time.
func (nb *nbWalker) str(emit func(rune) error, bulk func([]byte) error) error {
	if err := nb.expect('"'); err != nil {
		return err
	}
	var pending rune // a high surrogate from \uD8xx
	flush := func() error {
		if pending != 0 {
			pending = 0
			return emit(utf8.RuneError)
		}
		return nil
	}
	for {
		if bulk != nil {
			if err := nb.run(bulk, flush); err != nil {
				return err
			}
		}
		c, err := nb.byte()
		if err != nil {
			return err
		}
		switch {
		case c == '"':
			return flush()
		case c == '\\':
			e, err := nb.byte()
			if err != nil {
				return err
			}
			if e == 'u' {
				var v rune
				for range 4 {
					h, err := nb.byte()
					if err != nil {
						return err
					}
					d := hexVal(h)
					if d < 0 {
						return nb.errAt("bad \\u escape")
					}
					v = v<<4 | rune(d)
				}
				switch {
				case pending != 0 && v >= 0xdc00 && v < 0xe000:
					r := utf16.DecodeRune(pending, v)
					pending = 0
					if err := emit(r); err != nil {
						return err
					}
				case v >= 0xd800 && v < 0xdc00:
					if err := flush(); err != nil {
						return err
					}
					pending = v
				default:
					if err := flush(); err != nil {
						return err
					}
					if utf16.IsSurrogate(v) {
						v = utf8.RuneError
					}
					if err := emit(v); err != nil {
						return err
					}
				}
				continue
			}
			if err := flush(); err != nil {
				return err
			}
			r, ok := unescape(e)
			if !ok {
				return nb.errAt(fmt.Sprintf("bad escape \\%c", e))
			}
			if err := emit(r); err != nil {
				return err
			}
		default:
			if err := flush(); err != nil {
				return err
			}
			if c < utf8.RuneSelf {
				if err := emit(rune(c)); err != nil {
					return err
				}
				continue
			}
			// a multi-byte UTF-8 sequence (invalid bytes become U+FFFD, one each)
			_ = nb.r.UnreadByte()
			r, n, err := nb.r.ReadRune()
			if err != nil {
				return err
			}
			nb.off += int64(n) - 1
			if err := emit(r); err != nil {
				return err
			}
		}
	}
}

// unescape returns the character a one-letter JSON escape stands for.
func unescape(e byte) (rune, bool) {
	switch e {
	case '"', '\\', '/':
		return rune(e), true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// run passes the buffered run of plain string bytes (up to a quote, an
// escape, or a rune cut by the buffer's end) to bulk and consumes it.
func (nb *nbWalker) run(bulk func([]byte) error, flush func() error) error {
	if nb.r.Buffered() == 0 {
		return nil // the byte-wise path refills the buffer
	}
	b, _ := nb.r.Peek(nb.r.Buffered())
	i := bytes.IndexAny(b, "\"\\")
	run := b
	if i >= 0 {
		run = b[:i]
	} else {
		run = b[:completeRunes(b)]
	}
	if len(run) == 0 {
		return nil
	}
	if err := flush(); err != nil {
		return err
	}
	if err := bulk(run); err != nil {
		return err
	}
	_, _ = nb.r.Discard(len(run))
	nb.off += int64(len(run))
	return nil
}

// completeRunes is the length of b without a UTF-8 sequence cut at its end.
func completeRunes(b []byte) int {
	for k := 1; k <= utf8.UTFMax && k <= len(b); k++ {
		if c := b[len(b)-k]; c < 0x80 || c >= 0xc0 {
			if k < utf8.UTFMax && !utf8.FullRune(b[len(b)-k:]) {
				return len(b) - k
			}
			return len(b)
		}
	}
	return len(b)
}

// writeText writes b with each invalid UTF-8 byte as U+FFFD, as a JSON
// decoder reads it.
func writeText(w *bufio.Writer, b []byte) error {
	start := 0
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			w.Write(b[start:i])
			w.WriteRune(utf8.RuneError)
			i++
			start = i
			continue
		}
		i += n
	}
	_, err := w.Write(b[start:])
	return err
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// skip reads past one value of any kind without keeping it. Nesting is
// counted, not recursed into, so depth costs no stack.
func (nb *nbWalker) skip() error {
	c, err := nb.peek()
	if err != nil {
		return err
	}
	switch c {
	case '"':
		return nb.str(ignoreRune, ignoreBytes)
	case '{', '[':
		depth := 0
		for {
			c, err := nb.byte()
			if err != nil {
				return err
			}
			switch c {
			case '"':
				_ = nb.r.UnreadByte()
				nb.off--
				if err := nb.str(ignoreRune, ignoreBytes); err != nil {
					return err
				}
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return nil
				}
			}
		}
	}
	// a number, true, false or null
	for {
		c, err := nb.byte()
		if err != nil {
			return err
		}
		switch c {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			_ = nb.r.UnreadByte()
			nb.off--
			return nil
		}
	}
}

func ignoreRune(rune) error    { return nil }
func ignoreBytes([]byte) error { return nil }
