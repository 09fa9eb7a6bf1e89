package typed

import (
	"os"
	"strings"
	"testing"
)

// TestSchemaCheck: a tool's parameters and the output schema are
// checked against the JSON Schema metaschema, and tool names against
// what every provider accepts, when the template is parsed, each
// problem at its line and column.
func TestSchemaCheck(t *testing.T) {
	data, err := os.ReadFile("../../examples/typed/code-review.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base := string(data)
	for _, tc := range []struct{ name, old, new, want string }{
		{"tool type", "              type: string\n              description: the file's path", "              type: strnig\n              description: the file's path",
			`t.yaml:79:15: section "lookup": tool "read_file": parameters: /properties/path/type: "strnig" is not a JSON Schema type (one of array, boolean, integer, null, number, object, string): did you mean "string"?`},
		{"tool properties", "          properties:\n            path:\n              type: string\n              description: the file's path from the repository root\n", "          properties: []\n",
			`t.yaml:77:11: section "lookup": tool "read_file": parameters: /properties: "properties" must be an object that maps each name to its schema, found a JSON array`},
		{"tool required", "          required: [path]\n", "          required: path\n",
			`t.yaml:81:11: section "lookup": tool "read_file": parameters: /required: "required" must be a list of property names, found a string: write ["path"]`},
		{"tool ref", "          required: [path]\n", "          required: [path]\n          $ref: \"#/$defs/file\"\n",
			`t.yaml:82:11: section "lookup": tool "read_file": parameters: /$ref: "#/$defs/file" points at nothing in this schema`},
		{"tool name", "      - name: read_file\n", "      - name: " + strings.Repeat("r", 65) + "\n",
			`t.yaml:73:15: section "lookup": tool 1: name "` + strings.Repeat("r", 65) + `": the name is 65 bytes long: providers take at most 64; shorten it`},
		{"output type", "      line: {type: integer}\n", "      line: {type: int}\n",
			`t.yaml:90:14: output schema: /properties/line/type: "int" is not a JSON Schema type (one of array, boolean, integer, null, number, object, string): did you mean "integer"?`},
		{"output properties", "    properties:\n      file: {type: string}\n      line: {type: integer}\n      severity: {type: string, enum: [blocking, suggestion, nit]}\n      comment: {type: string}\n", "    properties: [file, line]\n",
			`t.yaml:88:5: output schema: /properties: "properties" must be an object that maps each name to its schema, found a JSON array`},
		{"output required", "    required: [file, line, severity, comment]\n", "    required: file\n",
			`t.yaml:93:5: output schema: /required: "required" must be a list of property names, found a string: write ["file"]`},
		{"output ref", "      comment: {type: string}\n", "      comment: {$ref: \"#/$defs/text\"}\n",
			`t.yaml:92:17: output schema: /properties/comment/$ref: "#/$defs/text" points at nothing in this schema`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(base, tc.old, tc.new, 1)
			if src == base {
				t.Fatal("the edit did not apply: the example changed")
			}
			_, err := Parse("t.yaml", []byte(src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant it to hold %s", err, tc.want)
			}
		})
	}
}

// TestDeepOutputSchema: an output schema nested far deeper than any real
// one is refused quickly, with the limit named, rather than validated
// for most of a minute.
func TestDeepOutputSchema(t *testing.T) {
	const depth = 1600
	var b strings.Builder
	b.WriteString("ns: t\nkey: k\nsections: [{key: a, title: A, template: x}]\noutput:\n  schema: ")
	for range depth {
		b.WriteString(`{"type":"object","properties":{"a":`)
	}
	b.WriteString(`{"type":"string"}`)
	for range depth {
		b.WriteString("}}")
	}
	b.WriteString("\n")
	_, err := Parse("t.yaml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "schemas nest more than 64 deep here") && !strings.Contains(err.Error(), "nested more than 64 levels deep") {
		t.Fatalf("got %v, want the nesting limit", err)
	}
}
