package parser

import (
	"strings"
	"sync"
)

// Repairs for text reshaped by a paste (issue 11 §2): markup a forum or
// chat added, and words a terminal or editor split.

// unBold removes the Markdown emphasis markers "**" that a post added
// around or inside a line ("** jax…XlaRuntimeError: RESO**URCE_EXHAUSTED:
// … 2.43G.**"): at the start of the line, at its end, and between two
// letters. Markers between digits ("2**32") or before a name ("**kwargs")
// are code and stay.
func unBold(s string) string {
	if !strings.Contains(s, "**") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	end := len(strings.TrimRight(s, " \t"))
	for i := 0; i < len(s); i++ {
		if s[i] == '*' && i+1 < len(s) && s[i+1] == '*' && (i+2 >= len(s) || s[i+2] != '*') && (i == 0 || s[i-1] != '*') {
			switch {
			case i == 0, i+2 == end && i > 0 && s[i-1] != ' ',
				i > 0 && i+2 < len(s) && isLetter(s[i-1]) && isLetter(s[i+2]):
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unFence removes the Markdown code-fence residue a post left on a line:
// a "```" at either end ("```Traceback …", "Killed```"), and a single
// backtick at the start or the end that pairs with no other on the line
// ("Killed`", the end of an inline-code span that opened lines above).
// Paired backticks are inline code and stay.
func unFence(s string) string {
	if strings.IndexByte(s, '`') < 0 {
		return s
	}
	s = strings.TrimPrefix(s, "```")
	if t := strings.TrimRight(s, " \t"); strings.HasSuffix(t, "```") {
		s = t[:len(t)-3]
	}
	if strings.Count(s, "`")%2 == 1 {
		switch t := strings.TrimRight(s, " \t"); {
		case strings.HasSuffix(t, "`"):
			s = t[:len(t)-1]
		case strings.HasPrefix(s, "`"):
			s = s[1:]
		}
	}
	return s
}

// messageWords are the words of the messages oomdoc reads clause by
// clause; a wrap that cuts one of them is undone.
func messageWords() []string {
	return []string{"allocate", "allocated", "allocation", "unallocated", "capacity", "capacty", "reserved", "memory", "PyTorch", "process", "already", "total", "Tried", "GiB", "MiB", "KiB", "bytes", "expandable_segments", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "fragmentation", "documentation", "Management", "maximum", "requested", "available"}
}

// splitWord reports whether the last word of prev and the first word of
// next are the two halves of one message word, or of one figure: a wrap
// that cut "40.30 GiB" after its first digit ("… Of the allocated memory
// 4" / "0.30 GiB is allocated by PyTorch") — a figure's digits are never
// followed by a space and more digits, and the second half must end in a
// unit.
func splitWord(prev, next string) bool {
	if prev != "" && next != "" && isDigit(prev[len(prev)-1]) && (isDigit(next[0]) || next[0] == '.') {
		t := sizeTextAt(next)
		return t != "" && isLetter(t[len(t)-1]) // a unit after the digits
	}
	if prev == "" || next == "" || !isLetter(prev[len(prev)-1]) || !isLetter(next[0]) {
		return false
	}
	i := strings.LastIndexAny(prev, " (;.,") + 1
	j := strings.IndexAny(next, " );.,")
	if j < 0 {
		j = len(next)
	}
	head, tail := prev[i:], next[:j]
	for _, w := range messageWords() {
		if len(head) < len(w) && head+tail == w {
			return true
		}
	}
	return false
}

// torchCanon restores the PyTorch allocator message's own spelling in a
// copy retyped by hand: case, spaces lost between words and figures, the
// parentheses of the 1.x clause list.
// They are compiled on first use: only a retyped message needs them.
var torchCanon = sync.OnceValue(func() []canonRule {
	return []canonRule{
		{lazyRE(`(?i)\b(cuda|hip|xpu|npu)\s*out\s*of\s*memory\.?\s*`), "CUDA out of memory. "},
		{lazyRE(`(?i)tried\s*to\s*allocate\s*`), "Tried to allocate "},
		{lazyRE(`(?i)(\d)\s*(gib|mib|kib)\b`), "$1 $2"},
		{lazyRE(`(?i)\(?\s*gpu\s*(\d+)\s*;\s*`), "(GPU $1; "},
		{lazyRE(`(?i)\s*total\s*capacity\s*;\s*`), " total capacity; "},
		{lazyRE(`(?i)\s*already\s*allocated\s*;?\s*`), " already allocated; "},
		{lazyRE(`(?i)\s*free\s*;\s*`), " free; "},
		{lazyRE(`(?i)\s*reserved\s*in\s*total\s*by\s*pytorch\)?`), " reserved in total by PyTorch)"},
		{lazyRE(`(?i)\bgpu\s*(\d+)\s*has\s*a\s*total\s*capacity\s*of\s*`), "GPU $1 has a total capacity of "},
		{lazyRE(`(?i)\s*of\s*which\s*`), " of which "},
		{lazyRE(`(?i)\s*is\s*free\b`), " is free"},
		{lazyRE(`(?i)this\s*process\s*has\s*`), "this process has "},
		{lazyRE(`(?i)of\s*the\s*allocated\s*memory\s*`), "Of the allocated memory "},
		{lazyRE(`(?i)\s*is\s*allocated\s*by\s*pytorch`), " is allocated by PyTorch"},
		{lazyRE(`(?i)\s*is\s*reserved\s*by\s*pytorch\s*but\s*unallocated`), " is reserved by PyTorch but unallocated"},
	}
})

// A canonRule rewrites one phrase to its canonical spelling.
type canonRule struct {
	re   *lazyRegexp
	with string
}

// canonTorch rewrites a retyped allocator message in PyTorch's spelling.
func canonTorch(msg string) string {
	for _, c := range torchCanon() {
		msg = c.re.ReplaceAllString(msg, c.with)
	}
	for _, u := range []string{"GiB", "MiB", "KiB"} {
		msg = strings.ReplaceAll(msg, " "+strings.ToLower(u), " "+u)
		msg = strings.ReplaceAll(msg, " "+strings.ToUpper(u), " "+u)
	}
	return strings.Join(strings.Fields(msg), " ")
}
