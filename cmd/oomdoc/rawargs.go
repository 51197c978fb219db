package main

import (
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/oomdoc/oomdoc/render"
)

// The CLI library decodes argument values as UTF-8 and replaces every
// invalid byte with U+FFFD, so a Latin-1 file name or a byte string meant
// for the command would arrive changed. These functions recover the bytes
// from the process's own argument list: a value is replaced only by the one
// raw argument that decodes to exactly it, so nothing else can change.

// lossy is s as the CLI library decodes it: each invalid byte becomes U+FFFD.
func lossy(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r) // an invalid byte ranges as utf8.RuneError
	}
	return b.String()
}

// rawCommand returns the command line after `--` as the process received
// it, byte for byte, when the parsed one is its decoded form.
func rawCommand(parsed []string) []string {
	return rawTail(os.Args, parsed)
}

// rawTail finds parsed (or parsed without a leading "--") as the decoded
// tail of argv and returns that tail's raw bytes; else parsed unchanged.
func rawTail(argv, parsed []string) []string {
	want := parsed
	if len(want) > 0 && want[0] == "--" {
		want = want[1:]
	}
	if len(want) == 0 || len(want) > len(argv) {
		return parsed
	}
	tail := argv[len(argv)-len(want):]
	for i := range want {
		if lossy(tail[i]) != want[i] {
			return parsed
		}
	}
	return append([]string(nil), tail...)
}

// rawFiles returns each file name as the process received it: a name that
// holds U+FFFD is replaced by the one raw argument that decodes to it.
func rawFiles(parsed []string) []string {
	return rawNames(os.Args, parsed)
}

// rawNames is rawFiles over a given argument list.
func rawNames(argv, parsed []string) []string {
	out := append([]string(nil), parsed...)
	for i, name := range out {
		if !strings.ContainsRune(name, utf8.RuneError) {
			continue
		}
		match := ""
		n := 0
		for _, a := range argv {
			if !utf8.ValidString(a) && lossy(a) == name {
				match = a
				n++
			}
		}
		if n == 1 {
			out[i] = match
		}
	}
	return out
}

// maxWidth is the widest text report oomdoc wraps to.
const maxWidth = 1000

// checkFlags refuses a width outside 40…maxWidth and reads "md", the
// markdown files' own name, as --format markdown.
func (f *ReportFlags) checkFlags() error {
	if f.Width != 0 && (f.Width < 40 || f.Width > maxWidth) {
		return &exitError{code: exitUsage, err: fmt.Errorf("--width %d: give a number of columns from 40 to %d", f.Width, maxWidth)}
	}
	if f.Format == "md" {
		f.Format = render.FormatMarkdown
	}
	return nil
}
