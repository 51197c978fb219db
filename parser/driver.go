package parser

import (
	"bytes"
	"encoding/binary"
	"sort"
)

// anchorLinesIn appends to starts the anchored lines of part, whose
// offset in the block is base, and counts part's newlines into nl. With a
// pivot set (a processor with the vector kernel) each chunk is searched
// in one pass for every group's pivot; without one, in one pass per group.
// cand is the set's scratch space.
func anchorLinesIn(starts []int, part []byte, base int, t *prefilter, cand []uint32, nl *newlineIndex) []int {
	// The part is searched in runs of whole lines that stay in the CPU's
	// cache while every group passes over them.
	for lo := 0; lo < len(part); {
		hi := min(lo+scanChunk, len(part))
		if hi < len(part) {
			if nl := bytes.IndexByte(part[hi:], '\n'); nl >= 0 {
				hi += nl + 1
			} else {
				hi = len(part)
			}
		}
		chunk := part[lo:hi]
		var newlines int
		if t.set != nil {
			starts, newlines = t.set.anchorLines(starts, chunk, base+lo, t.groups, cand)
		} else {
			newlines = bytes.Count(chunk, []byte("\n"))
			starts = passAnchorLines(starts, chunk, base+lo, newlines+1, t.groups)
		}
		nl.add(base+hi, newlines)
		lo = hi
	}
	return starts
}

// passAnchorLines appends to starts the start offsets (plus base) of
// chunk's lines that hold a key, sorted, searching once per group; lines
// is the chunk's line count.
func passAnchorLines(starts []int, chunk []byte, base, lines int, groups []keyGroup) []int {
	first := len(starts)
	for gi := range groups {
		group := &groups[gi]
		groupFirst, off := len(starts), 0
		for off < len(chunk) {
			i := indexGroup(chunk[off:], group)
			if i < 0 {
				break
			}
			i += off
			starts = append(starts, base+lastNewline(chunk[:i])+1)
			end := bytes.IndexByte(chunk[i:], '\n')
			if end < 0 {
				break
			}
			off = i + end + 1
		}
		if len(starts)-groupFirst > lines/2 {
			// Most lines hold this group's keys (a log of memory
			// figures): every line is a hit, and the other groups need
			// not search. A line without a key is then fed and stops at
			// segment's gate, as it would in a full read.
			return appendLineStarts(starts[:first], chunk, base)
		}
	}
	return starts[:first+len(sortedUnique(starts[first:]))]
}

// A newlineIndex counts a block's newlines chunk by chunk while the
// prefilter passes over it, so that the lines between its hits are
// numbered without a second pass over the block.
type newlineIndex struct {
	ends []int // where each chunk ends in the block, ascending
	cum  []int // the newlines of the block before ends[i]
}

func (x *newlineIndex) reset() { x.ends, x.cum = x.ends[:0], x.cum[:0] }

// add records a chunk that ends at end and holds n newlines.
func (x *newlineIndex) add(end, n int) {
	if k := len(x.cum); k > 0 {
		n += x.cum[k-1]
	}
	x.ends, x.cum = append(x.ends, end), append(x.cum, n)
}

// join appends the index of the part of the block that follows x's.
func (x *newlineIndex) join(y *newlineIndex) {
	for i := range y.ends {
		x.add(y.ends[i], y.cum[i]-prevCum(y, i))
	}
}

func prevCum(x *newlineIndex, i int) int {
	if i == 0 {
		return 0
	}
	return x.cum[i-1]
}

// before returns the number of newlines in block[:off]: the chunks that
// end by off from the index, the rest of the way counted.
func (x *newlineIndex) before(block []byte, off int) int {
	i := sort.SearchInts(x.ends, off+1) - 1 // the last chunk that ends by off
	start, n := 0, 0
	if i >= 0 {
		start, n = x.ends[i], x.cum[i]
	}
	return n + bytes.Count(block[start:off], []byte("\n"))
}

// appendLineStarts appends to starts the offset of every line of chunk,
// plus base.
func appendLineStarts(starts []int, chunk []byte, base int) []int {
	starts = append(starts, base)
	for off := 0; ; {
		i := bytes.IndexByte(chunk[off:], '\n')
		if i < 0 || off+i+1 >= len(chunk) {
			return starts
		}
		off += i + 1
		starts = append(starts, base+off)
	}
}

// lastNewline is bytes.LastIndexByte(b, '\n'), eight bytes at a time: the
// library's is a byte loop, and the prefilter walks back to the start of
// every anchored line.
func lastNewline(b []byte) int {
	const ones, highs, nl = 0x0101010101010101, 0x8080808080808080, 0x0a0a0a0a0a0a0a0a
	i := len(b)
	for i >= 8 {
		x := binary.LittleEndian.Uint64(b[i-8:i]) ^ nl // a newline becomes a zero byte
		if (x-ones)&^x&highs != 0 {
			break // a newline in these eight bytes: find it byte by byte
		}
		i -= 8
	}
	for i--; i >= 0; i-- {
		if b[i] == '\n' {
			return i
		}
	}
	return -1
}

// sortedUnique sorts starts in place and drops repeats, returning the
// shortened slice.
func sortedUnique(starts []int) []int {
	sort.Ints(starts)
	out := starts[:0]
	for i, s := range starts {
		if i == 0 || s != starts[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// scanChunk is how many bytes every anchor group passes over before the
// search moves on: small enough to stay in a core's cache.
const scanChunk = 64 << 10

// feed passes one line (without its "\n") to the scanner.
func (s *scanner) feed(line []byte, no int) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	s.physical(line, no)
	s.fed = no
	if s.follow > 0 {
		s.follow--
	}
}

// busy reports whether the next line must be read in full: in the head of
// the log, inside a traceback, or while a message may continue.
func (s *scanner) busy(no int) bool {
	return no <= headLines || s.hot > 0 || len(s.pending) > 0 || s.follow > 0 || s.slow
}

// block reads one block of whole lines whose first line is number first,
// and returns the number of the next line.
func (s *scanner) block(p *preparedBlock, first int) int {
	b, hits := p.data, p.hits
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
			// the rest of the block holds no anchor
			no += p.nl.before(b, len(b)) - p.nl.before(b, pos)
			if pos < len(b) && b[len(b)-1] != '\n' {
				no++ // a last line without its newline
			}
			break
		}
		h := hits[0]
		if len(s.quietRaw) > 0 && s.quietRaw[hitShape(b, h)] {
			// a template already read in full without a failure: read
			// again it would stop at the same test (segment's)
			hits = hits[1:]
			continue
		}
		// Replay up to ringSize lines before the hit so that its traceback
		// and context are read exactly as a full read would.
		rs, skipped := h, 0
		for skipped < ringSize && rs > pos {
			rs = lastNewline(b[:rs-1]) + 1
			skipped++
		}
		no += p.nl.before(b, rs) - p.nl.before(b, pos)
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

// hitShape is the raw shape (rawShapeOf) of the anchored line starting
// at h, or 0 for a line the per-segment test must see: an empty one, or
// one holding "\r". A line of a template already read in full without a
// failure (its shape in quietRaw) is skipped like a line without an
// anchor, so that a logger's step line that prints memory figures is
// read once per template rather than once per step; the lines before a
// later hit are still replayed. (Hashed by the scanner, which waits on
// the reader most of the time, rather than by the reader ahead of it.)
func hitShape(b []byte, h int) uint64 {
	line := b[h:]
	if end := bytes.IndexByte(line, '\n'); end >= 0 {
		line = line[:end]
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) == 0 || bytes.IndexByte(line, '\r') >= 0 {
		return 0
	}
	return rawShapeOf(line)
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

// indexGroup finds the first occurrence in b of any key of a group and
// returns where that key starts. A group of one key is a plain bytes.Index;
// the keys of a larger group share a rare pivot byte and are found by one
// IndexByte scan for it.
func indexGroup(b []byte, g *keyGroup) int {
	if len(g.keys) == 1 && g.offs[0] == 0 {
		return bytes.Index(b, g.keys[0])
	}
	for off := 0; off < len(b); {
		i := bytes.IndexByte(b[off:], g.pivot)
		if i < 0 {
			return -1
		}
		i += off
		if g.filtered && (i+1 >= len(b) || !g.follows[b[i+1]]) {
			off = i + 1 // no key has this byte after the pivot ("l" of "loss")
			continue
		}
		for k, w := range g.keys {
			// the key's first byte first: a frequent pivot (the M of
			// "MiB") is tried against every key of its group
			if st := i - g.offs[k]; st >= 0 && st+len(w) <= len(b) && b[st] == w[0] && bytes.Equal(b[st:st+len(w)], w) {
				return st
			}
		}
		off = i + 1
	}
	return -1
}

// tailKeep bounds the copy of a block's end kept for replay.
const tailKeep = 64 << 10

// keepTail copies the end of a block — its last ringSize lines, at most
// tailKeep bytes — so that a hit at the start of the next block can replay
// them. next is the number of the line after the block.
func (s *scanner) keepTail(b []byte, next int) {
	start, lines := len(b), 0
	if start > 0 && b[start-1] == '\n' {
		start--
	}
	for lines < ringSize && start > 0 && len(b)-start < tailKeep {
		start = lastNewline(b[:start]) + 1
		lines++
		if start == 0 {
			break
		}
		start--
	}
	if start > 0 {
		start++ // the line after the newline where the walk stopped
	}
	if len(b)-start > tailKeep {
		start = len(b) - tailKeep
	}
	if start == 0 && lines < ringSize && len(s.tailBuf) > 0 && len(s.tailBuf)+len(b) <= tailKeep {
		// A block of fewer lines than a replay needs (a read can end a
		// block anywhere, even one line after the last): the lines before
		// it are the previous block's kept tail, and they stay.
		keep := lastLines(s.tailBuf, ringSize-lines)
		n := copy(s.tailBuf, keep) // keep is tailBuf's end: copy moves it to the front
		s.tailBuf = append(s.tailBuf[:n], b...)
	} else {
		s.tailBuf = append(s.tailBuf[:0], b[start:]...)
	}
	s.tailFirst = next - countLines(s.tailBuf)
}

// lastLines returns the last n lines of b, a run of whole lines.
func lastLines(b []byte, n int) []byte {
	start := len(b)
	if start > 0 && b[start-1] == '\n' {
		start--
	}
	for ; n > 0 && start > 0; n-- {
		start = lastNewline(b[:start]) + 1
		if start == 0 {
			break
		}
		start--
	}
	if start > 0 {
		start++ // the line after the newline where the walk stopped
	}
	return b[start:]
}

// replayTail feeds up to n lines kept from the previous block that were
// not fed yet, ending with line last.
func (s *scanner) replayTail(last, n int) {
	no, rest := s.tailFirst, s.tailBuf
	for len(rest) > 0 {
		end := bytes.IndexByte(rest, '\n')
		line := rest
		if end >= 0 {
			line, rest = rest[:end], rest[end+1:]
		} else {
			rest = nil
		}
		if no > s.fed && no <= last && no > last-n {
			s.feed(line, no)
		}
		no++
	}
}
