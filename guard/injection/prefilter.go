package injection

import (
	"regexp/syntax"
	"slices"
)

// requiredLiterals returns strings one of which every match of the
// expression contains, or nil when no such set is known (then the
// expression is always run). The detector checks a text for them with
// strings.Contains before it runs the expression: Go's expressions cost
// tens of nanoseconds a byte, and most texts hold none of a pattern's
// words.
func requiredLiterals(expr string) []string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	lits := literals(re.Simplify())
	// Short literals prove little and match everywhere.
	for _, l := range lits {
		if len(l) < 2 {
			return nil
		}
	}
	slices.Sort(lits)
	return slices.Compact(lits)
}

// requiredLiteralSets returns sets of strings such that every match of
// the expression holds one string of each set: for an expression made
// of parts in a row, the literals of each part that has them (at most
// maxSets, the most telling), else requiredLiterals' one set; nil when
// none is known. A text must hold one literal of every set before the
// expression is run, which rules out far more texts than one set: an
// order to "skip" something runs the expression for skipped checks only
// when the text also names an authentication and a header.
func requiredLiteralSets(expr string) [][]string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	var sets [][]string
	if re.Op == syntax.OpConcat {
		for _, sub := range re.Sub {
			if l := literals(sub); l != nil && minLen(l) >= 2 {
				sets = append(sets, sortedSet(l))
			}
		}
	}
	if len(sets) == 0 {
		if l := requiredLiterals(expr); l != nil {
			return [][]string{l}
		}
		return nil
	}
	// The most telling first: the longest shortest literal.
	slices.SortStableFunc(sets, func(a, b []string) int { return minLen(b) - minLen(a) })
	return sets[:min(len(sets), maxSets)]
}

// maxSets bounds the sets requiredLiteralSets keeps.
const maxSets = 3

func sortedSet(l []string) []string {
	l = slices.Clone(l)
	slices.Sort(l)
	return slices.Compact(l)
}

// maxLiterals bounds the set one expression keeps.
const maxLiterals = 64

// literals is the set of strings one of which every match of re holds,
// or nil for none known.
func literals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return []string{string(re.Rune)}
	case syntax.OpCapture:
		return literals(re.Sub[0])
	case syntax.OpPlus:
		return literals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literals(re.Sub[0])
		}
		return nil
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			l := literals(sub)
			if l == nil {
				return nil
			}
			out = append(out, l...)
			if len(out) > maxLiterals {
				return nil
			}
		}
		return out
	case syntax.OpConcat:
		// The child whose shortest literal is longest: the most telling.
		var best []string
		bestLen := 0
		for _, sub := range re.Sub {
			l := literals(sub)
			if l == nil {
				continue
			}
			if m := minLen(l); m > bestLen {
				best, bestLen = l, m
			}
		}
		return best
	}
	return nil
}

func minLen(l []string) int {
	m := -1
	for _, s := range l {
		if m < 0 || len(s) < m {
			m = len(s)
		}
	}
	return m
}
