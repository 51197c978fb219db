package parser

import (
	"bytes"
	"sort"
	"strings"
	"sync"
)

// The prefilter decides which lines past the head of a log are read at all.
// It is derived from the matchers' own keywords (failureMatcher.anchors), so
// that a family found in the first lines of a log is found anywhere in it
// (issue 11 §3): every anchor of every matcher contains one of the block
// keys, and a line that holds no key can hold no failure.

// coverKeys are short words that many anchors share, each starting with a
// byte that is rare in logs so that a block is searched for it at memory
// speed. An anchor that contains one of them is found through it; an
// anchor that contains none becomes a key of its own.
func coverKeys() []string {
	return []string{"mory", "MORY", "Tried to", "OOM", "Killed", "KV cache", "STATUS_", "SIGKILL", "xitcode", "malloc", "xhausted", "XHAUSTED", "failed to allocate", "CPUAlloc", "xits with", "xitCode", "xit Code"}
}

// tracebackKeys let the lines that open a traceback or an error's message
// through the per-line gate, so that the frames and the header before a
// failure are read (a Rust panic's "thread 'main' panicked at", whose
// message names the memory failure lines below: errorHeader).
func tracebackKeys() []string {
	return []string{"Traceback", "File ", "Cell In[", "ipython-input", "panicked at"}
}

// tables are the matchers, once per process.
type tables struct {
	matchers []failureMatcher
}

// A prefilter is the block keys and the per-line gate derived from the
// matchers' anchors, once per process, and only when a log runs past its
// head (a paste, read in full, never needs them: building them is about
// half a millisecond).
type prefilter struct {
	keys   []string   // the block keys, derived from the matchers' anchors
	groups []keyGroup // keys grouped by a shared pivot byte, one pass per group
	set    *pivotSet  // every group's pivot in one pass, where the processor has the kernel
	tbKeys [][]byte   // traceback keys: with the groups, the per-line gate
}

// parserTables builds the tables on first use; regexps are compiled once
// per process, not per Parse.
var parserTables = sync.OnceValue(func() *tables { return &tables{matchers: failureMatchers()} })

// prefilterTables derives the prefilter on first use.
var prefilterTables = sync.OnceValue(buildPrefilter)

// buildPrefilter derives the prefilter from the matchers' anchors.
func buildPrefilter() *prefilter {
	var anchors []string
	for _, m := range parserTables().matchers {
		anchors = append(anchors, m.anchors...)
	}
	t := &prefilter{keys: deriveKeys(anchors, coverKeys())}
	t.groups = groupKeys(t.keys)
	t.set = newPivotSet(t.groups)
	for _, k := range append(tracebackKeys(), panicEndKeys()...) {
		t.tbKeys = append(t.tbKeys, []byte(k))
	}
	return t
}

// deriveKeys returns the keys that find every anchor: the cover keys the
// anchors contain, and each anchor that contains none, cut to start at its
// rarest byte.
func deriveKeys(anchors, cover []string) []string {
	used := map[string]bool{}
	for _, a := range anchors {
		key := ""
		for _, c := range cover {
			if strings.Contains(a, c) {
				key = c
				break
			}
		}
		if key == "" {
			key = rareStart(a)
		}
		used[key] = true
	}
	keys := make([]string, 0, len(used))
	for k := range used {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// A key that contains another key is found through the shorter one.
	out := keys[:0]
	for _, k := range keys {
		covered := false
		for _, o := range keys {
			if o != k && strings.Contains(k, o) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, k)
		}
	}
	return out
}

// rareStart cuts an anchor to begin at its rarest byte (keeping at least
// four bytes), which makes the block search skip ahead on that byte.
func rareStart(a string) string {
	best, bestRank := 0, byteRank(a[0])
	for i := 1; i+4 <= len(a); i++ {
		if r := byteRank(a[i]); r < bestRank {
			best, bestRank = i, r
		}
	}
	return a[best:]
}

// byteRank orders bytes by how often they occur in logs, rarest lowest:
// punctuation, capitals and other bytes are rare; the bytes of common, most
// frequent first, rank 100 and above — among them the punctuation of logger
// prefixes and Python reprs (":", "'", '"', "[", "]", "="), on nearly every
// line of a training log, which a pass must not stop at.
func byteRank(c byte) int {
	const common = " etaoinsrlcdu0123456789mhpfgw.,/_-:'[]=\""
	if i := strings.IndexByte(common, c); i >= 0 {
		return 200 - i // the first in common is the most frequent
	}
	if c >= 'a' && c <= 'z' {
		return 60
	}
	if c >= 'A' && c <= 'Z' {
		return 40
	}
	return 20
}

// A keyGroup is keys found in one pass over a block: each holds the pivot
// byte at its offset in offs.
type keyGroup struct {
	pivot byte
	keys  [][]byte
	offs  []int
	// follows holds the bytes that come right after the pivot in some
	// key, when every key has one (filtered): a pivot followed by any
	// other byte starts no key, and the keys need not be tried. A frequent
	// pivot ("l", on every line of a log that prints "loss") is then
	// rejected by one lookup.
	follows  [256]bool
	filtered bool
}

// withFollows fills g's follow filter from its keys and offsets.
func withFollows(g keyGroup) keyGroup {
	g.filtered = len(g.keys) > 1
	for k, w := range g.keys {
		if g.offs[k]+1 >= len(w) {
			g.filtered = false // a key ends at its pivot
			break
		}
		g.follows[w[g.offs[k]+1]] = true
	}
	return g
}

// groupKeys groups keys by a shared rare pivot byte, greedily: the byte
// that the most ungrouped keys hold (rarer bytes first among equals) makes
// the next group, so that few passes find every key.
func groupKeys(keys []string) []keyGroup {
	left := append([]string{}, keys...)
	var out []keyGroup
	for len(left) > 0 {
		// holding[c] is how many ungrouped keys hold byte c: counted key by
		// key, not byte by byte over every key, since a pasted log pays for
		// building the prefilter on every run.
		var holding [256]int
		for _, k := range left {
			var seen [256]bool
			for i := 0; i < len(k); i++ {
				if !seen[k[i]] {
					seen[k[i]] = true
					holding[k[i]]++
				}
			}
		}
		best, bestN, bestRank := byte(0), 0, 1<<30
		for c := 1; c < 256; c++ {
			n := holding[c]
			if n == 0 {
				continue
			}
			r := byteRank(byte(c))
			if r >= 100 {
				continue // a frequent byte makes a slow pass
			}
			if n > bestN || n == bestN && n > 0 && r < bestRank {
				best, bestN, bestRank = byte(c), n, r
			}
		}
		if bestN == 0 {
			// only frequent bytes left: each key is its own plain search
			for _, k := range left {
				out = append(out, keyGroup{pivot: k[0], keys: [][]byte{[]byte(k)}, offs: []int{0}})
			}
			break
		}
		g := keyGroup{pivot: best}
		rest := left[:0]
		for _, k := range left {
			if i := strings.IndexByte(k, best); i >= 0 {
				g.keys = append(g.keys, []byte(k))
				g.offs = append(g.offs, i)
			} else {
				rest = append(rest, k)
			}
		}
		if len(g.keys) == 1 && byteRank(g.keys[0][0]) <= byteRank(best) {
			g.offs[0] = 0 // one key that starts rare: bytes.Index is faster
			g.pivot = g.keys[0][0]
		}
		out = append(out, g)
		left = rest
	}
	out = rideAlong(out)
	for i := range out {
		out[i] = withFollows(out[i])
	}
	return out
}

// rideAlong merges passes whose pivot is a lower-case letter into a pass
// that must scan for a frequent byte anyway: a key of only frequent bytes
// ("lloc", of alloc and malloc) is searched on its own, and a group whose
// every key holds one of that key's bytes ("kill:", "killed" and
// "VkResult" all hold its l) is found in the same pass instead of a pass
// of its own. Lower-case pivots are the costly ones to drop: "k" is on
// every line of a rank-prefixed log ("[rank3]:").
func rideAlong(groups []keyGroup) []keyGroup {
	for p := range groups {
		if len(groups[p].keys) != 1 || !allFrequent(groups[p].keys[0]) {
			continue
		}
		key := groups[p].keys[0]
		best, bestN := byte(0), 0
		for _, c := range key {
			n := 0
			for g := range groups {
				if g != p && lowerPivot(groups[g]) && allHold(groups[g].keys, c) {
					n++
				}
			}
			if n > bestN {
				best, bestN = c, n
			}
		}
		if bestN == 0 {
			continue
		}
		merged := keyGroup{pivot: best, keys: [][]byte{key}, offs: []int{bytes.IndexByte(key, best)}}
		riders := map[int]bool{}
		for g := range groups {
			if g != p && lowerPivot(groups[g]) && allHold(groups[g].keys, best) {
				riders[g] = true
				for _, k := range groups[g].keys {
					merged.keys = append(merged.keys, k)
					merged.offs = append(merged.offs, bytes.IndexByte(k, best))
				}
			}
		}
		var rest []keyGroup
		for g := range groups {
			if g == p {
				rest = append(rest, merged)
			} else if !riders[g] {
				rest = append(rest, groups[g])
			}
		}
		return rideAlong(rest)
	}
	return groups
}

// allFrequent reports whether every byte of k is one of the frequent ones.
func allFrequent(k []byte) bool {
	for _, c := range k {
		if byteRank(c) < 100 {
			return false
		}
	}
	return true
}

// lowerPivot reports whether a group's pass scans for a lower-case letter.
func lowerPivot(g keyGroup) bool {
	r := byteRank(g.pivot)
	return r >= 60 && r < 100 && g.pivot >= 'a' && g.pivot <= 'z'
}

// allHold reports whether every key holds byte c.
func allHold(keys [][]byte, c byte) bool {
	for _, k := range keys {
		if bytes.IndexByte(k, c) < 0 {
			return false
		}
	}
	return true
}

// gate is the cheap test every line past the head passes before any
// pattern runs: it lets through lines that could start or belong to a
// failure or a traceback.
func (s *scanner) gate(b []byte) bool {
	if s.pre == nil {
		s.pre = prefilterTables()
	}
	for i := range s.pre.groups {
		if indexGroup(b, &s.pre.groups[i]) >= 0 {
			return true
		}
	}
	for _, a := range s.pre.tbKeys {
		if bytes.Contains(b, a) {
			return true
		}
	}
	return false
}
