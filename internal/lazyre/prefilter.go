package lazyre

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A prefilter is a set of literals one of which every match of an
// expression holds, compared with case folded away: a text holding none
// of them cannot match, and the expression is not run over it. Most of a
// task rule's expressions are alternations of words in several
// languages, which Go's backtracking matcher tries at every position of
// a text that holds none of them.
type prefilter struct {
	lits []string // folded (see fold)
}

// maxLiterals bounds a prefilter: more literals than this cost more to
// look for than the expression they would spare.
const maxLiterals = 96

// newPrefilter returns the prefilter of src, or nil when a match need
// hold no literal of two bytes or more that the expression names (a
// class, an empty match, an optional part).
func newPrefilter(src string) *prefilter {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	lits, ok := required(re.Simplify())
	if !ok || len(lits) == 0 || len(lits) > maxLiterals {
		return nil
	}
	for _, l := range lits {
		if len(l) < 2 {
			return nil
		}
	}
	slices.Sort(lits)
	return &prefilter{lits: slices.Compact(lits)}
}

// required returns literals one of which every match of re holds,
// folded, and whether there are such.
func required(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{fold(string(re.Rune))}, true
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
		return nil, false
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			lits, ok := required(sub)
			if !ok {
				return nil, false
			}
			all = append(all, lits...)
		}
		return all, true
	case syntax.OpConcat:
		// Any part's literals will do: the part whose shortest literal
		// is longest, then the one with the fewest.
		var best []string
		found := false
		for _, sub := range re.Sub {
			lits, ok := required(sub)
			if !ok {
				continue
			}
			if !found || better(lits, best) {
				best, found = lits, true
			}
		}
		return best, found
	}
	return nil, false
}

// better reports whether literals a make a better prefilter than b.
func better(a, b []string) bool {
	ma, mb := shortest(a), shortest(b)
	if ma != mb {
		return ma > mb
	}
	return len(a) < len(b)
}

func shortest(lits []string) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l) < n {
			n = len(l)
		}
	}
	return n
}

// fold writes each letter of s as the smallest of the letters simple
// case folding makes it equal to ('K', 'k' and the Kelvin sign are all
// 'K'), so that two texts equal under the folding of (?i) are equal.
func fold(s string) string {
	var b strings.Builder
	changed := false
	for i, r := range s {
		f := foldRune(r)
		if !changed {
			// A byte that is not UTF-8 is read as U+FFFD, as the
			// expression reads it.
			if f == r && r != utf8.RuneError {
				continue
			}
			changed = true
			b.Grow(len(s))
			b.WriteString(s[:i])
		}
		b.WriteRune(f)
	}
	if !changed {
		return s
	}
	return b.String()
}

// foldRune is the smallest rune of r's simple folding orbit.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r
		}
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}
	min := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < min {
			min = f
		}
	}
	return min
}

// may reports whether s may hold a match: whether it holds one of the
// literals, folded.
func (p *prefilter) may(s string) bool {
	s = fold(s)
	for _, l := range p.lits {
		if strings.Contains(s, l) {
			return true
		}
	}
	return false
}
