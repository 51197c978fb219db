package snapshot

import (
	"fmt"
	"sort"

	"github.com/oomdoc/oomdoc/parser"
)

// Block states (Block.state in torch/cuda/memory.py; the allocator writes
// "active_pending_free", the documentation says "active_awaiting_free").
const (
	stateAllocated = "active_allocated"
	statePending   = "active_pending_free"
	stateAwaiting  = "active_awaiting_free"
	stateInactive  = "inactive"
)

// derive sums one device's segments and groups its active blocks.
func derive(name string, segs []segment, traces map[int][]traceEntry, obs *Observed) *Measured {
	dev := pickDevice(segs, traces, obs)
	m := &Measured{Source: "snapshot", Input: name, Device: dev, Holders: []Holder{}}
	type key struct {
		kind  string
		site  Frame
		stack bool
	}
	groups := map[key]*Holder{}
	largest := map[key]int64{} // the largest block of each group, whose stack is shown
	for _, seg := range segs {
		if int(seg.device) != dev {
			continue
		}
		m.Segments++
		m.ReservedBytes += seg.total
		sf := SegmentFree{Address: seg.address, TotalBytes: seg.total}
		for _, b := range seg.blocks {
			switch b.state {
			case stateInactive:
				m.InactiveBytes += b.size
				sf.InactiveBytes += b.size
				sf.LargestFreeBytes = max(sf.LargestFreeBytes, b.size)
				continue
			case stateAllocated:
				m.AllocatedBytes += b.size
			case statePending, stateAwaiting:
			default:
				continue
			}
			m.ActiveBytes += b.size
			c := b.frames.class
			k := key{c.kind, c.site, len(b.frames.frames) > 0}
			h := groups[k]
			if h == nil {
				h = &Holder{Kind: c.kind, Because: c.because, Stack: c.stack}
				if k.stack {
					site := c.site
					h.Site = &site
				}
				groups[k] = h
			}
			h.Bytes += b.size
			h.Blocks++
			if b.size > largest[k] {
				largest[k], h.Stack = b.size, c.stack
			}
		}
		if sf.LargestFreeBytes > m.LargestFreeBlockBytes {
			m.LargestFreeBlockBytes = sf.LargestFreeBytes
			seg := sf
			m.LargestFreeSegment = &seg
		}
	}
	for _, h := range groups {
		m.Holders = append(m.Holders, *h)
	}
	sort.Slice(m.Holders, func(i, j int) bool {
		a, b := m.Holders[i], m.Holders[j]
		if a.Bytes != b.Bytes {
			return a.Bytes > b.Bytes
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return siteKey(a.Site) < siteKey(b.Site)
	})
	if len(m.Holders) > MaxHolders {
		for _, h := range m.Holders[MaxHolders:] {
			m.OmittedHolders++
			m.OmittedBytes += h.Bytes
		}
		m.Holders = m.Holders[:MaxHolders]
	}
	m.OOM, m.OOMStack = failure(traces[dev], obs, dev)
	if obs != nil && obs.Device == dev {
		total := obs.TotalBytes
		m.TotalBytes = &total
	}
	if len(m.OOMStack) > 0 {
		m.Phase = phaseOf(classify(m.OOMStack).kind)
	}
	return m
}

// pickDevice is the device that failed (the observer's, else the last
// trace with an `oom` entry), else the one with the most reserved memory.
func pickDevice(segs []segment, traces map[int][]traceEntry, obs *Observed) int {
	if obs != nil {
		return obs.Device
	}
	best, found := 0, false
	for dev, es := range traces {
		if len(es) > 0 && (!found || dev < best) {
			best, found = dev, true
		}
	}
	if found {
		return best
	}
	reserved := map[int]int64{}
	for _, s := range segs {
		reserved[int(s.device)] += s.total
	}
	for dev, n := range reserved {
		if !found || n > reserved[best] || n == reserved[best] && dev < best {
			best, found = dev, true
		}
	}
	return best
}

// failure is the last `oom` entry of the device's trace, else what the
// observer saw.
func failure(es []traceEntry, obs *Observed, dev int) (*OOM, []Frame) {
	if len(es) > 0 {
		e := es[len(es)-1]
		o := &OOM{RequestedBytes: e.size, DeviceFreeBytes: e.deviceFree}
		if o.DeviceFreeBytes == nil && obs != nil && obs.Device == dev {
			free := obs.FreeBytes
			o.DeviceFreeBytes = &free
		}
		return o, e.frames.frames
	}
	if obs != nil {
		free := obs.FreeBytes
		return &OOM{RequestedBytes: obs.AllocBytes, DeviceFreeBytes: &free}, nil
	}
	return nil, nil
}

// phaseOf maps the failing allocation's kind to the program's phase.
func phaseOf(kind string) string {
	switch kind {
	case KindWeights:
		return parser.PhaseLoad
	case KindOptimizer:
		return parser.PhaseOptimizer
	case KindGradients:
		return parser.PhaseBackward
	case KindActivation, KindKVCache:
		return parser.PhaseForward
	}
	return parser.PhaseUnknown
}

// siteKey orders holders of equal size by site, for a stable report.
func siteKey(f *Frame) string {
	if f == nil {
		return ""
	}
	return fmt.Sprintf("%s:%020d:%s", f.File, f.Line, f.Function)
}
