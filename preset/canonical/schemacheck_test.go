package canonical

import (
	"os"
	"strings"
	"testing"
)

// TestSchemaCheck: tool parameters and output schemas are checked
// against the JSON Schema metaschema, and tool names against what every
// provider accepts, at load, each problem at its line and column.
func TestSchemaCheck(t *testing.T) {
	base, err := os.ReadFile("../../examples/canonical/support-ticket.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const good = "        order_id: {type: integer, minimum: 1}\n"
	if !strings.Contains(string(base), good) {
		t.Fatal("the example changed: update the test")
	}
	for _, tc := range []struct{ name, old, new, want string }{
		{"type", good, "        order_id: {type: strnig, minimum: 1}\n",
			`spec.yaml:86:20: tools[0].parameters: /properties/order_id/type: "strnig" is not a JSON Schema type (one of array, boolean, integer, null, number, object, string): did you mean "string"?`},
		{"properties", good, "        - order_id\n",
			`spec.yaml:85:7: tools[0].parameters: /properties: "properties" must be an object that maps each name to its schema, found a JSON array`},
		{"required", "      required: [order_id]\n", "      required: order_id\n",
			`spec.yaml:87:7: tools[0].parameters: /required: "required" must be a list of property names, found a string: write ["order_id"]`},
		{"ref", good, good + "        other: {$ref: \"#/$defs/gone\"}\n",
			`spec.yaml:87:17: tools[0].parameters: /properties/other/$ref: "#/$defs/gone" points at nothing in this schema`},
		{"name", "  - name: lookup_order\n", "  - name: \"lookup\\eorder\"\n",
			`spec.yaml:81:5: tools[0].name: "lookup\x1border": the name holds the control character U+001B at byte 7, which providers refuse`},
		{"name dot", "  - name: lookup_order\n", "  - name: lookup.order\n",
			`spec.yaml:81:5: tools[0].name: "lookup.order": the name holds '.' at byte 7`},
		{"name digit", "  - name: lookup_order\n", "  - name: 1lookup\n",
			`spec.yaml:81:5: tools[0].name: "1lookup": the name starts with '1', which Gemini refuses`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(string(base), tc.old, tc.new, 1)
			if src == string(base) {
				t.Fatal("the edit did not apply")
			}
			_, err := ParseSpec("spec.yaml", []byte(src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant it to hold %s", err, tc.want)
			}
		})
	}
}

// TestSchemaCheckOutput: an output format's schema is checked too.
func TestSchemaCheckOutput(t *testing.T) {
	src := `task:
  - instruction: Classify the ticket.
    outputFormat:
      type: json
      jsonSchema:
        type: object
        properties:
          label: {type: [string, strnig]}
input:
  userQuery: Where is my order?
`
	_, err := ParseSpec("spec.yaml", []byte(src))
	want := `spec.yaml:8:34: task[0].outputFormat.jsonSchema: /properties/label/type/1: "strnig" is not a JSON Schema type`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v\nwant it to hold %s", err, want)
	}
}
