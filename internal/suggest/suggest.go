// Package suggest finds the likely intended name for a misspelt one, for
// "did you mean" hints in diagnostics.
package suggest

import "strings"

// Nearest returns the candidate closest to name by edit distance, ignoring
// case, if it is within a third of name's length; otherwise "". Ties go to
// the earliest candidate, so callers pass candidates in a fixed order.
func Nearest(name string, candidates []string) string {
	best, bestD := "", len(name)/3+1
	lname := strings.ToLower(name)
	for _, c := range candidates {
		if d := distance(lname, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the edit distance between a and b, in bytes: insertions,
// deletions, substitutions and swaps of two adjacent bytes ("pcg" for
// "pgc") count one each (the optimal string alignment distance).
func distance(a, b string) int {
	prev2 := make([]int, len(b)+1) // row i-2
	prev := make([]int, len(b)+1)  // row i-1
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
