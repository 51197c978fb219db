package parser

import (
	"bytes"
	"sort"
)

// blockAnchors are the words every failure message holds at least one of
// (research/formats.md §1–5), chosen to begin with a byte that is rare in
// logs so that each is found at memory speed: "mory" (memory, Memory,
// OutOfMemory), "Tried to" (allocator messages whose start was cut), "OOM"
// (TensorFlow, OOMKilled), kills and exit codes, cuBLAS/cuDNN statuses,
// MLX's malloc, ggml's "failed to allocate", vLLM's KV-cache wording. Past
// the head of a log only lines holding one of them — with the lines before
// and after them — are read in full; the rest is only counted.
func blockAnchors() [][]byte {
	return [][]byte{
		[]byte("mory"), []byte("MEMORY"), []byte("Tried to"), []byte("OOM"), []byte("Killed"), []byte("STATUS_"),
		[]byte("xitcode"), []byte("KV cache"), []byte("malloc"), []byte("failed to allocate"), []byte("Detected"),
		[]byte("SIGKILL"), []byte("died"), []byte("zsh: killed"), []byte("] exits with"), []byte("Bus error"),
	}
}

// anchorLines returns the start offsets of the lines of block that hold an
// anchor, sorted and unique. A large block is searched in two halves at
// once, one per core.
func anchorLines(block []byte) []int {
	if len(block) < 256<<10 {
		return anchorLinesIn(block, 0)
	}
	mid := bytes.IndexByte(block[len(block)/2:], '\n')
	if mid < 0 {
		return anchorLinesIn(block, 0)
	}
	mid += len(block)/2 + 1
	var second []int
	done := make(chan struct{})
	go func() {
		second = anchorLinesIn(block[mid:], mid)
		close(done)
	}()
	first := anchorLinesIn(block[:mid], 0)
	<-done
	return append(first, second...)
}

// anchorLinesIn finds the anchored lines of part, whose offset in the
// block is base.
func anchorLinesIn(part []byte, base int) []int {
	var starts []int
	for _, a := range blockAnchors() {
		off := 0
		for off < len(part) {
			i := bytes.Index(part[off:], a)
			if i < 0 {
				break
			}
			i += off
			starts = append(starts, base+bytes.LastIndexByte(part[:i], '\n')+1)
			end := bytes.IndexByte(part[i:], '\n')
			if end < 0 {
				break
			}
			off = i + end + 1
		}
	}
	sort.Ints(starts)
	out := starts[:0]
	for i, s := range starts {
		if i == 0 || s != starts[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// tailLine is a line kept from the end of the previous block for replay.
type tailLine struct {
	no   int
	text []byte
}

// feed passes one line (without its "\n") to the scanner.
func (s *scanner) feed(line []byte, no int) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	s.physical(line, no)
	s.fed = no
}

// busy reports whether the next line must be read in full: in the head of
// the log, inside a traceback, or while a message may continue.
func (s *scanner) busy(no int) bool {
	return no <= headLines || s.hot > 0 || len(s.pending) > 0 || s.slow
}

// block reads one block of whole lines whose first line is number first,
// and returns the number of the next line.
func (s *scanner) block(b []byte, first int) int {
	hits := anchorLines(b)
	pos, no := 0, first
	for pos < len(b) {
		if s.busy(no) {
			pos = s.feedLine(b, pos, no)
			no++
			continue
		}
		for len(hits) > 0 && hits[0] < pos {
			hits = hits[1:]
		}
		if len(hits) == 0 {
			no += countLines(b[pos:]) // the rest of the block holds no anchor
			break
		}
		h := hits[0]
		// Replay up to ringSize lines before the hit so that its traceback
		// and context are read exactly as a full read would.
		rs, skipped := h, 0
		for skipped < ringSize && rs > pos {
			rs = bytes.LastIndexByte(b[:rs-1], '\n') + 1
			skipped++
		}
		no += bytes.Count(b[pos:rs], []byte("\n"))
		if pos == 0 && rs == 0 && skipped < ringSize {
			s.replayTail(no-1, ringSize-skipped)
		}
		pos = rs
		for pos < h {
			pos = s.feedLine(b, pos, no)
			no++
		}
		pos = s.feedLine(b, pos, no)
		no++
	}
	s.keepTail(b, no)
	return no
}

// feedLine feeds the line starting at pos and returns the next line's start.
func (s *scanner) feedLine(b []byte, pos, no int) int {
	end := bytes.IndexByte(b[pos:], '\n')
	if end < 0 {
		s.feed(b[pos:], no)
		return len(b)
	}
	s.feed(b[pos:pos+end], no)
	return pos + end + 1
}

// countLines counts the lines in b: its newlines, plus a last line
// without one.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// keepTail copies the last lines of a block (at most ringSize lines and
// 256 KiB) so that a hit at the start of the next block can replay them.
func (s *scanner) keepTail(b []byte, next int) {
	s.tail = s.tail[:0]
	end, no := len(b), next-1
	if end > 0 && b[end-1] == '\n' {
		end--
	}
	budget := 256 << 10
	for k := 0; k < ringSize && end > 0 && budget > 0; k++ {
		start := bytes.LastIndexByte(b[:end], '\n') + 1
		text := b[start:end]
		if len(text) > 4096 {
			text = text[:4096]
		}
		budget -= len(text)
		s.tail = append(s.tail, tailLine{no: no, text: append([]byte(nil), text...)})
		end, no = start-1, no-1
		if start == 0 {
			break
		}
	}
}

// replayTail feeds up to n lines kept from the previous block that were
// not fed yet, ending with line last.
func (s *scanner) replayTail(last, n int) {
	for k := len(s.tail) - 1; k >= 0; k-- {
		t := s.tail[k]
		if t.no <= s.fed || t.no > last || t.no <= last-n {
			continue
		}
		s.feed(t.text, t.no)
	}
}
