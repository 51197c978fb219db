package parser

import (
	"strconv"
	"strings"
)

// The PyTorch allocator message is read clause by clause with literal
// phrase lookups rather than regular expressions: a figure is the size
// printed right before or right after a fixed phrase. This keeps a
// 100,000-failure retry log fast (research/formats.md §7.2: "parse the
// message as a sequence of optional clauses, not one regex").

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isLetter(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// sizeAfter parses the size that starts right after the first phrase in s.
func sizeAfter(s, phrase string) (*int64, bool) {
	i := strings.Index(s, phrase)
	if i < 0 {
		return nil, false
	}
	return sizeAt(s[i+len(phrase):]), true
}

// sizeAt parses a size at the start of s: digits, an optional fraction, an
// optional space and a unit ("2.00 GiB", "6.00MiB", "0 bytes").
func sizeAt(s string) *int64 { return sizeOf(sizeTextAt(s)) }

// sizeTextAt is the text of the size at the start of s, "" when none.
func sizeTextAt(s string) string {
	j := 0
	for j < len(s) && (isDigit(s[j]) || s[j] == '.') {
		j++
	}
	if j == 0 {
		return ""
	}
	k := j
	if k < len(s) && s[k] == ' ' {
		k++
	}
	u := k
	for u < len(s) && isLetter(s[u]) {
		u++
	}
	if _, ok := unitBytes(s[k:u]); !ok {
		u = j
	}
	return s[:u]
}

// sizeBefore parses the size printed right before the first phrase in s.
func sizeBefore(s, phrase string) (*int64, bool) {
	i := strings.Index(s, phrase)
	if i < 0 {
		return nil, false
	}
	end := i
	j := end
	for j > 0 && isLetter(s[j-1]) {
		j--
	}
	if j > 0 && s[j-1] == ' ' && j < end {
		j--
	}
	k := j
	for k > 0 && (isDigit(s[k-1]) || s[k-1] == '.') {
		k--
	}
	if k == j {
		return nil, true
	}
	return sizeOf(s[k:end]), true
}

// intAfter parses the integer right after the first phrase in s.
func intAfter(s, phrase string) (*int, bool) {
	i := strings.Index(s, phrase)
	if i < 0 {
		return nil, false
	}
	rest := s[i+len(phrase):]
	j := 0
	for j < len(rest) && isDigit(rest[j]) {
		j++
	}
	if j == 0 || j > 9 {
		return nil, true
	}
	n, _ := strconv.Atoi(rest[:j])
	return &n, true
}

// processesIn reads every "Process N has X memory in use" clause.
func processesIn(s string) []Process {
	var out []Process
	for len(out) < 64 {
		i := strings.Index(s, "Process ")
		if i < 0 {
			break
		}
		s = s[i+len("Process "):]
		j := 0
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == 0 || j > 18 || !strings.HasPrefix(s[j:], " has ") {
			continue
		}
		pid, _ := strconv.ParseInt(s[:j], 10, 64)
		rest := s[j+len(" has "):]
		if end := strings.Index(rest, " memory in use"); end >= 0 {
			out = append(out, Process{PID: pid, Bytes: sizeOf(rest[:end])})
		}
	}
	return out
}

// A clause is a phrase next to which the message prints one figure, and
// the event field that figure goes to.
type clause struct {
	phrase string
	dst    **int64
}

// readClauses fills each clause's field from the figure that find reads
// next to its phrase, leaving fields whose phrase is absent untouched.
func readClauses(msg string, cs []clause, find func(s, phrase string) (*int64, bool)) {
	for _, c := range cs {
		if v, ok := find(msg, c.phrase); ok {
			*c.dst = v
		}
	}
}
