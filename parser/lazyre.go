package parser

import (
	"regexp"
	"sync"
)

// A lazyRegexp is a regular expression compiled on its first use, once per
// process, so that a run which never needs it (`oomdoc --version`, a pasted
// log of one family) does not pay for compiling it at start-up: eagerly
// compiled, the parser's patterns cost about 1.5 ms and 6,900 allocations
// before main ran. It is a once-initialised immutable value, not mutable
// state: the expression is fixed, sync.Once publishes the compiled
// *regexp.Regexp exactly once, and that is safe for concurrent use.
//
// Its methods are those of *regexp.Regexp that the parser calls, so a
// pattern declared with lazyRE reads exactly like one declared with
// regexp.MustCompile. An invalid expression panics on first use, and the
// parser's tests use every pattern.
type lazyRegexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// lazyRE declares a pattern that is compiled on first use.
func lazyRE(expr string) *lazyRegexp { return &lazyRegexp{expr: expr} }

// get compiles the pattern on the first call and returns it.
func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

// MatchString is (*regexp.Regexp).MatchString.
func (l *lazyRegexp) MatchString(s string) bool { return l.get().MatchString(s) }

// FindString is (*regexp.Regexp).FindString.
func (l *lazyRegexp) FindString(s string) string { return l.get().FindString(s) }

// FindStringIndex is (*regexp.Regexp).FindStringIndex.
func (l *lazyRegexp) FindStringIndex(s string) []int { return l.get().FindStringIndex(s) }

// FindStringSubmatch is (*regexp.Regexp).FindStringSubmatch.
func (l *lazyRegexp) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }

// FindAllStringSubmatch is (*regexp.Regexp).FindAllStringSubmatch.
func (l *lazyRegexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}

// ReplaceAllString is (*regexp.Regexp).ReplaceAllString.
func (l *lazyRegexp) ReplaceAllString(src, repl string) string {
	return l.get().ReplaceAllString(src, repl)
}

// String returns the source text of the pattern.
func (l *lazyRegexp) String() string { return l.expr }
