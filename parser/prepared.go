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
	cand  [2][]uint32  // the pivot set's scratch, one per half
}

// candRoom is how many candidate offsets the pivot set reports per call.
const candRoom = 4096

// prepare runs the prefilter over block, reusing p's buffers. A large
// block is searched in two halves at once, one per core, unless oneThread
// is set. A panic in the second half is raised again here.
func (p *preparedBlock) prepare(block []byte, t *prefilter, oneThread bool) {
	if t.set != nil && p.cand[0] == nil {
		p.cand = [2][]uint32{make([]uint32, candRoom), make([]uint32, candRoom)}
	}
	p.data = block
	p.nl.reset()
	mid := -1
	if len(block) >= 256<<10 && !oneThread {
		mid = bytes.IndexByte(block[len(block)/2:], '\n')
	}
	if mid < 0 {
		p.hits = anchorLinesIn(p.hits[:0], block, 0, t, p.cand[0], &p.nl)
		return
	}
	mid += len(block)/2 + 1
	done := make(chan any, 1)
	p.nl2.reset()
	go func() {
		defer func() { done <- recover() }()
		p.hits2 = anchorLinesIn(p.hits2[:0], block[mid:], mid, t, p.cand[1], &p.nl2)
	}()
	p.hits = anchorLinesIn(p.hits[:0], block[:mid], 0, t, p.cand[0], &p.nl)
	if v := <-done; v != nil {
		panic(v)
	}
	p.hits = append(p.hits, p.hits2...)
	p.nl.join(&p.nl2)
}

// preparedBlocks yields br's blocks, each prepared. A log that fits in one
// block (a paste) is prepared in line. A longer one flows through three
// stages: one goroutine reads block n+2 while another prefilters block
// n+1 and the caller scans block n, so that the read, the prefilter and
// the scanner's per-line work share the cores instead of taking turns.
// Three blocks are alive at once, which blockReader allows (liveBlocks),
// and two prepared slots alternate: every hand-over is unbuffered, so the
// reader starts on block n+3, in block n's buffer, only once the
// prefilter has taken block n+2, which it does once the caller has taken
// block n+1 and is done with block n (and slot n%2 with it). A panic in
// either goroutine ends both and is raised again on the caller's, where
// Parse's caller can recover it. With oneThread every stage runs on the
// caller's goroutine instead (a caller that has lowered its thread's
// priority keeps all the work there).
//
// A caller that stops early, or panics, stops both goroutines: each ends
// at its next hand-over, the reader having read at most one block more
// from br, which the caller must then leave alone.
func preparedBlocks(br *blockReader, oneThread bool) iter.Seq[*preparedBlock] {
	return func(yield func(*preparedBlock) bool) {
		var slots [2]preparedBlock
		b, ok := br.next()
		if !ok {
			return
		}
		if br.done() && bytes.Count(b, []byte("\n")) < headLines {
			// The whole log is its head, which is read in full: no line
			// is looked up among the hits.
			slots[0].data = b
			yield(&slots[0])
			return
		}
		t := prefilterTables()
		slots[0].prepare(b, t, oneThread)
		if br.done() {
			yield(&slots[0])
			return
		}
		if oneThread {
			for i := 0; ; i++ {
				if i > 0 {
					b, ok := br.next()
					if !ok {
						return
					}
					slots[i%2].prepare(b, t, true)
				}
				if !yield(&slots[i%2]) {
					return
				}
			}
		}
		// stop ends both goroutines when the caller returns, whether it
		// has taken every block, stopped early or panicked in its loop;
		// failed carries a goroutine's panic to the caller.
		read, ahead, stop, failed := make(chan []byte), make(chan *preparedBlock), make(chan struct{}), make(chan any, 2)
		defer close(stop)
		rescue := func() {
			if v := recover(); v != nil {
				failed <- v
			}
		}
		go func() { // reads block n+2
			defer close(read)
			defer rescue()
			for {
				b, ok := br.next()
				if !ok {
					return
				}
				select {
				case read <- b:
				case <-stop:
					return
				}
			}
		}()
		go func() { // prefilters block n+1
			defer close(ahead)
			defer rescue()
			for i := 0; ; i++ {
				p := &slots[i%2]
				if i > 0 {
					var b []byte
					var ok bool
					select {
					case b, ok = <-read:
					case <-stop:
						return
					}
					if !ok {
						return
					}
					p.prepare(b, t, false)
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
		select {
		case v := <-failed:
			panic(v)
		default:
		}
	}
}
