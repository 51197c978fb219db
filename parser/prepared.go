package parser

import (
	"bytes"
	"iter"
)

// A preparedBlock is a block of whole lines together with what the
// prefilter found in it: the start offsets of the lines that hold an
// anchor, sorted and unique, and the index of its newlines. A block is
// prepared without the scanner's state, so that the next block can be
// read and prepared while the scanner reads this one.
type preparedBlock struct {
	data  []byte
	hits  []int
	nl    newlineIndex
	hits2 []int        // the second half's hits, searched alongside
	nl2   newlineIndex // … and its newlines
}

// prepare runs the prefilter over block, reusing p's buffers. A large
// block is searched in two halves at once, one per core.
func (p *preparedBlock) prepare(block []byte, groups []keyGroup) {
	p.data = block
	p.nl.reset()
	mid := -1
	if len(block) >= 256<<10 {
		mid = bytes.IndexByte(block[len(block)/2:], '\n')
	}
	if mid < 0 {
		p.hits = anchorLinesIn(p.hits[:0], block, 0, groups, &p.nl)
		return
	}
	mid += len(block)/2 + 1
	done := make(chan struct{})
	p.nl2.reset()
	go func() {
		p.hits2 = anchorLinesIn(p.hits2[:0], block[mid:], mid, groups, &p.nl2)
		close(done)
	}()
	p.hits = anchorLinesIn(p.hits[:0], block[:mid], 0, groups, &p.nl)
	<-done
	p.hits = append(p.hits, p.hits2...)
	p.nl.join(&p.nl2)
}

// preparedBlocks yields br's blocks, each prepared. A log that fits in one
// block (a paste) is prepared in line. A longer one is read ahead: one
// goroutine reads and prepares block n+1 while the caller scans block n,
// so that reading, the prefilter's passes and the scanner's per-line work
// share the cores instead of taking turns. Two blocks are alive at once,
// which blockReader allows (see blockReader.next), and two prepared slots
// alternate: the hand-over is unbuffered, so the reader starts on block
// n+2, in block n's buffer and slot, only once the caller has taken
// block n+1 and is done with block n.
//
// A caller that stops early has the reader drained to the end of input.
func preparedBlocks(br *blockReader, groups []keyGroup) iter.Seq[*preparedBlock] {
	return func(yield func(*preparedBlock) bool) {
		var slots [2]preparedBlock
		b, ok := br.next()
		if !ok {
			return
		}
		slots[0].prepare(b, groups)
		if br.done() {
			yield(&slots[0])
			return
		}
		ahead := make(chan *preparedBlock)
		go func() {
			defer close(ahead)
			ahead <- &slots[0]
			for i := 1; ; i++ {
				b, ok := br.next()
				if !ok {
					return
				}
				p := &slots[i%2]
				p.prepare(b, groups)
				ahead <- p
			}
		}()
		for p := range ahead {
			if !yield(p) {
				for range ahead {
				}
				return
			}
		}
	}
}
