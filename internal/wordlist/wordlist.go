// Package wordlist writes lists of words as prose does: "a", "a and b",
// "a, b or c".
package wordlist

import "strings"

// And joins s with commas and a final "and": "a, b and c".
func And(s []string) string { return join(s, " and ") }

// Or joins s with commas and a final "or": "a, b or c".
func Or(s []string) string { return join(s, " or ") }

func join(s []string, last string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + last + s[len(s)-1]
}
