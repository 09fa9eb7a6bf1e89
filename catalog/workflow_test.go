package catalog

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseWorkflow(t *testing.T) {
	src := `{
  "title": "kept and ignored",
  "nodes": [
    {"node_id": "gate", "type": "gate", "extra": {"anything": [1, 2]}},
    {
      "node_id": "pgc",
      "type": "pgc",
      "task_ref": "Clarification Questions Generator v1.0",
      "includes": {"B": "b.txt", "A": "a.txt"}
    }
  ],
  "edges": []
}`
	w, err := ParseWorkflow("wf/pm.json", "pm", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if w.ID != "pm" || w.Path != "wf/pm.json" || len(w.Nodes) != 2 {
		t.Fatalf("got %+v", w)
	}
	g, p := w.Nodes[0], w.Nodes[1]
	if g.ID != "gate" || g.TaskRef != "" || g.Line != 4 {
		t.Errorf("gate node = %+v", g)
	}
	if p.ID != "pgc" || p.Type != "pgc" || p.TaskRef != "Clarification Questions Generator v1.0" || p.Line != 5 ||
		p.Includes["A"] != "a.txt" || p.Includes["B"] != "b.txt" || len(p.Includes) != 2 {
		t.Errorf("pgc node = %+v", p)
	}
	if !strings.Contains(string(g.Raw), `"extra": {"anything": [1, 2]}`) {
		t.Errorf("other fields are not kept: %s", g.Raw)
	}
	if w.Node("pgc") != p || w.Node("x") != nil {
		t.Error("Node lookup")
	}
}

func TestParseWorkflowErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"{\n  \"nodes\": [\n    {\"node_id\": \"a\",}\n  ]\n}", "w.json:3:21: not valid JSON: invalid character '}'"},
		{"{\"nodes\": [\n", "not valid JSON: the file ends early"},
		{"[]", "w.json:1: want a JSON object with a \"nodes\" array"},
		{"{}", "w.json:1: no \"nodes\" array"},
		{`{"nodes": {}}`, `"nodes" must be an array`},
		{"{\"nodes\": [\n{\"type\": \"x\"}]}", "w.json:2:1: node 1 has no node_id"},
		{"{\"nodes\": [{\"node_id\": \"a\"},\n {\"node_id\": \"a\"}]}", `w.json:2:2: node_id "a" is repeated`},
		{`{"nodes": [{"node_id": "a/b"}]}`, `node_id "a/b": use letters, digits`},
		{`{"nodes": [{"node_id": 7}]}`, `node 1: field "node_id": want a string, found a JSON number`},
		{`{"nodes": [{"node_id": "a", "includes": {"X": 1}}]}`, `node "a": includes: X: want a file path string`},
		{`{"nodes": [{"node_id": "a", "includes": {"X": "a", "X": "b"}}]}`, `w.json:1:52: key "nodes[0].includes.X" is repeated (first at line 1): keep one`},
		{`{"nodes": [{"node_id": "a", "includes": {"lower": "a"}}]}`, `includes key "lower" is not a token name`},
		{`{"nodes": [{"node_id": "a", "task_ref": ""}]}`, `task_ref is empty`},
		{`{"nodes": []} {}`, "unexpected data after the workflow object"},
		{`{"nodes": [], "nodes": []}`, `w.json:1:15: key "nodes" is repeated (first at line 1): keep one`},
		{"{\"nodes\": [\n {\"node_id\": \"a\",\n  \"task_ref\": \"x\",\n  \"task_ref\": \"y\"}]}", `w.json:4:3: key "nodes[0].task_ref" is repeated (first at line 3): keep one`},
		{"{\"nodes\": [{\"node_id\": \"a\"}, {\"node_id\": \"b\", \"includes\": {},\n\"includes\": {}}]}", `w.json:2:1: key "nodes[1].includes" is repeated (first at line 1): keep one`},
		{`{"nodes": [3]}`, "node 1: want a JSON object"},
	}
	for _, tt := range tests {
		_, err := ParseWorkflow("w.json", "w", []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s:\n got %v\nwant %s", tt.src, err, tt.want)
		}
	}
}

// TestWorkflowNodeLookup checks that every node of a large workflow is
// found at its line, and that Node stays right when a caller changes
// Nodes after parsing.
func TestWorkflowNodeLookup(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\"nodes\": [\n")
	const n = 500
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "{\"node_id\": \"n%d\", \"type\": \"gate\"}", i)
	}
	b.WriteString("\n]}\n")
	w, err := ParseWorkflow("w.json", "w", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		id := fmt.Sprintf("n%d", i)
		got := w.Node(id)
		if got == nil || got.ID != id || got.Line != i+2 {
			t.Fatalf("Node(%q) = %+v, want the node at line %d", id, got, i+2)
		}
	}
	if w.Node("missing") != nil {
		t.Error(`Node("missing") found a node`)
	}
	w.Nodes = append(w.Nodes[:1], w.Nodes[2:]...) // drop n1; every later index shifts
	if got := w.Node("n1"); got != nil {
		t.Errorf("Node(n1) after removing it = %+v", got)
	}
	if got := w.Node("n400"); got == nil || got.ID != "n400" {
		t.Errorf("Node(n400) after a removal = %+v", got)
	}
	w.Nodes = append(w.Nodes, &Node{ID: "added"})
	if got := w.Node("added"); got == nil {
		t.Error("Node does not find a node appended after parsing")
	}
}
