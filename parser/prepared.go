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
	data    []byte
	hits    []int
	shapes  []uint64 // each hit line's raw shape (hitShape)
	nl      newlineIndex
	hits2   []int        // the second half's hits, searched alongside
	shapes2 []uint64     // … their shapes
	nl2     newlineIndex // … and its newlines
	cand    [2][]uint32  // the pivot set's scratch, one per half
}

// candRoom is how many candidate offsets the pivot set reports per call.
const candRoom = 4096

// prepare runs the prefilter over block, reusing p's buffers. A large
// block is searched in two halves at once, one per core.
func (p *preparedBlock) prepare(block []byte, t *tables) {
	if t.set != nil && p.cand[0] == nil {
		p.cand = [2][]uint32{make([]uint32, candRoom), make([]uint32, candRoom)}
	}
	p.data = block
	p.nl.reset()
	mid := -1
	if len(block) >= 256<<10 {
		mid = bytes.IndexByte(block[len(block)/2:], '\n')
	}
	if mid < 0 {
		p.hits = anchorLinesIn(p.hits[:0], block, 0, t, p.cand[0], &p.nl)
		p.shapes = appendShapes(p.shapes[:0], block, p.hits)
		return
	}
	mid += len(block)/2 + 1
	done := make(chan struct{})
	p.nl2.reset()
	go func() {
		p.hits2 = anchorLinesIn(p.hits2[:0], block[mid:], mid, t, p.cand[1], &p.nl2)
		p.shapes2 = appendShapes(p.shapes2[:0], block, p.hits2)
		close(done)
	}()
	p.hits = anchorLinesIn(p.hits[:0], block[:mid], 0, t, p.cand[0], &p.nl)
	p.shapes = appendShapes(p.shapes[:0], block, p.hits)
	<-done
	p.hits = append(p.hits, p.hits2...)
	p.shapes = append(p.shapes, p.shapes2...)
	p.nl.join(&p.nl2)
}

// appendShapes appends the raw shape of each hit line of block.
func appendShapes(shapes []uint64, block []byte, hits []int) []uint64 {
	for _, h := range hits {
		shapes = append(shapes, hitShape(block, h))
	}
	return shapes
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
// A caller that stops early, or panics, stops the reader: it ends at its
// next hand-over, having read at most one block more.
func preparedBlocks(br *blockReader, t *tables) iter.Seq[*preparedBlock] {
	return func(yield func(*preparedBlock) bool) {
		var slots [2]preparedBlock
		b, ok := br.next()
		if !ok {
			return
		}
		slots[0].prepare(b, t)
		if br.done() {
			yield(&slots[0])
			return
		}
		// stop ends the reader when the caller returns, whether it has
		// taken every block, stopped early or panicked in its loop.
		ahead, stop := make(chan *preparedBlock), make(chan struct{})
		defer close(stop)
		go func() {
			defer close(ahead)
			for i := 0; ; i++ {
				p := &slots[i%2]
				if i > 0 {
					b, ok := br.next()
					if !ok {
						return
					}
					p.prepare(b, t)
				}
				select {
				case ahead <- p:
				case <-stop:
					return
				}
			}
		}()
		for p := range ahead {
			if !yield(p) {
				return
			}
		}
	}
}
