package agent

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
)

// Subtask is one step of a plan, with the fields of the design's planner
// output. Status is the orchestrator's (pending, completed, ...), not the
// planner's; Tools, when set, names the tools the executor is shown.
type Subtask struct {
	ID                 string   `json:"id"`
	Description        string   `json:"description"`
	DependsOn          []string `json:"depends_on"`
	ModelTier          int      `json:"model_tier"`
	VerificationTier   int      `json:"verification_tier"`
	IsCriticalPath     bool     `json:"is_critical_path"`
	AcceptanceCriteria string   `json:"acceptance_criteria"`
	Status             string   `json:"status,omitempty"`
	Tools              []string `json:"tools,omitempty"`

	line int // where it was read, for messages; 0 when unknown
}

// StatusCompleted is the status of a subtask that is done; a revised plan
// must keep such subtasks unchanged.
const StatusCompleted = "completed"

// Plan is the planner's output: the subtasks in order.
type Plan struct {
	Subtasks []Subtask `json:"subtasks"`

	source string // the file it was read from, for messages
}

// Subtask returns the subtask with the given id, or nil.
func (p *Plan) Subtask(id string) *Subtask {
	for i := range p.Subtasks {
		if p.Subtasks[i].ID == id {
			return &p.Subtasks[i]
		}
	}
	return nil
}

// The memory entry types of the design's extractor.
const (
	TypeDecision   = "decision"
	TypeError      = "error"
	TypeToolResult = "tool_result"
	TypeDiscovery  = "discovery"
	TypeArtifact   = "artifact"
	TypeContext    = "context"
)

// MemoryTypes returns the memory entry types, in the design's order.
func MemoryTypes() []string {
	return []string{TypeDecision, TypeError, TypeToolResult, TypeDiscovery, TypeArtifact, TypeContext}
}

// MaxSummary is the most characters a memory entry's summary may have.
const MaxSummary = 150

// MemoryEntry is one entry of the agent's memory (Layer 2), as the
// extractor writes it. Tags and RelevanceTo are lists; in JSON each may
// also be written as one comma-separated string. Score, when set, is the
// retrieval's relevance (higher is more relevant) and orders what the
// budget drops; ID and Subtask are the store's.
type MemoryEntry struct {
	ID          string   `json:"id,omitempty"`
	Type        string   `json:"type"`
	Summary     string   `json:"summary"`
	Detail      string   `json:"detail,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	RelevanceTo []string `json:"relevance_to,omitempty"`
	Subtask     string   `json:"subtask,omitempty"`
	Score       *float64 `json:"score,omitempty"`
}

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

// SplitList splits a comma-separated list, trimming each item and leaving
// out empty ones.
func SplitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// ParseTaskState reads the task state, a YAML (or JSON) mapping in the
// file path, and returns it as the YAML the prompt shows: keys in the
// order written, comments left out, flow collections written as blocks,
// two-space indents. The same file always gives the same text.
func ParseTaskState(path string, data []byte) (string, error) {
	d := &nodeDecoder{path: path}
	top := d.parse(data, "the task state, a YAML mapping")
	if top == nil {
		return "", d.errs
	}
	if top.Kind != yaml.MappingNode {
		return "", diag.List{diag.Errorf(path, top.Line, "the task state is a YAML mapping (key: value lines)")}
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
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return "", fmt.Errorf("agent: task state: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("agent: task state: %w", err)
	}
	return strings.TrimRight(b.String(), "\n"), nil
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

func subtaskKeys() []string {
	return []string{"id", "description", "depends_on", "model_tier", "verification_tier", "is_critical_path", "acceptance_criteria", "status", "tools"}
}

// ParseSubtask reads one subtask, a YAML or JSON mapping with the keys of
// a plan's subtasks, from the file path. Its id is required.
func ParseSubtask(path string, data []byte) (*Subtask, error) {
	d := &nodeDecoder{path: path}
	top := d.parse(data, "the subtask, a mapping with its id, description and acceptance_criteria")
	if top == nil {
		return nil, d.errs
	}
	s := d.subtask(top, "subtask")
	if s.ID == "" && len(d.errs) == 0 {
		d.errorf(top.Line, "the subtask has no id: add \"id\"")
	}
	if len(d.errs) > 0 {
		d.errs.Sort()
		return nil, d.errs
	}
	return s, nil
}

func (d *nodeDecoder) subtask(n *yaml.Node, what string) *Subtask {
	s := &Subtask{line: n.Line}
	d.fields(n, what, subtaskKeys(), func(key string, _, v *yaml.Node) {
		w := what + " " + key
		switch key {
		case "id":
			s.ID = d.str(v, w)
		case "description":
			s.Description = d.str(v, w)
		case "depends_on":
			s.DependsOn = d.list(v, w)
		case "model_tier":
			s.ModelTier = d.int(v, w)
		case "verification_tier":
			s.VerificationTier = d.int(v, w)
		case "is_critical_path":
			s.IsCriticalPath = d.bool(v, w)
		case "acceptance_criteria":
			s.AcceptanceCriteria = d.str(v, w)
		case "status":
			s.Status = d.str(v, w)
		case "tools":
			s.Tools = d.list(v, w)
		}
	})
	return s
}

func entryKeys() []string {
	return []string{"id", "type", "summary", "detail", "tags", "relevance_to", "subtask", "score"}
}

// ParseMemory reads memory entries, a YAML or JSON list of objects with
// the keys of MemoryEntry, from the file path. Each needs a type (one of
// MemoryTypes) and a summary; ids, when given, are unique.
func ParseMemory(path string, data []byte) ([]MemoryEntry, error) {
	return parseEntries(path, data, "memory entry", false)
}

// ParseNotes reads discoveries or errors for the replanner: a YAML or
// JSON list whose items are memory entries or plain strings (a string is
// an entry with that summary).
func ParseNotes(path string, data []byte) ([]MemoryEntry, error) {
	return parseEntries(path, data, "entry", true)
}

func parseEntries(path string, data []byte, what string, strs bool) ([]MemoryEntry, error) {
	d := &nodeDecoder{path: path}
	top, err := d.parseList(data, "a list of "+what+"s ([] for none)", "write a list of "+what+"s ([] for none)")
	if err != nil {
		return nil, err
	}
	out := make([]MemoryEntry, 0, len(top.Content))
	ids := map[string]int{}
	for i, n := range top.Content {
		w := fmt.Sprintf("%s %d", what, i+1)
		if strs && n.Kind == yaml.ScalarNode {
			if s := strings.TrimSpace(d.str(n, w)); s != "" {
				out = append(out, MemoryEntry{Summary: s})
			}
			continue
		}
		var e MemoryEntry
		d.fields(n, w, entryKeys(), func(key string, _, v *yaml.Node) {
			kw := w + " " + key
			switch key {
			case "id":
				e.ID = d.str(v, kw)
			case "type":
				e.Type = d.str(v, kw)
			case "summary":
				e.Summary = d.str(v, kw)
			case "detail":
				e.Detail = d.str(v, kw)
			case "tags":
				e.Tags = d.list(v, kw)
			case "relevance_to":
				e.RelevanceTo = d.list(v, kw)
			case "subtask":
				e.Subtask = d.str(v, kw)
			case "score":
				e.Score = d.float(v, kw)
			}
		})
		if n.Kind != yaml.MappingNode {
			continue
		}
		if strings.TrimSpace(e.Summary) == "" {
			d.errorf(n.Line, "%s has no summary: add one", w)
		}
		if e.Type != "" && !slices.Contains(MemoryTypes(), e.Type) {
			d.errorf(n.Line, "%s: type %q: use %s", w, e.Type, orList(MemoryTypes()))
		} else if e.Type == "" && !strs {
			d.errorf(n.Line, "%s has no type: add one: %s", w, orList(MemoryTypes()))
		}
		if e.ID != "" {
			if first, ok := ids[e.ID]; ok {
				d.errorf(n.Line, "%s: id %q is used by entry %d too: ids are unique", w, e.ID, first)
			} else {
				ids[e.ID] = i + 1
			}
		}
		out = append(out, e)
	}
	return done(d, out)
}

func toolKeys() []string {
	return []string{"name", "description", "parameters", "score"}
}

// ParseTools reads the tools for a subtask, a YAML or JSON list of
// {name, description, parameters, score}, from the file path. Names are
// required and unique; parameters, when given, is a JSON Schema object.
func ParseTools(path string, data []byte) ([]Tool, error) {
	d := &nodeDecoder{path: path}
	top, err := d.parseList(data, "a list of tools ([] for none)", "write a list of tools, each {name, description, parameters}")
	if err != nil {
		return nil, err
	}
	out := make([]Tool, 0, len(top.Content))
	names := map[string]int{}
	for i, n := range top.Content {
		w := fmt.Sprintf("tool %d", i+1)
		var t Tool
		d.fields(n, w, toolKeys(), func(key string, _, v *yaml.Node) {
			kw := w + " " + key
			switch key {
			case "name":
				t.Name = d.str(v, kw)
			case "description":
				t.Description = d.str(v, kw)
			case "parameters":
				if v.Kind != yaml.MappingNode {
					d.errorf(v.Line, "%s: write a JSON Schema object", kw)
					return
				}
				t.Parameters = d.json(v, kw)
			case "score":
				t.Score = d.float(v, kw)
			}
		})
		if n.Kind != yaml.MappingNode {
			continue
		}
		switch first, dup := names[t.Name]; {
		case t.Name == "":
			d.errorf(n.Line, "%s has no name: add one", w)
		case dup:
			d.errorf(n.Line, "%s: the name %q is taken by tool %d: names are unique", w, t.Name, first)
		default:
			names[t.Name] = i + 1
		}
		out = append(out, t)
	}
	return done(d, out)
}

func callKeys() []string {
	return []string{"name", "arguments", "result", "error"}
}

// ParseToolCalls reads tool calls, a YAML or JSON list of {name,
// arguments, result, error}, from the file path. A result that is not
// text is kept as compact JSON.
func ParseToolCalls(path string, data []byte) ([]ToolCall, error) {
	d := &nodeDecoder{path: path}
	top, err := d.parseList(data, "a list of tool calls ([] for none)", "write a list of tool calls, each {name, arguments, result}")
	if err != nil {
		return nil, err
	}
	out := make([]ToolCall, 0, len(top.Content))
	for i, n := range top.Content {
		w := fmt.Sprintf("tool call %d", i+1)
		var c ToolCall
		d.fields(n, w, callKeys(), func(key string, _, v *yaml.Node) {
			kw := w + " " + key
			switch key {
			case "name":
				c.Name = d.str(v, kw)
			case "arguments":
				c.Arguments = d.json(v, kw)
			case "result":
				if v.Kind == yaml.ScalarNode && v.Tag == "!!str" {
					c.Result = v.Value
				} else {
					c.Result = string(d.json(v, kw))
				}
			case "error":
				c.Error = d.str(v, kw)
			}
		})
		if n.Kind == yaml.MappingNode && c.Name == "" {
			d.errorf(n.Line, "%s has no name: add the tool's name", w)
		}
		out = append(out, c)
	}
	return done(d, out)
}
