package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/include"
	"github.com/tessera-dev/tessera/internal/jsondup"
	"github.com/tessera-dev/tessera/prompt"
)

// Workflow is a workflow file: an ordered list of nodes. Its ID is the
// file name without ".json".
type Workflow struct {
	// ID is the file name without ".json", for example "pm_discovery.v1".
	ID string
	// Path is the file's path relative to the catalog root.
	Path string
	// Nodes are the workflow's nodes in file order.
	Nodes []*Node

	// index maps a node id to its position in Nodes, as ParseWorkflow
	// found it, so that looking up every node of a large workflow is
	// linear, not quadratic. Node checks each hit, so a Nodes slice
	// changed since costs a scan, never a wrong answer.
	index map[string]int
}

// Node is one node of a workflow. Fields the file has beyond these are
// accepted and ignored.
type Node struct {
	// ID is the node's node_id, unique within its workflow.
	ID string
	// Type is the node's type.
	Type string
	// TaskRef names a template in the tasks directory by its name without
	// extension; empty for nodes that assemble no prompt.
	TaskRef string
	// Includes maps token names to file paths relative to the root.
	Includes map[string]string
	// Line and Col are the line and column (in bytes) of the node's
	// opening brace in the workflow file.
	Line, Col int
	// Raw is the node's JSON object as written, other fields included, for
	// callers whose orchestrators read more of the node than Tessera does.
	Raw json.RawMessage
}

// Node returns the node with the given id, or nil.
func (w *Workflow) Node(id string) *Node {
	if i, ok := w.index[id]; ok && i < len(w.Nodes) && w.Nodes[i].ID == id {
		return w.Nodes[i]
	}
	for _, n := range w.Nodes {
		if n.ID == id {
			return n
		}
	}
	return nil
}

var nodeIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

type rawNode struct {
	NodeID   *string         `json:"node_id"`
	Type     *string         `json:"type"`
	TaskRef  *string         `json:"task_ref"`
	Includes json.RawMessage `json:"includes"`
}

// ParseWorkflow parses the content data of the workflow file at path
// (relative to the root) with the given id. The content is normalised first
// (see prompt.Normalize), so a byte-order mark or CRLF line ends are fine. It reports every problem it
// finds, each with its line, as a diag.List.
func ParseWorkflow(path, id string, data []byte) (*Workflow, error) {
	w := &Workflow{ID: id, Path: path}
	text, err := prompt.Normalize(data)
	if err != nil {
		return nil, diag.List{encodingDiag(path, err)}
	}
	data = []byte(text)
	// Validate the whole file first: only a one-shot decode reports syntax
	// errors at an offset counted from the start of the file.
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		return nil, diag.List{syntaxError(path, data, err)}
	}
	if reps := jsondup.Find(data); len(reps) > 0 {
		errs := make(diag.List, len(reps))
		for i, r := range reps {
			key := r.Key
			if r.Path != "" {
				key = r.Path + "." + key
			}
			line, col := diag.Position(data, r.Second)
			first, _ := diag.Position(data, r.First)
			errs[i] = diag.ErrorfAt(path, line, col, "key %q is repeated (first at line %d): keep one", key, first)
		}
		return nil, errs
	}
	var errs diag.List
	lines := lineCounter{data: data}
	fail := func(off int64, format string, args ...any) {
		line, col := lines.at(off)
		errs = append(errs, diag.ErrorfAt(path, line, col, format, args...))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil {
		return nil, diag.List{jsonError(path, data, dec, err)}
	} else if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, diag.List{diag.Errorf(path, 1, "want a JSON object with a \"nodes\" array")}
	}
	sawNodes := false
	for dec.More() {
		keyOff := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, diag.List{jsonError(path, data, dec, err)}
		}
		key, _ := tok.(string)
		if key != "nodes" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, diag.List{jsonError(path, data, dec, err)}
			}
			continue
		}
		sawNodes = true
		tok, err = dec.Token()
		if err != nil {
			return nil, diag.List{jsonError(path, data, dec, err)}
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			fail(keyOff, "\"nodes\" must be an array of node objects")
			return nil, errs
		}
		for dec.More() {
			off := valueStart(data, dec.InputOffset())
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, diag.List{jsonError(path, data, dec, err)}
			}
			line, col := lines.at(off)
			n, nerrs := parseNode(path, line, col, raw, len(w.Nodes)+1)
			errs = append(errs, nerrs...)
			if n != nil {
				if _, ok := w.index[n.ID]; ok {
					fail(off, "node_id %q is repeated: node ids must be unique within a workflow", n.ID)
					continue
				}
				if w.index == nil {
					w.index = make(map[string]int)
				}
				w.index[n.ID] = len(w.Nodes)
				w.Nodes = append(w.Nodes, n)
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, diag.List{jsonError(path, data, dec, err)}
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, diag.List{jsonError(path, data, dec, err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, diag.List{errorAt(path, data, dec.InputOffset(), "unexpected data after the workflow object")}
	}
	if !sawNodes {
		errs = append(errs, diag.Errorf(path, 1, "no \"nodes\" array: a workflow lists its nodes under \"nodes\""))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return w, nil
}

func parseNode(path string, line, col int, raw json.RawMessage, index int) (*Node, diag.List) {
	var errs diag.List
	fail := func(format string, args ...any) {
		errs = append(errs, diag.ErrorfAt(path, line, col, format, args...))
	}
	var r rawNode
	if err := json.Unmarshal(raw, &r); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			fail("node %d: field %q: want a %s, found a JSON %s", index, te.Field, jsonKind(te.Type.Kind().String()), te.Value)
		} else {
			fail("node %d: want a JSON object", index)
		}
		return nil, errs
	}
	n := &Node{Line: line, Col: col, Raw: raw}
	if r.NodeID == nil || *r.NodeID == "" {
		fail("node %d has no node_id", index)
		return nil, errs
	}
	n.ID = *r.NodeID
	if !nodeIDPattern.MatchString(n.ID) {
		fail("node_id %q: use letters, digits, '.', '_' and '-' (it becomes a file name when compiled)", n.ID)
	}
	if r.Type != nil {
		n.Type = *r.Type
	}
	if r.TaskRef != nil {
		n.TaskRef = *r.TaskRef
		if n.TaskRef == "" {
			fail("node %q: task_ref is empty: name a template, or remove the key", n.ID)
		}
	}
	if len(r.Includes) > 0 && string(r.Includes) != "null" {
		inc, err := parseIncludes(r.Includes)
		if err != nil {
			fail("node %q: includes: %v", n.ID, err)
		}
		for _, k := range sortedKeys(inc) {
			if !include.ValidName(k) {
				fail("node %q: includes key %q is not a token name: token names match [A-Z][A-Z0-9_]*", n.ID, k)
			}
			if _, err := include.CleanPath(inc[k]); err != nil {
				fail("node %q: includes %s: %v", n.ID, k, err)
			}
		}
		n.Includes = inc
	}
	return n, errs
}

// parseIncludes decodes the includes object (ParseWorkflow has already
// refused repeated keys).
func parseIncludes(raw json.RawMessage) (map[string]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil {
		return nil, err
	} else if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("want an object mapping token names to file paths")
	}
	m := map[string]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k := tok.(string)
		var v string
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s: want a file path string", k)
		}
		m[k] = v
	}
	return m, nil
}

func jsonKind(k string) string {
	switch k {
	case "ptr", "string":
		return "string"
	case "slice":
		return "array"
	case "map", "struct":
		return "object"
	}
	return k
}

// jsonError turns an error from the streaming decoder into a diagnostic.
// Syntax errors are caught before streaming starts (see syntaxError), so
// what remains here is rare; it is reported at the decoder's position.
func jsonError(path string, data []byte, dec *json.Decoder, err error) *diag.Error {
	return errorAt(path, data, dec.InputOffset(), "not valid JSON: %v", err)
}

// syntaxError reports an error from decoding the whole file at its line.
func syntaxError(path string, data []byte, err error) *diag.Error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return diag.ErrorfAt(path, 1, 1, "not valid JSON: %v", err)
	}
	if strings.Contains(se.Error(), "after top-level value") {
		return errorAt(path, data, se.Offset-1, "unexpected data after the workflow object")
	}
	if se.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))) {
		last := int64(len(bytes.TrimRight(data, " \t\r\n")))
		return errorAt(path, data, last-1, "not valid JSON: the file ends early (an unclosed object or array?)")
	}
	// Offset counts the byte that broke the syntax; report its line.
	return errorAt(path, data, se.Offset-1, "not valid JSON: %v", err)
}

// valueStart skips whitespace and a separating comma after off.
func valueStart(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',':
			off++
		default:
			return off
		}
	}
	return off
}

// errorAt is a diagnostic at byte offset off of data (at its start when
// off is negative).
func errorAt(path string, data []byte, off int64, format string, args ...any) *diag.Error {
	line, col := diag.Position(data, int(max(off, 0)))
	return diag.ErrorfAt(path, line, col, format, args...)
}

// lineCounter gives the lines and columns of offsets that mostly grow,
// counting only the newlines since the previous offset, so that the
// positions of every node of a file cost one pass over it.
type lineCounter struct {
	data  []byte
	off   int64 // offset counted up to
	line  int   // line at off, less one
	start int64 // offset of that line's first byte
}

// at returns the 1-based line and column (in bytes) of offset off.
func (c *lineCounter) at(off int64) (line, col int) {
	off = min(max(off, 0), int64(len(c.data)))
	if off < c.off {
		c.off, c.line, c.start = 0, 0, 0
	}
	seg := c.data[c.off:off]
	if n := bytes.Count(seg, []byte{'\n'}); n > 0 {
		c.line += n
		c.start = c.off + int64(bytes.LastIndexByte(seg, '\n')) + 1
	}
	c.off = off
	return 1 + c.line, int(off-c.start) + 1
}

// WorkflowJSONSchema returns the JSON Schema (draft 2020-12) of a
// workflow file, made from what ParseWorkflow checks: an object with a
// "nodes" array; each node an object with a node_id (the pattern
// ParseWorkflow holds it to), a type and a non-empty task_ref when
// given, and includes mapping token names to path strings; any other
// member is accepted, as ParseWorkflow accepts it. What a schema cannot
// say (node ids unique within the file, include paths inside the root)
// is checked when the file is read. FuzzWorkflowSchema checks that a
// file ParseWorkflow accepts is valid under it.
func WorkflowJSONSchema() []byte {
	str := func(extra ...any) map[string]any {
		m := map[string]any{"type": []string{"string", "null"}}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i].(string)] = extra[i+1]
		}
		return m
	}
	node := map[string]any{
		"type":        "object",
		"description": "a node; members other than these are kept for the orchestrator and ignored",
		"required":    []string{"node_id"},
		"properties": map[string]any{
			"node_id":  map[string]any{"type": "string", "pattern": nodeIDPattern.String(), "description": "unique within the workflow; it becomes a file name when compiled"},
			"type":     str("description", "the node's type"),
			"task_ref": str("minLength", 1, "description", "a template in the tasks directory, by its name without extension; absent for a node that assembles no prompt"),
			"includes": map[string]any{
				"type":                 []string{"object", "null"},
				"description":          "token names mapped to file paths relative to the catalog root",
				"propertyNames":        map[string]any{"pattern": "^[A-Z][A-Z0-9_]*$"},
				"additionalProperties": map[string]any{"type": "string"},
			},
		},
	}
	s := map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         "https://tessera.dev/schemas/workflow.schema.json",
		"title":       "a workflow file",
		"type":        "object",
		"required":    []string{"nodes"},
		"description": "a workflow: its nodes in order; members other than nodes are ignored",
		"properties":  map[string]any{"nodes": map[string]any{"type": "array", "items": node}},
	}
	out, _ := json.MarshalIndent(s, "", "  ") // maps, slices, strings and ints always marshal
	return append(out, '\n')
}
