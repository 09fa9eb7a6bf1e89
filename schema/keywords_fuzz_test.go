package schema

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzMoveKeywords checks MoveKeywords on any document Parse accepts:
// it never panics, leaves its input as it was, accounts for every use
// FindKeywords finds (moved or left), leaves exactly the uses it reports
// as left, writes JSON that parses, and is idempotent.
func FuzzMoveKeywords(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), "minimum")
	}
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"integer","minimum":1,"description":"x"}},"minItems":3}`), "minItems>1")
	f.Add([]byte(`{"anyOf":[{"maxLength":2},{"items":[{"pattern":"a"}]}],"description":true,"uniqueItems":true}`), "pattern")
	f.Fuzz(func(t *testing.T, data []byte, extra string) {
		v, err := Parse(data)
		if err != nil {
			return
		}
		specs := append([]string{}, anthropicRules...)
		if r, err := ParseKeywordRules([]string{extra}); err == nil && r.Len() == 1 && !containsRule(specs, extra) {
			specs = append(specs, extra)
		}
		rules, err := ParseKeywordRules(specs)
		if err != nil {
			t.Fatal(err)
		}
		before := v.Append(nil)
		found := v.FindKeywords(rules)
		fixed, moved, left := v.MoveKeywords(rules)
		if !bytes.Equal(v.Append(nil), before) {
			t.Fatalf("MoveKeywords changed its input")
		}
		if len(moved)+len(left) != len(found) {
			t.Fatalf("found %v, but moved %v and left %v", found, moved, left)
		}
		if rest := fixed.FindKeywords(rules); len(rest) != len(left) {
			t.Fatalf("left %v, but %v remain", left, rest)
		}
		out := fixed.Append(nil)
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("result does not parse: %v\n%s", err, out)
		}
		twice, m2, _ := again.MoveKeywords(rules)
		if len(m2) != 0 || !bytes.Equal(twice.Append(nil), out) {
			t.Fatalf("not idempotent: moved %v the second time", m2)
		}
	})
}

// containsRule reports whether specs has a rule for the keyword of s.
func containsRule(specs []string, s string) bool {
	name, _, _ := strings.Cut(s, ">")
	for _, x := range specs {
		if n, _, _ := strings.Cut(x, ">"); n == name {
			return true
		}
	}
	return false
}
