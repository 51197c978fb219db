package rules

import (
	"fmt"
	"math"
	"sort"
)

// Co-culprits (the memory ledger's last item): when memory held outside
// this process and memory this process holds each exceed one failure's
// shortfall — the request less what was free — freeing either alone would
// have made room, so neither is the whole cause. The outside holder and
// the in-process findings are named as co-culprits of each other, and
// each side's confidence is capped by its share of the memory the two
// sides hold.

// A split is one failure's shortfall and this process's own holding, from
// the printed figures; a failure without them has none.
type split struct {
	short  int64 // requested − free
	inside int64 // what this process holds (in use, else reserved)
}

// splits maps each distinct failure's event id to its split.
func splits(fs []*Facts) map[string]split {
	out := map[string]split{}
	for _, f := range fs {
		if f.Requested > 0 && f.FreeKnown && f.Requested > f.Free {
			out[f.Ev.ID] = split{short: f.Requested - f.Free, inside: f.heldByProcess()}
		}
	}
	return out
}

// outsideHolder is the culprit that names memory held outside this
// process's allocator.
const outsideHolder = "other-process"

// holdsOutside reports whether the other-process finding counts memory
// outside this process: other processes the message lists, or capacity −
// free − this process. Non-PyTorch memory inside the process and
// nvidia-smi's totals (which include this process) do not.
func holdsOutside(fd *Finding) bool {
	for _, s := range fd.Signals {
		switch s {
		case otherListed, otherListedPart, otherOutside, otherOutsidePart:
			return true
		}
	}
	return false
}

// markCoCulprits caps and annotates the evidence findings of failures
// whose outside and inside holders are co-culprits, then re-ranks the
// findings by the capped confidence (ties keep the engine's order).
func markCoCulprits(found []Finding, sp map[string]split) {
	changed := false
	for i := range found {
		out := &found[i]
		s, ok := sp[out.Event]
		if !ok || out.Culprit != outsideHolder || !holdsOutside(out) || out.Quantities.HolderBytes < s.short || s.inside < s.short {
			continue
		}
		held := saturatingAdd(out.Quantities.HolderBytes, s.inside)
		var inside []string
		for j := range found {
			in := &found[j]
			if j == i || in.Event != out.Event {
				continue
			}
			inside = append(inside, in.Culprit)
			in.CoCulprits = append(in.CoCulprits, outsideHolder)
			in.Arithmetic = append(in.Arithmetic, coLine(outsideHolder, s.short, s.inside, held))
			changed = capAt(in, s.inside, held) || changed
		}
		if len(inside) == 0 {
			continue
		}
		sort.Strings(inside)
		out.CoCulprits = append(out.CoCulprits, inside...)
		out.Arithmetic = append(out.Arithmetic, coLine("this process's own memory", s.short, out.Quantities.HolderBytes, held))
		changed = capAt(out, out.Quantities.HolderBytes, held) || changed
	}
	if changed {
		sort.SliceStable(found, func(i, j int) bool { return found[i].Confidence > found[j].Confidence })
	}
}

// saturatingAdd is a+b for non-negative byte counts, held at the int64
// limit instead of wrapping.
func saturatingAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// coLine is the arithmetic a co-culprit shows.
func coLine(other string, short, part, whole int64) string {
	return fmt.Sprintf("co-culprit with %s: each alone holds more than the %s shortfall; this side holds %s of their %s (%s)", other, size(short), size(part), size(whole), pct(part, whole))
}

// capAt caps a finding's confidence at its share part/whole, rounded down
// to the hundredth a report shows but never below the lowest it shows
// (0.01), and reports whether it changed. The share is taken in floating
// point: two holders near the int64 limit must not overflow into a
// negative confidence.
func capAt(fd *Finding, part, whole int64) bool {
	c := math.Max(math.Floor(float64(part)/float64(whole)*100)/100, minShown)
	if c >= fd.Confidence {
		return false
	}
	fd.Confidence = c
	return true
}
