package agent

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/wordlist"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/preset/agent/reply"
)

// Tool is a tool offered to the executor: its name, what it does, and the
// JSON Schema of its arguments (kept in its written order). Score, when
// set, orders the tools (higher first) and what the budget drops (lower
// first); without one the order given is kept.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Score       *float64        `json:"score,omitempty"`
}

// ToolCall is a tool call the executor made and what came of it.
// Arguments is JSON; Result is the tool's output as text (structured
// output is written as compact JSON); Error is set when the call failed.
type ToolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Result    string          `json:"result,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// ParseTaskState reads the task state, a YAML (or JSON) mapping in the
// file path, and returns it as the YAML the prompt shows: keys in the
// order written, comments left out, flow collections written as blocks,
// two-space indents. The same file always gives the same text.
func ParseTaskState(path string, data []byte) (string, error) {
	top, errs := parseFile(path, data, "the task state, a YAML mapping")
	if errs != nil {
		return "", errs
	}
	if top.Kind != yaml.MappingNode {
		return "", diag.List{at(path, top, "the task state is a YAML mapping (key: value lines)")}
	}
	return encodeYAML(top)
}

// FormatTaskState returns v, any value YAML can encode (a struct, a map),
// as the YAML the prompt shows. Struct fields keep their order and map
// keys are sorted, so the text is stable.
func FormatTaskState(v any) (string, error) {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return "", fmt.Errorf("agent: task state: %w", err)
	}
	return encodeYAML(&n)
}

func encodeYAML(n *yaml.Node) (string, error) {
	plain(n, 0)
	var b strings.Builder
	if err := writeBlock(&b, n, "", "", encodeChunk); err != nil {
		return "", fmt.Errorf("agent: task state: %w", err)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// encodeChunk is the most nodes the YAML encoder is given at once. Its
// cost per node is some kilobytes, held until the whole tree it is given
// is written, so a large state is written in pieces of at most this many
// nodes, each giving the lines it gives within the whole.
const encodeChunk = 256

// writeBlock writes n as two-space block YAML, each line after the first
// prefixed by indent, the first by first (indent, or a "- " that makes
// it a list's item); empty lines are written empty. A mapping or list
// of more than chunk nodes is written in runs of members of at most
// chunk nodes in all, and each member that is larger on its own.
func writeBlock(b *strings.Builder, n *yaml.Node, indent, first string, chunk int) error {
	if within(n, chunk) || len(n.Content) == 0 || n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode {
		return encodeLines(b, n, indent, first)
	}
	step := 1
	if n.Kind == yaml.MappingNode {
		step = 2
	}
	for i := 0; i+step <= len(n.Content); {
		// The members from i that fit in a chunk, written together.
		j, left := i, chunk
		for j+step <= len(n.Content) {
			m := n.Content[j : j+step]
			size := nodes(m, left)
			if size > left && (j > i || !atomic(m[step-1])) {
				break
			}
			left -= size
			j += step
		}
		if j > i {
			part := *n
			part.Content = n.Content[i:j]
			if err := encodeLines(b, &part, indent, first); err != nil {
				return err
			}
			first, i = indent, j
			continue
		}
		// Member i is larger than a chunk on its own.
		if n.Kind == yaml.SequenceNode {
			if err := writeBlock(b, n.Content[i], indent+"  ", first+"- ", chunk); err != nil {
				return err
			}
		} else {
			key, err := keyLine(n, n.Content[i])
			if err != nil {
				return err
			}
			b.WriteString(first)
			b.WriteString(key)
			b.WriteString(":\n")
			if err := writeBlock(b, n.Content[i+1], indent+"  ", indent+"  ", chunk); err != nil {
				return err
			}
		}
		first, i = indent, i+step
	}
	return nil
}

// atomic reports whether n is written on the line of its key or its
// item's "- ": a scalar, an alias, or an empty mapping or list.
func atomic(n *yaml.Node) bool {
	return n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode || len(n.Content) == 0
}

// within reports whether the tree at n has at most max nodes.
func within(n *yaml.Node, max int) bool {
	return nodes([]*yaml.Node{n}, max) <= max
}

// nodes counts the nodes of the trees ns, stopping once they are more
// than max.
func nodes(ns []*yaml.Node, max int) int {
	c := 0
	for _, n := range ns {
		c++
		if c > max {
			return c
		}
		c += nodes(n.Content, max-c)
	}
	return c
}

// keyLine returns the text of the key k of the mapping n as the encoder
// writes it before ": ".
func keyLine(n, k *yaml.Node) (string, error) {
	pair := *n
	pair.Content = []*yaml.Node{k, {Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}}
	var b strings.Builder
	if err := encodeLines(&b, &pair, "", ""); err != nil {
		return "", err
	}
	key, ok := strings.CutSuffix(b.String(), ": []\n")
	if !ok || strings.Contains(key, "\n") {
		return "", fmt.Errorf("the key %q cannot be written on a line of its own", k.Value)
	}
	return key, nil
}

// dumpYAML writes n as YAML with two-space indents and lines as long as
// their values (a line folded at a width would fold where its indent
// says, and the pieces of writeBlock are written without it).
func dumpYAML(w io.Writer, n *yaml.Node) error {
	d, err := yaml.NewDumper(w, yaml.WithV3Defaults(), yaml.WithIndent(2), yaml.WithLineWidth(-1))
	if err != nil {
		return err
	}
	if err := d.Dump(n); err != nil {
		return err
	}
	return d.Close()
}

// encodeLines writes n as the YAML encoder does, with two-space indents,
// the first line prefixed by first and the others by indent.
func encodeLines(b *strings.Builder, n *yaml.Node, indent, first string) error {
	var out strings.Builder
	if err := dumpYAML(&out, n); err != nil {
		return err
	}
	text := out.String()
	for i := 0; text != ""; i++ {
		line, rest, _ := strings.Cut(text, "\n")
		if i == 0 {
			b.WriteString(first)
		} else if line != "" {
			b.WriteString(indent)
		}
		b.WriteString(line)
		b.WriteByte('\n')
		text = rest
	}
	return nil
}

// plain drops comments and flow styles, so a state written as JSON or
// with comments shows as plain block YAML.
func plain(n *yaml.Node, depth int) {
	if depth > 1000 {
		return
	}
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	if n.Kind != yaml.ScalarNode || n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		n.Style = 0
	}
	for _, c := range n.Content {
		plain(c, depth+1)
	}
}

// ParseSubtask reads one subtask, a YAML or JSON mapping with the keys of
// a plan's subtasks, from the file path. Its id is required.
func ParseSubtask(path string, data []byte) (*reply.Subtask, error) {
	s, _, err := parseSubtask(path, data)
	return s, err
}

// subtaskPlaces is where a subtask file's mapping and its tools key are,
// for messages about them; tools is the mapping's place when the file
// has no tools.
type subtaskPlaces struct {
	line, col           int
	toolsLine, toolsCol int
}

// parseSubtask is ParseSubtask, which also returns where the subtask and
// its tools were read.
func parseSubtask(path string, data []byte) (*reply.Subtask, subtaskPlaces, error) {
	var pl subtaskPlaces
	top, errs := parseFile(path, data, "the subtask, a mapping with its id, description and acceptance_criteria")
	if errs != nil {
		return nil, pl, errs
	}
	if top.Kind != yaml.MappingNode {
		return nil, pl, diag.List{at(path, top, "subtask: write a mapping (an object) with the keys %s", wordlist.And(subtaskKeys()))}
	}
	var doc subtaskDoc
	d := subtaskSchema.Decode(path, top, &doc)
	errs = d.Errors()
	if doc.ID == "" && len(errs) == 0 {
		errs = append(errs, at(path, top, "the subtask has no id: add \"id\""))
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, pl, errs
	}
	s := &reply.Subtask{
		ID: doc.ID, Description: doc.Description, DependsOn: doc.DependsOn,
		ModelTier: doc.ModelTier, VerificationTier: doc.VerificationTier, IsCriticalPath: doc.IsCriticalPath,
		AcceptanceCriteria: doc.AcceptanceCriteria, Status: doc.Status, Tools: doc.Tools,
	}
	pl.line, pl.col = top.Line, top.Column
	pl.toolsLine, pl.toolsCol = d.Pos("tools")
	if pl.toolsLine == 0 {
		pl.toolsLine, pl.toolsCol = pl.line, pl.col
	}
	return s, pl, nil
}

// ParseMemory reads memory entries, a YAML or JSON list of objects with
// the keys of MemoryEntry, from the file path. Each needs a type (one of
// reply.MemoryTypes) and a summary; ids, when given, are unique.
func ParseMemory(path string, data []byte) ([]reply.MemoryEntry, error) {
	const what = "memory entry"
	var docs []entryDoc
	top, d, errs := decodeList(path, data, memorySchema, &docs, "memory entries", "write a list of memory entries ([] for none)")
	if errs != nil {
		return nil, errs
	}
	errs = d.Errors()
	out := make([]reply.MemoryEntry, 0, len(docs))
	ids := map[string]int{}
	for i := range docs {
		if top.Content[i].Kind != yaml.MappingNode {
			continue
		}
		e := docs[i].entry()
		errs = append(errs, checkEntry(path, d, i, what, &e, ids, true)...)
		out = append(out, e)
	}
	return done(errs, out)
}

// ParseNotes reads discoveries or errors for the replanner: a YAML or
// JSON list whose items are memory entries or plain strings (a string is
// an entry with that summary).
func ParseNotes(path string, data []byte) ([]reply.MemoryEntry, error) {
	const what = "entry"
	var docs []noteDoc
	top, d, errs := decodeList(path, data, notesSchema, &docs, "entries", "write a list of entries ([] for none)")
	if errs != nil {
		return nil, errs
	}
	errs = d.Errors()
	out := make([]reply.MemoryEntry, 0, len(docs))
	ids := map[string]int{}
	for i := range docs {
		switch n := &docs[i]; {
		case n.text && n.Summary != "":
			out = append(out, reply.MemoryEntry{Summary: n.Summary})
		case top.Content[i].Kind == yaml.MappingNode:
			e := n.entry()
			errs = append(errs, checkEntry(path, d, i, what, &e, ids, false)...)
			out = append(out, e)
		}
	}
	return done(errs, out)
}

// checkEntry checks memory entry i (a mapping) of the list d decoded: it
// has a summary, a type of reply.MemoryTypes (which it may leave out unless
// typeRequired), and an id no other entry has (ids maps those seen to
// their entry's number). Names and paths are built for a problem only.
func checkEntry(path string, d *yamldoc.Decoder, i int, what string, e *reply.MemoryEntry, ids map[string]int, typeRequired bool) diag.List {
	var errs diag.List
	item := func(field string) string { return "[" + strconv.Itoa(i) + "]" + field }
	problem := func(field, format string, args ...any) {
		line, col := d.Pos(item(field))
		args = append([]any{label(what, item(""))}, args...)
		errs = append(errs, diag.ErrorfAt(path, line, col, format, args...))
	}
	if strings.TrimSpace(e.Summary) == "" && !d.Bad(item(".summary")) {
		problem("", "%s has no summary: add one")
	}
	switch {
	case e.Type != "" && !slices.Contains(reply.MemoryTypes(), e.Type):
		problem(".type", "%s: type %q: use %s", e.Type, wordlist.Or(reply.MemoryTypes()))
	case e.Type == "" && typeRequired && !d.Bad(item(".type")):
		problem("", "%s has no type: add one: %s", wordlist.Or(reply.MemoryTypes()))
	}
	if e.ID != "" {
		if first, ok := ids[e.ID]; ok {
			problem(".id", "%s: id %q is used by entry %d too: ids are unique", e.ID, first)
		} else {
			ids[e.ID] = i + 1
		}
	}
	return errs
}

// ParseTools reads the tools for a subtask, a YAML or JSON list of
// {name, description, parameters, score}, from the file path. Names are
// required and unique; parameters, when given, is a JSON Schema object.
func ParseTools(path string, data []byte) ([]Tool, error) {
	top, errs := listFile(path, data, "tools", "write a list of tools, each {name, description, parameters}")
	if errs != nil {
		return nil, errs
	}
	var docs []toolDoc
	d := toolsSchema.Decode(path, top, &docs)
	errs = d.Errors()
	out := make([]Tool, 0, len(docs))
	names := map[string]int{}
	for i := range docs {
		if top.Content[i].Kind != yaml.MappingNode {
			continue
		}
		t := &docs[i]
		item := func(field string) string { return "[" + strconv.Itoa(i) + "]" + field }
		switch first, dup := names[t.Name]; {
		case t.Name == "" && !d.Bad(item(".name")):
			line, col := d.Pos(item(""))
			errs = append(errs, diag.ErrorfAt(path, line, col, "%s has no name: add one", label("tool", item(""))))
		case t.Name == "":
		case dup:
			line, col := d.Pos(item(".name"))
			errs = append(errs, diag.ErrorfAt(path, line, col, "%s: the name %q is taken by tool %d: names are unique", label("tool", item("")), t.Name, first))
		default:
			names[t.Name] = i + 1
		}
		errs = append(errs, checkTool(path, top, i, t.Name, t.Parameters)...)
		out = append(out, Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters, Score: t.Score.value()})
	}
	return done(errs, out)
}

// ParseToolCalls reads tool calls, a YAML or JSON list of {name,
// arguments, result, error}, from the file path. A result that is not
// text is kept as compact JSON.
func ParseToolCalls(path string, data []byte) ([]ToolCall, error) {
	var docs []callDoc
	top, d, errs := decodeList(path, data, callsSchema, &docs, "tool calls", "write a list of tool calls, each {name, arguments, result}")
	if errs != nil {
		return nil, errs
	}
	errs = d.Errors()
	out := make([]ToolCall, 0, len(docs))
	for i := range docs {
		c := &docs[i]
		if item := "[" + strconv.Itoa(i) + "]"; top.Content[i].Kind == yaml.MappingNode && c.Name == "" && !d.Bad(item+".name") {
			line, col := d.Pos(item)
			errs = append(errs, diag.ErrorfAt(path, line, col, "%s has no name: add the tool's name", label("tool call", item)))
		}
		out = append(out, ToolCall{Name: c.Name, Arguments: json.RawMessage(c.Arguments), Result: string(c.Result), Error: c.Error})
	}
	return done(errs, out)
}
