package canonical

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseSpecJSONReader reads a spec written as JSON with the JSON reader:
// the same spec as its YAML, and JSON's own mistakes at their line and
// column.
func TestParseSpecJSONReader(t *testing.T) {
	yml := "task:\n  - instruction: Summarise the ticket.\n    priority: 2\ninput:\n  userQuery: Where is my order?\n"
	jsn := `{"task": [{"instruction": "Summarise the ticket.", "priority": 2}],
 "input": {"userQuery": "Where is my order?"}}`
	a, err := ParseSpec("spec.yaml", []byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseSpec("spec.json", []byte(jsn))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Task, b.Task) || a.Input.UserQuery != b.Input.UserQuery {
		t.Fatalf("the JSON spec reads differently:\n%+v\n%+v", a, b)
	}
	for _, tc := range []struct{ text, want string }{
		{`{"task": [{"instruction": "x",}], "input": {"userQuery": "q"}}`, "spec.json:1:30: not valid JSON: a \",\" before \"}\""},
		{"{\"input\": {\"userQuery\": \"q\"},\n \"input\": {\"userQuery\": \"r\"}}", `spec.json:2:2: key "input" is repeated`},
	} {
		_, err := ParseSpec("spec.json", []byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want it to hold %q", tc.text, err, tc.want)
		}
	}
}
