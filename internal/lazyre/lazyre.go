// Package lazyre holds regular expressions compiled the first time they
// are used, not when their package is initialised: a tessera process
// runs one command, and compiling every expression of the packages it
// links (the layered preset's task rules, the injection detector's
// bank) was most of a command's start.
package lazyre

import (
	"regexp"
	"sync"
	"sync/atomic"
)

// Regexp is an RE2 expression compiled on first use. Its methods are
// those of [regexp.Regexp] that callers use; Get returns the compiled
// expression for the others. Safe for concurrent use.
type Regexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
	// pre is read from the expression at its second use: a one-shot
	// process uses most expressions once, and reading the literals costs
	// about what compiling does.
	uses    atomic.Int32
	preOnce sync.Once
	pre     *prefilter // nil: run the expression on every text
}

// New returns the expression src, to be compiled when first used. src
// must compile: a package's own expressions are compiled by its tests
// (an expression that does not compile panics at first use, as
// regexp.MustCompile does). For text a user gives, compile it with
// regexp.Compile first and wrap it with Of.
func New(src string) *Regexp {
	return &Regexp{src: src}
}

// Of returns re, already compiled.
func Of(re *regexp.Regexp) *Regexp {
	l := &Regexp{src: re.String(), re: re}
	l.once.Do(func() {})
	return l
}

// Get returns the compiled expression, compiling it the first time.
func (l *Regexp) Get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

// may reports whether s may hold a match, compiling the expression the
// first time: false when s holds none of the literals every match holds
// (looked for from the second use on).
func (l *Regexp) may(s string) bool {
	l.Get()
	if l.uses.Add(1) < 2 {
		return true
	}
	l.preOnce.Do(func() { l.pre = newPrefilter(l.src) })
	return l.pre == nil || l.pre.may(s)
}

// String returns the expression's source.
func (l *Regexp) String() string { return l.src }

// MatchString reports whether s holds a match.
func (l *Regexp) MatchString(s string) bool { return l.may(s) && l.re.MatchString(s) }

// ReplaceAllString is [regexp.Regexp.ReplaceAllString].
func (l *Regexp) ReplaceAllString(src, repl string) string {
	if !l.may(src) {
		return src
	}
	return l.re.ReplaceAllString(src, repl)
}

// ReplaceAllStringFunc is [regexp.Regexp.ReplaceAllStringFunc].
func (l *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	if !l.may(src) {
		return src
	}
	return l.re.ReplaceAllStringFunc(src, repl)
}

// FindStringSubmatch is [regexp.Regexp.FindStringSubmatch].
func (l *Regexp) FindStringSubmatch(s string) []string {
	if !l.may(s) {
		return nil
	}
	return l.re.FindStringSubmatch(s)
}

// FindStringIndex is [regexp.Regexp.FindStringIndex].
func (l *Regexp) FindStringIndex(s string) []int {
	if !l.may(s) {
		return nil
	}
	return l.re.FindStringIndex(s)
}

// FindAllStringIndex is [regexp.Regexp.FindAllStringIndex].
func (l *Regexp) FindAllStringIndex(s string, n int) [][]int {
	if !l.may(s) {
		return nil
	}
	return l.re.FindAllStringIndex(s, n)
}
