// Package lazyre holds regular expressions compiled the first time they
// are used, not when their package is initialised: a tessera process
// runs one command, and compiling every expression of the packages it
// links (the layered preset's task rules, the injection detector's
// bank) was most of a command's start.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is an RE2 expression compiled on first use. Its methods are
// those of [regexp.Regexp] that callers use; Get returns the compiled
// expression for the others. Safe for concurrent use.
type Regexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
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

// String returns the expression's source.
func (l *Regexp) String() string { return l.src }

// MatchString reports whether s holds a match.
func (l *Regexp) MatchString(s string) bool { return l.Get().MatchString(s) }

// ReplaceAllString is [regexp.Regexp.ReplaceAllString].
func (l *Regexp) ReplaceAllString(src, repl string) string {
	return l.Get().ReplaceAllString(src, repl)
}

// ReplaceAllStringFunc is [regexp.Regexp.ReplaceAllStringFunc].
func (l *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return l.Get().ReplaceAllStringFunc(src, repl)
}

// FindStringSubmatch is [regexp.Regexp.FindStringSubmatch].
func (l *Regexp) FindStringSubmatch(s string) []string { return l.Get().FindStringSubmatch(s) }

// FindStringIndex is [regexp.Regexp.FindStringIndex].
func (l *Regexp) FindStringIndex(s string) []int { return l.Get().FindStringIndex(s) }

// FindAllStringIndex is [regexp.Regexp.FindAllStringIndex].
func (l *Regexp) FindAllStringIndex(s string, n int) [][]int { return l.Get().FindAllStringIndex(s, n) }
