package agent

import (
	"strings"
	"testing"
)

// TestParseToolsChecksSchemas: every tool's parameters are checked
// against the JSON Schema metaschema, and its name against what every
// provider accepts, at load, each problem at its line and column.
func TestParseToolsChecksSchemas(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"type", `[
  {
    "name": "search",
    "parameters": {
      "type": "object",
      "properties": {"q": {"type": "strnig"}}
    }
  }
]`, `tools.json:6:28: tool "search": parameters: /properties/q/type: "strnig" is not a JSON Schema type (one of array, boolean, integer, null, number, object, string): did you mean "string"?`},
		{"properties", `[{"name": "search", "parameters": {"type": "object", "properties": []}}]`,
			`tools.json:1:54: tool "search": parameters: /properties: "properties" must be an object that maps each name to its schema, found a JSON array`},
		{"required", `[{"name": "search", "parameters": {"type": "object", "required": "x"}}]`,
			`tools.json:1:54: tool "search": parameters: /required: "required" must be a list of property names, found a string: write ["x"]`},
		{"ref", `[{"name": "search", "parameters": {"type": "object", "properties": {"q": {"$ref": "#/$defs/query"}}}}]`,
			`tools.json:1:75: tool "search": parameters: /properties/q/$ref: "#/$defs/query" points at nothing in this schema`},
		{"yaml", "- name: search\n  parameters:\n    type: object\n    properties:\n      q: {type: strnig}\n",
			`tools.yaml:5:11: tool "search": parameters: /properties/q/type: "strnig" is not a JSON Schema type`},
		{"escape", `[{"name": "sea\u001brch"}]`,
			`tools.json:1:11: tool 1: name "sea\x1brch": the name holds the control character U+001B at byte 4, which providers refuse: use only letters, digits, '_' and '-'`},
		{"dot", `[{"name": "web.search"}]`,
			`tools.json:1:11: tool 1: name "web.search": the name holds '.' at byte 4, which providers refuse`},
		{"long", `[{"name": "` + strings.Repeat("s", 65) + `"}]`,
			`tools.json:1:11: tool 1: name "` + strings.Repeat("s", 65) + `": the name is 65 bytes long: providers take at most 64; shorten it`},
		{"digit", `[{"name": "2search"}]`,
			`tools.json:1:11: tool 1: name "2search": the name starts with '2', which Gemini refuses: start it with a letter or '_'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := "tools.json"
			if tc.src[0] == '-' {
				path = "tools.yaml"
			}
			_, err := ParseTools(path, []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant it to hold %s", err, tc.want)
			}
		})
	}
}

// TestParseToolsDeepSchema: a deeply nested schema is refused quickly,
// naming the limit: the document's nesting (64 levels, reached by 31
// nested schemas) while it is read.
func TestParseToolsDeepSchema(t *testing.T) {
	schema := strings.Repeat(`{"type":"object","properties":{"a":`, 100) + `{}` + strings.Repeat(`}}`, 100)
	_, err := ParseTools("tools.json", []byte(`[{"name": "deep", "parameters": `+schema+`}]`))
	if err == nil || !strings.Contains(err.Error(), `tools.json:1:1118: not valid JSON: arrays and objects are nested more than 64 deep here: flatten the data`) {
		t.Fatalf("got %v", err)
	}
}
