package render

import (
	"strings"

	"github.com/oomdoc/oomdoc/parser"
)

// A memoryBar is the stacked bar of a device's capacity: PyTorch's
// allocated memory, reserved-but-unallocated, memory outside PyTorch
// (non-PyTorch memory and other processes) and free — with the failed
// request drawn against the free part beneath it.
type memoryBar struct {
	capacity, allocated, unallocated, outside, free, request int64
	knownAllocated, knownUnalloc, knownOutside, knownFree    bool
}

// barOf reads the bar's segments from an event; ok is false when the event
// lacks the capacity or any breakdown.
func barOf(ev *parser.Event) (memoryBar, bool) {
	b := memoryBar{}
	if ev.TotalBytes == nil || *ev.TotalBytes <= 0 {
		return b, false
	}
	b.capacity = *ev.TotalBytes
	if ev.AllocatedBytes != nil {
		b.allocated, b.knownAllocated = *ev.AllocatedBytes, true
	}
	if ev.ReservedUnallocatedBytes != nil {
		b.unallocated, b.knownUnalloc = *ev.ReservedUnallocatedBytes, true
	}
	if ev.FreeBytes != nil {
		b.free, b.knownFree = *ev.FreeBytes, true
	}
	if ev.RequestedBytes != nil {
		b.request = *ev.RequestedBytes
	}
	if ev.Kind == parser.KindMPS && ev.OtherAllocationsBytes != nil && b.knownAllocated && !b.knownFree {
		// MPS prints what its allocator holds, what else holds the
		// unified memory, and the cap. What is left below the cap is not
		// printed, and the rounded figures cannot tell it to the MiB.
		b.outside, b.knownOutside = *ev.OtherAllocationsBytes, true
		return b, true
	}
	if b.knownFree && (b.knownAllocated || b.knownUnalloc) && !b.oversubscribed() {
		// printed figures are rounded: a few MiB below zero is none
		b.outside = max(0, b.capacity-b.free-b.allocated-b.unallocated)
		b.knownOutside = true
	}
	if !b.knownAllocated && !b.knownFree {
		return b, false
	}
	return b, true
}

// oversubscribed reports whether PyTorch holds more than the device's
// capacity: the driver is paging device memory out (Windows' CUDA
// system-memory fallback), or the capacity printed is not the device's.
func (b memoryBar) oversubscribed() bool {
	return b.allocated+b.unallocated > b.capacity
}

// draw renders the bar in width cells and the request marker line.
func (b memoryBar) draw(st styles, width int) (bar, marker string) {
	// cells converts bytes to bar cells, clamped to the bar: a truncated or
	// garbled message can report more memory than its capacity.
	cells := func(n int64) int {
		if b.capacity <= 0 || n <= 0 {
			return 0
		}
		if n >= b.capacity {
			return width
		}
		return int(float64(n)/float64(b.capacity)*float64(width) + 0.5)
	}
	a := cells(b.allocated)
	u := min(cells(b.unallocated), width-a)
	o := min(cells(b.outside), width-a-u)
	f := width - a - u - o
	if f < 0 {
		f = 0
	}
	if b.knownFree && b.free > 0 && f == 0 {
		f = 1
		switch {
		case a > 0:
			a--
		case o > 0:
			o--
		}
	}
	var sb strings.Builder
	sb.WriteString(st.barAlloc.Render(strings.Repeat("█", a)))
	sb.WriteString(st.barUnalloc.Render(strings.Repeat("▓", u)))
	sb.WriteString(st.barOutside.Render(strings.Repeat("▒", o)))
	sb.WriteString(st.barFree.Render(strings.Repeat("░", f)))
	bar = sb.String()
	if b.request > 0 {
		r := max(cells(b.request), 1)
		start := width - f
		over := start+r > width
		if over {
			r = width - start
		}
		m := strings.Repeat(" ", start) + "└" + strings.Repeat("─", max(r-1, 0))
		if over {
			m += "▶"
		}
		marker = st.barRequest.Render(m)
	}
	return bar, marker
}
