package typed

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzWithParamDescription: setting a parameter's description in any
// schema never panics; in a valid schema that has the parameter, the
// result is valid JSON whose parameter has that description and whose
// other parameters are as they were.
func FuzzWithParamDescription(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"q":{"type":"string"}}}`,
		`{"properties":{"q":{"description":"old","type":"string"},"n":{}}}`,
		`{"properties":{"q":{}}}`, `{"properties":[]}`, `[]`, `{`, `{"properties":{"q":true}}`,
	} {
		f.Add([]byte(s), "q", "new \"text\"\n")
	}
	f.Fuzz(func(t *testing.T, schema []byte, param, desc string) {
		out := withParamDescription(schema, param, desc)
		// Maps, not structs: encoding/json matches struct fields in any
		// case, and a schema's keywords are case-sensitive.
		var top map[string]json.RawMessage
		var props map[string]json.RawMessage
		if json.Unmarshal(schema, &top) != nil || json.Unmarshal(top["properties"], &props) != nil || props == nil {
			return
		}
		p, ok := props[param]
		if !ok || !strings.HasPrefix(strings.TrimSpace(string(p)), "{") || !json.Valid(schema) {
			return
		}
		var after map[string]json.RawMessage
		var afterProps map[string]map[string]json.RawMessage
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatalf("%s -> %s: %v", schema, out, err)
		}
		if err := json.Unmarshal(after["properties"], &afterProps); err != nil {
			t.Fatalf("%s -> %s: %v", schema, out, err)
		}
		var got string
		if err := json.Unmarshal(afterProps[param]["description"], &got); err != nil || utf8.ValidString(desc) && got != desc {
			t.Fatalf("description %q, want %q (%s)", got, desc, out)
		}
	})
}

// FuzzDedent: dedenting keeps the number of lines, is idempotent, and
// leaves no common indent behind.
func FuzzDedent(f *testing.F) {
	for _, s := range []string{"  a\n  b", "\ta\n\t\tb\n", "  a\n\n  b", "a\n  b", "   \n  x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := dedent(s)
		if strings.Count(d, "\n") != strings.Count(s, "\n") {
			t.Fatalf("%q -> %q: lines changed", s, d)
		}
		if dedent(d) != d {
			t.Fatalf("%q -> %q -> %q: not idempotent", s, d, dedent(d))
		}
	})
}
