package schema

import (
	"fmt"
	"strings"
	"testing"
)

func TestCheckMeta(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []string // each Problem.String(), in order
	}{
		{"valid", `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`, nil},
		{"true", `true`, nil},
		{"misspelt type", `{"type":"object","properties":{"q":{"type":"strnig"}}}`,
			[]string{`/properties/q/type: "strnig" is not a JSON Schema type (one of array, boolean, integer, null, number, object, string): did you mean "string"?`}},
		{"alias type", `{"type":"int"}`,
			[]string{`/type: "int" is not a JSON Schema type (one of array, boolean, integer, null, number, object, string): did you mean "integer"?`}},
		{"type list", `{"type":["string","strnig","string",3]}`, []string{
			`/type/1: "strnig" is not a JSON Schema type (one of array, boolean, integer, null, number, object, string): did you mean "string"?`,
			`/type/2: the type "string" is listed twice: list each once`,
			`/type/3: want a type name (one of array, boolean, integer, null, number, object, string), found a JSON number`,
		}},
		{"properties array", `{"type":"object","properties":[]}`,
			[]string{`/properties: "properties" must be an object that maps each name to its schema, found a JSON array: write {"name": {"type": "string"}, ...}, one member per property, and list the required ones under "required"`}},
		{"required string", `{"type":"object","required":"x"}`,
			[]string{`/required: "required" must be a list of property names, found a string: write ["x"]`}},
		{"required flag", `{"properties":{"a":{"type":"string","required":true}}}`,
			[]string{`/properties/a/required: "required" is a list on the object, not a flag on a property: remove it here and list "a" in the object's "required"`}},
		{"required items", `{"required":["a",1,"a"]}`, []string{
			`/required/1: want a property name (a string), found a JSON number`,
			`/required/2: "a" is listed twice: list each required property once`,
		}},
		{"dangling ref", `{"properties":{"a":{"$ref":"#/$defs/adress"}},"$defs":{"address":{"type":"string"}}}`,
			[]string{`/properties/a/$ref: "#/$defs/adress" points at nothing in this schema: did you mean "#/$defs/address"?`}},
		{"dangling ref no hint", `{"$ref":"#/$defs/zzz"}`,
			[]string{`/$ref: "#/$defs/zzz" points at nothing in this schema: define it there (under "$defs"), or fix the reference`}},
		{"outside ref", `{"$ref":"other.json"}`,
			[]string{`/$ref: "other.json" refers to a schema outside this one: Tessera resolves references within the document only; copy the definition under "$defs" and refer to it as "#/$defs/<name>"`}},
		{"ref not string", `{"$ref":1}`,
			[]string{`/$ref: want a reference (a string such as "#/$defs/name"), found a JSON number`}},
		{"anchor", `{"$defs":{"a":{"$anchor":"aa"}},"$ref":"#aa"}`, nil},
		{"missing anchor", `{"$ref":"#bb"}`,
			[]string{`/$ref: "#bb" names no anchor of this schema: give the target "$anchor": "bb", or refer to it by its JSON Pointer ("#/$defs/<name>")`}},
		{"ref to root", `{"properties":{"next":{"$ref":"#"}}}`, nil},
		{"ref escaped", `{"$defs":{"a/b":{"type":"string"},"c d":{}},"properties":{"x":{"$ref":"#/$defs/a~1b"},"y":{"$ref":"#/$defs/c%20d"}}}`, nil},
		{"ref with id", `{"$id":"https://example.com/s.json","$defs":{"a":{}},"$ref":"https://example.com/s.json#/$defs/a"}`, nil},
		{"ref into sub id", `{"$defs":{"a":{"$id":"a.json","$defs":{"b":{}}}},"$ref":"a.json#/$defs/b"}`, nil},
		{"draft 7", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"type":"int"}},"properties":{"x":{"$ref":"#/definitions/a"}}}`,
			[]string{`/definitions/a/type: "int" is not a JSON Schema type (one of array, boolean, integer, null, number, object, string): did you mean "integer"?`}},
		{"draft 4 items list", `{"$schema":"http://json-schema.org/draft-04/schema#","items":[{"type":"string"}]}`, nil},
		{"2020 items list", `{"items":[{"type":"string"}]}`,
			[]string{`/items: in draft 2020-12 "items" is one schema, for every item: for a tuple, write its schemas under "prefixItems"`}},
		{"unknown draft", `{"$schema":"https://example.com/my-schema"}`,
			[]string{`/$schema: "https://example.com/my-schema" is not a JSON Schema draft Tessera checks: use "https://json-schema.org/draft/2020-12/schema" (or draft 2019-09, 7, 6 or 4), or leave "$schema" out`}},
		{"metaschema", `{"properties":{"a":{"minLength":-1,"pattern":5}}}`, []string{
			`/properties/a/minLength: want at least 0, found -1`,
			`/properties/a/pattern: want a string, found a number`,
		}},
		{"enum", `{"enum":3}`, []string{`/enum: want an array, found a number`}},
		{"not a schema", `[1]`, []string{`the schema: want a JSON Schema object, found a JSON array`}},
		{"sub not a schema", `{"not":3}`, []string{`/not: want a schema (an object, or true or false), found a JSON number`}},
		{"empty allOf", `{"allOf":[]}`, []string{`/allOf: "allOf" must be a non-empty list of schemas, found a JSON array`}},
		{"not JSON", `{"type":`, []string{`/type: not valid JSON: unexpected end of input, want a value`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range CheckMeta([]byte(tt.doc)) {
				got = append(got, p.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("CheckMeta(%s)\n got %q\nwant %q", tt.doc, got, tt.want)
			}
		})
	}
}

// nested returns an object schema with depth levels of properties.
func nested(depth int) string {
	return strings.Repeat(`{"type":"object","properties":{"a":`, depth) + `{"type":"string"}` + strings.Repeat(`}}`, depth)
}

func TestCheckMetaNesting(t *testing.T) {
	if ps := CheckMeta([]byte(nested(MaxNesting))); len(ps) != 0 {
		t.Errorf("%d levels: %v", MaxNesting, ps)
	}
	for _, depth := range []int{MaxNesting + 1, 1600} {
		ps := CheckMeta([]byte(nested(depth)))
		if len(ps) != 1 || !strings.Contains(ps[0].Msg, "schemas nest more than 64 deep here") {
			t.Errorf("%d levels: got %v", depth, ps)
		}
	}
	p := Problem{Pointer: strings.Repeat("/properties/a", 20), Msg: "m"}
	if got, want := p.String(), "/properties/a/properties/a/properties/a/…/properties/a/properties/a/properties/a: m"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestCheckToolName(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"read_file", ""},
		{"_x-1", ""},
		{strings.Repeat("a", 64), ""},
		{"", "the name is empty"},
		{strings.Repeat("a", 65), "the name is 65 bytes long: providers take at most 64; shorten it"},
		{"a\x1bb", "the name holds the control character U+001B at byte 2, which providers refuse: use only letters, digits, '_' and '-'"},
		{"a.b", "the name holds '.' at byte 2"},
		{"a b", "the name holds a space at byte 2"},
		{"aé", `the name holds 'é' (U+00E9) at byte 2`},
		{"a\xff", "the name holds the byte 0xff (not UTF-8) at byte 2"},
		{"1abc", "the name starts with '1', which Gemini refuses: start it with a letter or '_'"},
		{"-abc", "the name starts with '-'"},
	} {
		err := CheckToolName(tt.name)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckToolName(%q) = %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckToolName(%q) = %v, want %q", tt.name, err, tt.want)
		}
	}
	if !ValidName("1a") || ValidName("a.b") || ValidName("") {
		t.Error("ValidName")
	}
}

// toolsFile is a realistic tools file's schemas: 20 tools of a coding
// agent, each with a few typed, described parameters.
func toolsFile() [][]byte {
	out := make([][]byte, 20)
	for i := range out {
		out[i] = fmt.Appendf(nil, `{"type":"object","description":"tool %d","properties":{"path":{"type":"string","description":"Path relative to the workspace"},"line":{"type":"integer","minimum":1},"mode":{"type":"string","enum":["read","write","append"]},"options":{"type":"object","properties":{"recursive":{"type":"boolean"},"depth":{"type":["integer","null"],"maximum":32}},"additionalProperties":false},"tags":{"type":"array","items":{"$ref":"#/$defs/tag"},"maxItems":8}},"required":["path","mode"],"additionalProperties":false,"$defs":{"tag":{"type":"string","pattern":"^[a-z]+$"}}}`, i)
	}
	return out
}

// BenchmarkCheckMeta checks the parameters of a 20-tool file.
func BenchmarkCheckMeta(b *testing.B) {
	docs := toolsFile()
	for _, d := range docs {
		if ps := CheckMeta(d); len(ps) > 0 {
			b.Fatal(ps)
		}
	}
	b.SetBytes(int64(len(docs[0]) * len(docs)))
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range docs {
			CheckMeta(d)
		}
	}
}
