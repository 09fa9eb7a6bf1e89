package catalog_test

import (
	"testing"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/output"
)

// FuzzWorkflowSchema: a workflow file ParseWorkflow accepts is valid
// under WorkflowJSONSchema, so an editor checking against the schema
// never flags a file Tessera reads; and the schema refuses what the
// decoder refuses for its shape (no nodes, a node without node_id, a
// bad node id or token name).
func FuzzWorkflowSchema(f *testing.F) {
	s, err := output.Compile("workflow.schema.json", catalog.WorkflowJSONSchema())
	if err != nil {
		f.Fatal(err)
	}
	for _, bad := range []string{`{}`, `{"nodes": [{}]}`, `{"nodes": [{"node_id": "has space"}]}`, `{"nodes": [{"node_id": "a", "includes": {"lower": "x"}}]}`, `{"nodes": [{"node_id": "a", "task_ref": ""}]}`} {
		if len(s.Check([]byte(bad))) == 0 {
			f.Errorf("%s: valid under the schema", bad)
		}
		if _, err := catalog.ParseWorkflow("w.json", "w", []byte(bad)); err == nil {
			f.Errorf("%s: read without error", bad)
		}
	}
	f.Add(`{"title": "t", "nodes": [{"node_id": "intake", "type": "gate"}, {"node_id": "pgc", "type": "pgc", "task_ref": "Gen v1.0", "includes": {"PGC_CONTEXT": "p/c.txt"}}]}`)
	f.Add(`{"nodes": [{"node_id": "a", "includes": null, "type": null, "extra": {"deep": [1, {"x": null}]}}]}`)
	f.Add(`{"nodes": []}`)
	f.Fuzz(func(t *testing.T, doc string) {
		if _, err := catalog.ParseWorkflow("w.json", "w", []byte(doc)); err != nil {
			return
		}
		// ParseWorkflow reads the text normalised (see prompt.Normalize):
		// a byte-order mark the schema's JSON reader would refuse.
		if len(doc) >= 3 && doc[:3] == "\xef\xbb\xbf" {
			return
		}
		if ps := s.Check([]byte(doc)); len(ps) > 0 {
			t.Fatalf("ParseWorkflow accepts %q, the schema refuses it: %v", doc, ps)
		}
	})
}
