package snapshot

import "sort"

// KindTotal is the holders of one kind together.
type KindTotal struct {
	Kind   string
	Bytes  int64
	Blocks int
	Sites  int
	Top    Holder // the kind's largest site
}

// ByKind sums the listed holders by kind, largest first (holders past
// MaxHolders are in OmittedBytes, not here).
func (m *Measured) ByKind() []KindTotal {
	var out []KindTotal
	at := map[string]int{}
	for _, h := range m.Holders { // ranked by bytes: the first of a kind is its largest
		i, ok := at[h.Kind]
		if !ok {
			i = len(out)
			at[h.Kind] = i
			out = append(out, KindTotal{Kind: h.Kind, Top: h})
		}
		out[i].Bytes += h.Bytes
		out[i].Blocks += h.Blocks
		out[i].Sites++
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Bytes > out[j].Bytes })
	return out
}

// BytesOf is the active bytes the listed holders of one kind hold.
func (m *Measured) BytesOf(kind string) int64 {
	var n int64
	for _, h := range m.Holders {
		if h.Kind == kind {
			n += h.Bytes
		}
	}
	return n
}

// Fragmented reports the allocator's own evidence of fragmentation: the
// memory cached free would hold the failed request, but no free block
// does. False when the snapshot records no failure.
func (m *Measured) Fragmented() bool {
	return m.OOM != nil && m.InactiveBytes >= m.OOM.RequestedBytes && m.LargestFreeBlockBytes < m.OOM.RequestedBytes
}
