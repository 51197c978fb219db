package rules

import (
	"sort"
	"strconv"

	"github.com/oomdoc/oomdoc/parser"
)

// MaxFailures bounds how many distinct failures of one input are diagnosed;
// the rest repeat them (the same OOM on every rank, a retry loop).
const MaxFailures = 8

// specificity breaks ties between equally confident findings: a culprit
// named by the failure's own text or frames outranks one inferred from
// figures alone.
func specificity() []string {
	return []string{
		"serving-memory-budget", "host-ram", "mps-limit", "library-workspace", "visual-tokens", "vae-decode",
		"kv-cache", "attention-matrix", "logits-upcast", "optimizer-state", "checkpoint-to-gpu",
		"weights-wrong-dtype", "weights-too-large", "allocation-limit", "other-process", "device-imbalance",
		"no-grad-missing", "activations", "batch-too-large", "fragmentation", "leak",
	}
}

func rank(id string) int {
	for i, s := range specificity() {
		if s == id {
			return i
		}
	}
	return len(specificity())
}

// Diagnose runs the rules on every distinct failure of the input and
// returns the findings ranked, most likely first, one per culprit (the most
// confident). An input without failures gets none.
func Diagnose(in Input, rs []Rule) []Finding {
	best := map[string]Finding{}
	for _, i := range distinctFailures(in.Result.Events) {
		f := NewFacts(in, i)
		for _, r := range rs {
			fd := r.Check(f)
			if fd == nil || fd.Confidence <= 0 {
				continue
			}
			fd.Confidence = min(fd.Confidence, 0.95)
			fd.Evidence = dedupeEvidence(fd.Evidence)
			if fd.Basis == "" {
				fd.Basis = BasisEvidence
			}
			if old, ok := best[fd.Culprit]; !ok || fd.Confidence > old.Confidence {
				best[fd.Culprit] = *fd
			}
		}
	}
	out := make([]Finding, 0, len(best))
	for _, fd := range best {
		out = append(out, fd)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Confidence != out[j].Confidence {
			return out[i].Confidence > out[j].Confidence
		}
		return rank(out[i].Culprit) < rank(out[j].Culprit)
	})
	return out
}

// distinctFailures returns the indexes of the events that are not repeats
// of an earlier one on another rank (same kind and figures).
func distinctFailures(evs []parser.Event) []int {
	seen := map[string]bool{}
	var out []int
	for i := range evs {
		k := failureKey(&evs[i])
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, i)
		if len(out) == MaxFailures {
			break
		}
	}
	return out
}

func failureKey(ev *parser.Event) string {
	v := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatInt(*p, 10)
	}
	return ev.Kind + "|" + ev.Phase + "|" + v(ev.RequestedBytes) + "|" + v(ev.TotalBytes) + "|" + v(ev.AllocatedBytes)
}

// dedupeEvidence drops empty and repeated evidence lines.
func dedupeEvidence(es []Evidence) []Evidence {
	var out []Evidence
	seen := map[string]bool{}
	for _, e := range es {
		if e.Text == "" {
			continue
		}
		k := strconv.Itoa(e.Line) + e.Text
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	return out
}
