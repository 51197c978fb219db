package rules

import (
	"fmt"

	"github.com/oomdoc/oomdoc/snapshot"
)

// Signals read from a PyTorch memory snapshot: measured holders, cited by
// the snapshot instead of a log line.
const (
	weightsMeasured    = "weights-too-large/measured-weights"
	optimizerMeasured  = "optimizer-state/measured-optimizer-state"
	kvMeasured         = "kv-cache/measured-cache"
	activationMeasured = "activations/measured-activations"
	fragMeasured       = "fragmentation/measured-largest-block"
)

// measuredShare sums the active bytes the snapshot attributes to holders of
// the kind, and returns the evidence naming the largest of them, when they
// hold at least share of the active memory.
func (f *Facts) measuredShare(kind string, share float64) (Evidence, int64, bool) {
	m := f.Measured
	if m == nil || m.ActiveBytes <= 0 {
		return Evidence{}, 0, false
	}
	var sum int64
	var top *snapshot.Holder
	for i := range m.Holders {
		h := &m.Holders[i]
		if h.Kind != kind {
			continue
		}
		sum += h.Bytes
		if top == nil || h.Bytes > top.Bytes {
			top = h
		}
	}
	if top == nil || float64(sum) < share*float64(m.ActiveBytes) {
		return Evidence{}, 0, false
	}
	site := "no stack recorded"
	if top.Site != nil {
		site = fmt.Sprintf("%s(), %s:%d", top.Site.Function, top.Site.File, top.Site.Line)
	}
	text := fmt.Sprintf("snapshot: %s hold %s of %s active (largest at %s)", kind, size(sum), size(m.ActiveBytes), site)
	return Evidence{Input: m.Input, Text: text}, sum, true
}

// measuredFragmentation reports a snapshot whose largest free block is
// smaller than the request although the free (cached) blocks together
// would hold it: fragmentation measured, not inferred.
func (f *Facts) measuredFragmentation() (Evidence, bool) {
	m := f.Measured
	if m == nil || f.Requested <= 0 || m.LargestFreeBlockBytes >= f.Requested || m.InactiveBytes < f.Requested {
		return Evidence{}, false
	}
	text := fmt.Sprintf("snapshot: %s cached free in PyTorch's blocks, but the largest is %s < the %s request", size(m.InactiveBytes), size(m.LargestFreeBlockBytes), size(f.Requested))
	return Evidence{Input: m.Input, Text: text}, true
}

// fireMeasured fires the culprit's measured signal when the snapshot
// shows its holder with at least share of the active memory.
func (f *Facts) fireMeasured(fd *Finding, kind, signal string, share float64) bool {
	e, n, ok := f.measuredShare(kind, share)
	if !ok {
		return false
	}
	fd.fire(signal)
	fd.Evidence = append(fd.Evidence, e)
	fd.Quantities.HolderBytes = n
	fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("measured: %s hold %s of %s active (%s)", kind, size(n), size(f.Measured.ActiveBytes), pct(n, f.Measured.ActiveBytes)))
	return true
}
