package schema

import (
	"fmt"
	"strings"
	"testing"
)

// anthropicRules are the keywords Anthropic's structured outputs refuse,
// as provider/models.json lists them.
var anthropicRules = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems>1", "maxItems", "uniqueItems", "contains", "minContains", "maxContains", "minProperties", "maxProperties"}

func mustRules(t testing.TB, specs ...string) KeywordRules {
	t.Helper()
	r, err := ParseKeywordRules(specs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustParse(t testing.TB, s string) Value {
	t.Helper()
	v, err := Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestParseKeywordRules(t *testing.T) {
	r := mustRules(t, anthropicRules...)
	if r.Len() != len(anthropicRules) || r.String() != strings.Join(anthropicRules, ", ") {
		t.Errorf("rules %d %q", r.Len(), r)
	}
	for _, tt := range []struct {
		specs []string
		want  string
	}{
		{[]string{""}, `keyword rule "": write a JSON Schema keyword`},
		{[]string{"min imum"}, `keyword rule "min imum"`},
		{[]string{"1minimum"}, `keyword rule "1minimum"`},
		{[]string{"minItems>"}, `"" is not a number`},
		{[]string{"minItems>0x1"}, `"0x1" is not a number`},
		{[]string{"minimum", "minimum"}, `minimum is listed twice`},
	} {
		if _, err := ParseKeywordRules(tt.specs); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseKeywordRules(%q): %v, want %q", tt.specs, err, tt.want)
		}
	}
	if r, err := ParseKeywordRules([]string{"$comment", "x_1"}); err != nil || r.Len() != 2 {
		t.Errorf("$comment and x_1: %v", err)
	}
}

// TestFindKeywords checks that keywords are found in schemas only, in
// document order, and that a limit keeps the values under it.
func TestFindKeywords(t *testing.T) {
	v := mustParse(t, `{
	  "type": "object",
	  "minProperties": 1,
	  "properties": {
	    "minimum": {"type": "integer", "minimum": 3, "maximum": 9},
	    "tags": {"type": "array", "items": {"type": "string", "maxLength": 20}, "minItems": 1, "maxItems": 5},
	    "two": {"type": "array", "minItems": 2},
	    "choice": {"anyOf": [{"type": "string", "pattern": "^a"}, {"type": "number", "multipleOf": 5}]},
	    "k": {"const": {"minimum": 1}, "enum": [{"maximum": 2}], "default": {"maxLength": 3}}
	  },
	  "$defs": {"d": {"type": "string", "minLength": 2}}
	}`)
	got := v.FindKeywords(mustRules(t, anthropicRules...))
	var s []string
	for _, u := range got {
		s = append(s, u.Pointer)
	}
	want := []string{
		"/minProperties",
		"/properties/minimum/minimum",
		"/properties/minimum/maximum",
		"/properties/tags/items/maxLength",
		"/properties/tags/maxItems",
		"/properties/two/minItems",
		"/properties/choice/anyOf/1/multipleOf",
		"/$defs/d/minLength",
	}
	if strings.Join(s, "\n") != strings.Join(want, "\n") {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(s, "\n"), strings.Join(want, "\n"))
	}
	if got[1].String() != `minimum at "/properties/minimum"` || got[0].String() != "minProperties at the root" {
		t.Errorf("String: %q, %q", got[1], got[0])
	}
	if v.FindKeywords(KeywordRules{}) != nil {
		t.Error("no rules found keywords")
	}
	if u := mustParse(t, `{"properties": {"a~b/c": {"minimum": 1}}}`).FindKeywords(mustRules(t, "minimum")); len(u) != 1 || u[0].Pointer != "/properties/a~0b~1c/minimum" || u[0].String() != `minimum at "/properties/a~0b~1c"` {
		t.Errorf("escaped pointer: %+v", u)
	}
}

// TestMoveKeywords checks the sentences and where they go.
func TestMoveKeywords(t *testing.T) {
	tests := []struct {
		name, in, want string
		moved, left    int
	}{
		{"no description", `{"type":"integer","minimum":3}`, `{"type":"integer","description":"Must be ≥ 3."}`, 1, 0},
		{"description without a stop", `{"type":"integer","description":"The age","minimum":0,"maximum":150}`, `{"type":"integer","description":"The age. Must be ≥ 0. Must be ≤ 150."}`, 2, 0},
		{"description with a stop", `{"description":"Age.","type":"integer","exclusiveMinimum":0,"exclusiveMaximum":1.5}`, `{"description":"Age. Must be > 0. Must be < 1.5.","type":"integer"}`, 2, 0},
		{"multipleOf and number forms", `{"type":"number","multipleOf":0.5,"minimum":1e3}`, `{"type":"number","description":"Must be a multiple of 0.5. Must be ≥ 1e3."}`, 2, 0},
		{"string bounds", `{"type":"string","minLength":1,"maxLength":40}`, `{"type":"string","description":"Must be at least 1 character long. Must be at most 40 characters long."}`, 2, 0},
		{"array bounds", `{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":1,"uniqueItems":true}`, `{"type":"array","items":{"type":"string"},"description":"Must have at least 2 items. Must have at most 1 item. Items must be unique."}`, 3, 0},
		{"minItems kept under the limit", `{"type":"array","minItems":1}`, `{"type":"array","minItems":1}`, 0, 0},
		{"uniqueItems false goes without a word", `{"type":"array","uniqueItems":false}`, `{"type":"array"}`, 1, 0},
		{"object bounds", `{"type":"object","minProperties":2,"maxProperties":1,"properties":{}}`, `{"type":"object","description":"Must have at least 2 properties. Must have at most 1 property.","properties":{}}`, 2, 0},
		{"nested, order kept", `{"type":"object","properties":{"a":{"type":"string","maxLength":5,"description":"A"},"b":{"type":"integer"}},"required":["a"]}`, `{"type":"object","properties":{"a":{"type":"string","description":"A. Must be at most 5 characters long."},"b":{"type":"integer"}},"required":["a"]}`, 1, 0},
		{"a value it cannot word", `{"type":"integer","minimum":"three","contains":{"type":"string"}}`, `{"type":"integer","minimum":"three","contains":{"type":"string"}}`, 0, 2},
		{"a description that is not text", `{"type":"integer","description":7,"minimum":3,"properties":{"x":{"minimum":1}}}`, `{"type":"integer","description":7,"minimum":3,"properties":{"x":{"description":"Must be ≥ 1."}}}`, 1, 1},
		{"nothing to move", `{"type":"string"}`, `{"type":"string"}`, 0, 0},
	}
	rules := mustRules(t, anthropicRules...)
	for _, tt := range tests {
		v := mustParse(t, tt.in)
		fixed, moved, left := v.MoveKeywords(rules)
		if got := string(fixed.Append(nil)); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
		if len(moved) != tt.moved || len(left) != tt.left {
			t.Errorf("%s: moved %v, left %v", tt.name, moved, left)
		}
		if again := string(v.Append(nil)); again != string(mustParse(t, tt.in).Append(nil)) {
			t.Errorf("%s: MoveKeywords changed its input: %s", tt.name, again)
		}
		if rest := fixed.FindKeywords(rules); len(rest) != len(left) {
			t.Errorf("%s: after moving, FindKeywords finds %v, but left is %v", tt.name, rest, left)
		}
	}
	if _, m, l := mustParse(t, `{"minimum":1}`).MoveKeywords(KeywordRules{}); m != nil || l != nil {
		t.Error("no rules moved keywords")
	}
	// The pattern and format keywords, when a provider refuses them.
	fixed, _, _ := mustParse(t, `{"type":"string","pattern":"^[a-z]+$","format":"email"}`).MoveKeywords(mustRules(t, "pattern", "format"))
	if got := string(fixed.Append(nil)); got != `{"type":"string","description":"Must match the regular expression ^[a-z]+$. Must be in the email format."}` {
		t.Errorf("pattern and format: %s", got)
	}
}

// ExampleValue_MoveKeywords moves a keyword Anthropic's structured
// outputs refuse into the property's description.
func ExampleValue_MoveKeywords() {
	v, _ := Parse([]byte(`{"type":"object","properties":{"age":{"type":"integer","description":"Age in years","minimum":0}},"required":["age"],"additionalProperties":false}`))
	rules, _ := ParseKeywordRules([]string{"minimum", "maximum"})
	fixed, moved, _ := v.MoveKeywords(rules)
	fmt.Println(string(fixed.Append(nil)))
	fmt.Println(moved)
	// Output:
	// {"type":"object","properties":{"age":{"type":"integer","description":"Age in years. Must be ≥ 0."}},"required":["age"],"additionalProperties":false}
	// [minimum at "/properties/age"]
}
