package parser

import (
	"sort"
	"strings"
)

// A TextSet is a list of texts searched together for cue words: they are
// joined once, with newlines between them, so that each word is looked up
// once for all of them rather than once per text. A rule that asks for the
// first frame, context line or message holding a cue asks a TextSet.
type TextSet struct {
	joined    string
	starts    []int // offset of each text in joined
	backslash bool  // some text holds a backslash: path words are also tried in Windows spelling
	// pairs has a bit for each pair of adjacent bytes in joined: a word
	// with a pair the texts lack is absent without a search, and most of
	// the vocabulary is absent from any one log.
	pairs *[1 << 16 / 64]uint64
}

// NewTextSet joins the texts, in the order First prefers them.
func NewTextSet(texts []string) *TextSet {
	n := 0
	for _, t := range texts {
		n += len(t) + 1
	}
	var b strings.Builder
	b.Grow(n)
	s := &TextSet{starts: make([]int, len(texts))}
	for i, t := range texts {
		s.starts[i] = b.Len()
		b.WriteString(t)
		b.WriteByte('\n')
	}
	s.joined = b.String()
	s.backslash = strings.IndexByte(s.joined, '\\') >= 0
	s.pairs = new([1 << 16 / 64]uint64)
	for i := 0; i+1 < len(s.joined); i++ {
		p := uint16(s.joined[i])<<8 | uint16(s.joined[i+1])
		s.pairs[p>>6] |= 1 << (p & 63)
	}
	return s
}

// mayHold reports whether the texts can hold w: every pair of adjacent
// bytes in w occurs somewhere in them.
func (s *TextSet) mayHold(w string) bool {
	for i := 0; i+1 < len(w); i++ {
		p := uint16(w[i])<<8 | uint16(w[i+1])
		if s.pairs[p>>6]&(1<<(p&63)) == 0 {
			return false
		}
	}
	return true
}

// First returns the index of the first text that holds one of the words,
// matched as HasWord matches them, and false when none does. A word is
// never matched across two texts: none of the vocabulary holds a newline.
func (s *TextSet) First(words []string) (int, bool) {
	best := len(s.starts)
	for _, w := range words {
		if w == "" || strings.IndexByte(w, '\n') >= 0 {
			continue
		}
		switch {
		case isIdentifier(w):
			best = s.first(w, best, wordIdent)
		case isCall(w):
			best = s.first(w, best, wordCall)
		case isFileName(w):
			best = s.first(w, best, wordFile)
			if s.backslash && strings.IndexByte(w, '/') >= 0 {
				best = s.first(strings.ReplaceAll(w, "/", `\`), best, wordFile)
			}
		default:
			best = s.first(w, best, wordPlain)
			if s.backslash && strings.IndexByte(w, '/') >= 0 {
				best = s.first(strings.ReplaceAll(w, "/", `\`), best, wordPlain) // a path word in a Windows traceback
			}
		}
	}
	return best, best < len(s.starts)
}

// How a word must stand where it is found, as HasWord matches it.
const (
	wordPlain = iota // anywhere
	wordIdent        // a whole identifier
	wordCall         // a call: no letter or digit before it
	wordFile         // a file name: where a path component starts
)

// first returns the index of the first text before limit that holds w,
// standing as mode says, or limit when none does.
func (s *TextSet) first(w string, limit, mode int) int {
	if !s.mayHold(w) {
		return limit
	}
	end := len(s.joined)
	if limit < len(s.starts) {
		end = s.starts[limit]
	}
	hay := s.joined[:end]
	for i := 0; i < len(hay); {
		j := strings.Index(hay[i:], w)
		if j < 0 {
			return limit
		}
		j += i
		e := j + len(w)
		var ok bool
		switch mode {
		case wordIdent:
			ok = (j == 0 || !identByte(hay[j-1])) && (e == len(s.joined) || !identByte(s.joined[e]))
		case wordCall:
			ok = j == 0 || !alnumByte(hay[j-1])
		case wordFile:
			ok = j == 0 || !identByte(hay[j-1])
		default:
			ok = true
		}
		if ok {
			return sort.Search(len(s.starts), func(k int) bool { return s.starts[k] > j }) - 1
		}
		i = j + 1
	}
	return limit
}
