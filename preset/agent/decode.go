package agent

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/wordlist"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/preset/agent/reply"
)

// The YAML (or JSON) files an operator writes for the agent (the task
// state, a subtask, memory entries, tools, tool calls, templates, the
// constraint library) are read by the one YAML layer: every problem at
// its line and column (in bytes), a repeated key named with both lines.
// Files of a fixed shape are decoded by a yamldoc.Schema of a private
// struct, whose problems are worded as the preset words them: "subtask
// model_tier: write a whole number", "memory entry 2: unknown key
// \"colour\": did you mean \"color\"? use ...".
var parser = yamldoc.Parser{Columns: true}

// parseFile parses data, the file path, into its top node: as JSON when
// yamldoc.IsJSON says it is (a .json file, or one whose extension does
// not say that opens with '{' or '['), as YAML otherwise. It returns nil
// and the problems when the file does not parse, or is empty ("the file
// is empty: write <what>").
func parseFile(path string, data []byte, what string) (*yaml.Node, diag.List) {
	top, err := parser.ParseFile(path, data)
	if err != nil {
		var errs diag.List
		errs.Add(err)
		return nil, errs
	}
	if top == nil {
		return nil, diag.List{diag.ErrorfAt(path, 1, 1, "the file is empty: write %s", what)}
	}
	return top, nil
}

// at returns a problem located at node n of the file path.
func at(path string, n *yaml.Node, format string, args ...any) *diag.Error {
	return diag.ErrorfAt(path, n.Line, n.Column, format, args...)
}

// schemaOptions are the options of the schema of a file whose values are
// named from what: "subtask" for a mapping ("subtask model_tier"), or
// "memory entry" for a list of them ("memory entry 2 type").
func schemaOptions(what string, rules map[string]yamldoc.Rule) yamldoc.Options {
	return yamldoc.Options{
		Columns:   true,
		Rules:     rules,
		Label:     func(at string) string { return label(what, at) },
		TypeError: func(want, _ string) string { return "write " + want },
		UnknownKey: func(at, key, hint string, keys []string) string {
			var b strings.Builder
			fmt.Fprintf(&b, "%s: unknown key %q: ", label(what, at), key)
			if hint != "" {
				fmt.Fprintf(&b, "did you mean %q? ", hint)
			}
			b.WriteString("use " + wordlist.And(keys))
			return b.String()
		},
	}
}

// label names the value at the dotted path at of a file of what, for
// people: "" is what itself, "[1]" its second item ("memory entry 2"),
// "[1].type" a key of it ("memory entry 2 type"), "model_tier" a key of a
// mapping ("subtask model_tier").
func label(what, at string) string {
	if at == "" {
		return what
	}
	if at[0] != '[' {
		return what + " " + at
	}
	i := strings.IndexByte(at, ']')
	n, err := strconv.Atoi(at[1:max(i, 1)])
	if i < 0 || err != nil {
		return what + " " + at
	}
	l := what + " " + strconv.Itoa(n+1)
	if rest := strings.TrimPrefix(at[i+1:], "."); rest != "" {
		l += " " + rest
	}
	return l
}

// mappingWant is what an item of a list of objects must be.
func mappingWant(keys []string) yamldoc.Rule {
	return yamldoc.Want("a mapping (an object) with the keys " + wordlist.And(keys))
}

// subtaskDoc is a subtask file (or an item of a plan), as written.
type subtaskDoc struct {
	ID                 string `yaml:"id"`
	Description        string `yaml:"description"`
	DependsOn          words  `yaml:"depends_on"`
	ModelTier          int    `yaml:"model_tier"`
	VerificationTier   int    `yaml:"verification_tier"`
	IsCriticalPath     bool   `yaml:"is_critical_path"`
	AcceptanceCriteria string `yaml:"acceptance_criteria"`
	Status             string `yaml:"status"`
	Tools              words  `yaml:"tools"`
}

func subtaskKeys() []string {
	return []string{"id", "description", "depends_on", "model_tier", "verification_tier", "is_critical_path", "acceptance_criteria", "status", "tools"}
}

var subtaskSchema = yamldoc.NewSchema[subtaskDoc](schemaOptions("subtask", nil))

// entryDoc is a memory entry, as written.
type entryDoc struct {
	ID          string `yaml:"id"`
	Type        string `yaml:"type"`
	Summary     string `yaml:"summary"`
	Detail      string `yaml:"detail"`
	Tags        words  `yaml:"tags"`
	RelevanceTo words  `yaml:"relevance_to"`
	Subtask     string `yaml:"subtask"`
	Score       *score `yaml:"score"`
}

func (e *entryDoc) entry() reply.MemoryEntry {
	return reply.MemoryEntry{ID: e.ID, Type: e.Type, Summary: e.Summary, Detail: e.Detail, Tags: e.Tags, RelevanceTo: e.RelevanceTo, Subtask: e.Subtask, Score: e.Score.value()}
}

func entryKeys() []string {
	return []string{"id", "type", "summary", "detail", "tags", "relevance_to", "subtask", "score"}
}

var memorySchema = yamldoc.NewSchema[[]entryDoc](schemaOptions("memory entry", map[string]yamldoc.Rule{"[]": mappingWant(entryKeys())}))

// noteDoc is a discovery or an error for the replanner: a memory entry,
// or a plain string (an entry with that summary).
type noteDoc struct {
	entryDoc
	text bool // written as a plain string
}

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (e *noteDoc) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	switch n.Kind {
	case yaml.ScalarNode:
		if s, ok := d.Text(n, at); ok {
			e.Summary, e.text = strings.TrimSpace(s), true
		}
	case yaml.MappingNode:
		d.Decode(n, at, &e.entryDoc)
	default:
		d.Wrong(n, at, "a string, or a mapping (an object) with the keys "+wordlist.And(entryKeys()))
	}
}

var notesSchema = yamldoc.NewSchema[[]noteDoc](schemaOptions("entry", nil))

// toolDoc is a tool, as written.
type toolDoc struct {
	Name        string          `yaml:"name"`
	Description string          `yaml:"description"`
	Parameters  json.RawMessage `yaml:"parameters"`
	Score       *score          `yaml:"score"`
}

var toolsSchema = yamldoc.NewSchema[[]toolDoc](schemaOptions("tool", map[string]yamldoc.Rule{
	"[]":            mappingWant([]string{"name", "description", "parameters", "score"}),
	"[].parameters": yamldoc.Want("a JSON Schema object"),
}))

// callDoc is a tool call, as written.
type callDoc struct {
	Name      string    `yaml:"name"`
	Arguments jsonValue `yaml:"arguments"`
	Result    result    `yaml:"result"`
	Error     string    `yaml:"error"`
}

var callsSchema = yamldoc.NewSchema[[]callDoc](schemaOptions("tool call", map[string]yamldoc.Rule{
	"[]": mappingWant([]string{"name", "arguments", "result", "error"}),
}))

// words is a list of words: a list of text, or one comma-separated
// string; items are trimmed and empty ones left out.
type words []string

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (w *words) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	switch n.Kind {
	case yaml.SequenceNode:
		if len(n.Content) > 0 {
			*w = make(words, 0, len(n.Content))
		}
		for _, c := range n.Content {
			if s, ok := d.Text(c, at); ok {
				if s = strings.TrimSpace(s); s != "" {
					*w = append(*w, s)
				}
			}
		}
	case yaml.ScalarNode:
		if s, ok := d.Text(n, at); ok {
			*w = reply.SplitList(s)
			return
		}
	default:
		d.Wrong(n, at, "a list, or one comma-separated string")
	}
}

// score is a relevance score: a finite number (JSON has no other).
type score float64

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (s *score) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	var f float64
	if d.Decode(n, at, &f) {
		if math.IsInf(f, 0) || math.IsNaN(f) {
			d.Wrong(n, at, "a finite number")
			return
		}
		*s = score(f)
	}
}

func (s *score) value() *float64 {
	if s == nil {
		return nil
	}
	f := float64(*s)
	return &f
}

// jsonValue is any JSON value, kept as compact JSON in its written order.
type jsonValue json.RawMessage

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (v *jsonValue) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	if raw, ok := d.JSON(n, at); ok {
		*v = jsonValue(raw)
	}
}

// result is a tool call's result: text as it is, any other value as
// compact JSON.
type result string

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (r *result) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		*r = result(n.Value)
		return
	}
	if raw, ok := d.JSON(n, at); ok {
		*r = result(raw)
	}
}

// listFile parses data, the file path, as a YAML or JSON list (items
// names its items, for an empty file; want says what to write when it is
// not a list) and returns its node.
func listFile(path string, data []byte, items, want string) (*yaml.Node, diag.List) {
	top, errs := parseFile(path, data, "a list of "+items+" ([] for none)")
	if errs != nil {
		return nil, errs
	}
	if top.Kind != yaml.SequenceNode {
		return nil, diag.List{at(path, top, "%s", want)}
	}
	return top, nil
}

// decodeList reads data, the file path, as a YAML or JSON list and
// decodes it with s into v, as listFile and s.Decode would; a JSON list
// is read and decoded item by item (see yamldoc.Schema.DecodeJSON), so
// the top node's items are stubs that keep their kind and place only.
func decodeList[T any](path string, data []byte, s *yamldoc.Schema[[]T], v *[]T, items, want string) (*yaml.Node, *yamldoc.Decoder, diag.List) {
	top, d, err := s.DecodeFile(parser, path, data, v)
	if err != nil {
		var errs diag.List
		errs.Add(err)
		return nil, nil, errs
	}
	if top == nil {
		return nil, nil, diag.List{diag.ErrorfAt(path, 1, 1, "the file is empty: write a list of %s ([] for none)", items)}
	}
	if top.Kind != yaml.SequenceNode {
		*v = nil
		return nil, nil, diag.List{at(path, top, "%s", want)}
	}
	return top, d, nil
}

// done returns out, or every problem in errs, sorted.
func done[T any](errs diag.List, out []T) ([]T, error) {
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return out, nil
}
