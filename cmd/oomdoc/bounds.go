package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/oomdoc/oomdoc/parser"
)

// skipToTail positions a regular file larger than parser.MaxInputBytes at
// its last MaxInputBytes, from the start of a line, and says so: a crash's
// failure is at the end of its log. Compressed files are read from the
// start (the decompressed text is bounded instead). Devices and FIFOs are
// streams: the parser stops them at the bound.
func skipToTail(f io.Reader) (note string) {
	file, ok := f.(*os.File)
	if !ok {
		return ""
	}
	st, err := file.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() <= parser.MaxInputBytes {
		return ""
	}
	return seekTail(file, st.Size(), parser.MaxInputBytes)
}

// seekTail moves f to the first line start in its last limit bytes, unless
// it is gzip; it returns the note to print.
func seekTail(f io.ReadSeeker, size, limit int64) string {
	var magic [2]byte
	if _, err := io.ReadFull(f, magic[:]); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		_, _ = f.Seek(0, io.SeekStart)
		return ""
	}
	start := size - limit
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		_, _ = f.Seek(0, io.SeekStart)
		return ""
	}
	br := bufio.NewReader(f)
	for {
		c, err := br.ReadByte()
		if err != nil {
			break
		}
		start++
		if c == '\n' {
			break
		}
	}
	_, _ = f.Seek(start, io.SeekStart)
	return fmt.Sprintf("larger than %s: read its last %d bytes, from the line that starts at byte %d (line numbers count from there)", parser.FormatSize(limit), size-start, start)
}
