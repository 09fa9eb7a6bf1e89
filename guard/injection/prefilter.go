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
