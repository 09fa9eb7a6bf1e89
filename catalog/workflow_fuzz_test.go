package catalog_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"testing"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/include"
	"github.com/tessera-dev/tessera/prompt"
)

var fzNodeID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// FuzzParseWorkflow checks that ParseWorkflow never panics, that every
// problem it reports is located in the workflow file, and that a workflow
// it accepts is valid JSON (once normalised) with unique, well-formed node ids, token-named
// includes keys, clean include paths and node lines on an opening brace.
func FuzzParseWorkflow(f *testing.F) {
	for _, s := range []string{
		`{"nodes": []}`,
		`{"title": "Project discovery", "nodes": [{"node_id": "intake", "type": "gate"}, {"node_id": "pgc", "type": "pgc", "task_ref": "Clarification Questions Generator v1.0", "includes": {"PGC_CONTEXT": "seed/prompts/pgc-contexts/project_discovery.v1.txt", "OUTPUT_SCHEMA": "seed/schemas/clarification_question_set.v2.json"}}]}`,
		"{\n  \"nodes\": [\n    {\n      \"node_id\": \"a\",\n      \"task_ref\": \"T\",\n      \"includes\": {\"X\": \"x.txt\"}\n    },\n    {\n      \"node_id\": \"b\"\n    }\n  ]\n}\n",
		`{"nodes": [{"node_id": "a", "includes": null, "extra": {"deep": [1, 2, {"x": null}]}}]}`,
		``,
		` `,
		`{`,
		`{"nodes": [`,
		`{"nodes": [{"node_id": "a"},`,
		`[]`,
		`"nodes"`,
		`null`,
		`{}`,
		`{"nodes": {}}`,
		`{"nodes": null}`,
		`{"nodes": [1, "two", null, [], true]}`,
		`{"nodes": [], "nodes": []}`,
		`{"nodes": [{"node_id": "a"}, {"node_id": "a"}]}`,
		`{"nodes": [{}]}`,
		`{"nodes": [{"node_id": ""}]}`,
		`{"nodes": [{"node_id": 7}]}`,
		`{"nodes": [{"node_id": "has space"}]}`,
		`{"nodes": [{"node_id": "../up"}]}`,
		`{"nodes": [{"node_id": "a", "task_ref": ""}]}`,
		`{"nodes": [{"node_id": "a", "task_ref": 1}]}`,
		`{"nodes": [{"node_id": "a", "includes": []}]}`,
		`{"nodes": [{"node_id": "a", "includes": "X"}]}`,
		`{"nodes": [{"node_id": "a", "includes": {"X": 1}}]}`,
		`{"nodes": [{"node_id": "a", "includes": {"X": "a.txt", "X": "b.txt"}}]}`,
		`{"nodes": [{"node_id": "a", "includes": {"lower": "a.txt", "1X": "b.txt"}}]}`,
		`{"nodes": [{"node_id": "a", "includes": {"X": "../a.txt", "Y": "/etc/passwd", "Z": ""}}]}`,
		`{"nodes": [{"node_id": "a", "includes": {"X": "a\\b.txt"}}]}`,
		`{"nodes": []} {}`,
		`{"nodes": []} trailing`,
		`{"nodes": [],}`,
		`{"nodes": [{"node_id": "a"}]}` + "\n\n",
		"\xEF\xBB\xBF{\"nodes\": []}",
		"{\"nodes\": [{\"node_id\": \"\xff\"}]}",
		"{\r\n\"nodes\": [\r\n{\"node_id\": \"a\"}\r\n]\r\n}\r\n",
		`{"nodes": [{"node_id": "a\u0000b"}]}`,
		`{"nodes": [{"node_id": "a", "task_ref": "T", "includes": {"\u0041": "x.txt"}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const (
			path = "seed/workflows/wf.v1.json"
			id   = "wf.v1"
		)
		w, err := catalog.ParseWorkflow(path, id, data)
		if err != nil {
			if w != nil {
				t.Fatalf("workflow returned with an error")
			}
			fzCheckDiags(t, err, path, data)
			return
		}
		if w == nil {
			t.Fatalf("nil workflow and nil error")
		}
		// The file is read as prompt.Normalize reads it: a byte-order mark
		// and CR line ends are fine, invalid UTF-8 is not.
		text, err := prompt.Normalize(data)
		if err != nil {
			t.Fatalf("accepted a file Normalize rejects: %v", err)
		}
		if !json.Valid([]byte(text)) {
			t.Fatalf("accepted invalid JSON %q", text)
		}
		if w.ID != id || w.Path != path {
			t.Fatalf("ID %q Path %q, want %q %q", w.ID, w.Path, id, path)
		}
		lines := bytes.Split([]byte(text), []byte{'\n'})
		seen := map[string]bool{}
		for i, n := range w.Nodes {
			if n == nil {
				t.Fatalf("node %d is nil", i)
			}
			if !fzNodeID.MatchString(n.ID) {
				t.Fatalf("node %d has id %q", i, n.ID)
			}
			if seen[n.ID] {
				t.Fatalf("node id %q repeated", n.ID)
			}
			seen[n.ID] = true
			if w.Node(n.ID) != n {
				t.Fatalf("Node(%q) does not find node %d", n.ID, i)
			}
			if n.Line < 1 || n.Line > len(lines) {
				t.Fatalf("node %q Line %d outside the file's %d lines", n.ID, n.Line, len(lines))
			}
			if !bytes.Contains(lines[n.Line-1], []byte{'{'}) {
				t.Fatalf("node %q Line %d (%q) holds no opening brace", n.ID, n.Line, lines[n.Line-1])
			}
			for k, v := range n.Includes {
				if !include.ValidName(k) {
					t.Fatalf("node %q includes key %q is not a token name", n.ID, k)
				}
				if _, err := include.CleanPath(v); err != nil {
					t.Fatalf("node %q includes %s = %q: %v", n.ID, k, v, err)
				}
			}
		}
		again, err := catalog.ParseWorkflow(path, id, data)
		if err != nil || !reflect.DeepEqual(again, w) {
			t.Fatalf("second parse differs: %v", err)
		}
	})
}
