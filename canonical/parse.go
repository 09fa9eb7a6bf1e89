package canonical

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/suggest"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/prompt"
)

// The keys of each mapping of a spec file, in the order they are listed
// in diagnostics.
var (
	specKeys         = []string{"systemPrompt", "identity", "requestingUser", "conversationState", "constraints", "task", "input", "tools", "assembler"}
	systemPromptKeys = []string{"summary", "rules", "sources"}
	identityKeys     = []string{"personaId", "name", "role", "summary", "traits", "tone", "styleGuidelines"}
	userKeys         = []string{"userId", "handle", "displayName", "roles", "locale", "timezone", "tier"}
	stateKeys        = []string{"summary", "scope", "transcript", "retention", "renderMode"}
	messageKeys      = []string{"role", "content", "at"}
	retentionKeys    = []string{"maxMessages", "maxChars"}
	constraintKeys   = []string{"id", "priority", "text", "tags", "source"}
	taskKeys         = []string{"id", "priority", "instruction", "required", "outputFormat"}
	formatKeys       = []string{"type", "name", "jsonSchema", "example"}
	inputKeys        = []string{"userQuery", "attachments", "context"}
	attachmentKeys   = []string{"name", "mime", "uri", "bytesBase64"}
	toolKeys         = []string{"name", "description", "parameters"}
	assemblerKeys    = []string{"headingLevel", "showEmptySections"}
)

// ParseSpec parses a prompt spec from data, the content of the YAML or
// JSON file path (used in diagnostics only; nothing is read). The content
// is normalised first (prompt.Normalize). Keys are the design's names;
// an unknown or repeated key, a value of the wrong type and every rule of
// Validate are reported together, each as "path:line: what is wrong", in a
// diag.List. JSON Schemas (task[].outputFormat.jsonSchema,
// tools[].parameters) are converted to JSON in the order they are written.
// Aliases (*name) are not allowed: write the value out.
func ParseSpec(path string, data []byte) (*Spec, error) {
	text, err := prompt.Normalize(data)
	if err != nil {
		var ee *prompt.EncodingError
		line := 0
		if errors.As(err, &ee) {
			line = ee.Line
		}
		return nil, diag.List{diag.Wrap(path, line, err, "%v", err)}
	}
	if strings.Contains(text, `\/`) && json.Valid([]byte(text)) {
		// JSON may escape '/', YAML may not; the file is JSON, so the
		// escape is dropped (line numbers do not change).
		text = unescapeSlashes(text)
	}
	top, err := yamldoc.ParseText(path, text)
	if err != nil {
		return nil, err
	}
	if top == nil || isNull(top) {
		return nil, diag.List{diag.Errorf(path, 0, "empty: a spec needs at least a task and an input, for example\n  task:\n    - instruction: Summarise the report.\n  input:\n    userQuery: What changed?")}
	}
	d := &decoder{path: path, lines: map[string]int{}, bad: map[string]bool{}}
	if top.Kind != yaml.MappingNode {
		d.wrong(top, "", "a mapping of keys to values")
		return nil, d.errs
	}
	s := &Spec{source: path, lines: d.lines}
	d.spec(top, s)
	errs := d.errs
	for _, e := range s.validate() {
		if !d.bad[e.field] {
			errs = append(errs, e.err)
		}
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return s, nil
}

// unescapeSlashes replaces `\/` by `/` inside the double-quoted strings of
// a JSON text.
func unescapeSlashes(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	in := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '"':
			in = !in
		case in && c == '\\' && i+1 < len(text):
			if text[i+1] == '/' {
				continue
			}
			b.WriteByte(c)
			i++
			c = text[i]
		}
		b.WriteByte(c)
	}
	return b.String()
}

// decoder turns the YAML tree of a spec into a Spec, recording each
// field's line and every problem.
type decoder struct {
	path  string
	errs  diag.List
	lines map[string]int  // field path -> line of its key or list item
	bad   map[string]bool // fields with a type error, not validated further
}

func (d *decoder) errorf(line int, field, format string, args ...any) {
	d.bad[field] = true
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = field + ": " + msg
	}
	d.errs = append(d.errs, diag.Errorf(d.path, line, "%s", msg))
}

func join(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

func index(at string, i int) string { return at + "[" + strconv.Itoa(i) + "]" }

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// describe says what a node is, for "want X, found Y".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.Tag {
	case "!!str":
		return fmt.Sprintf("the text %q", clip(n.Value))
	case "!!int", "!!float":
		return "the number " + clip(n.Value)
	case "!!bool":
		return n.Value + " (quote it to use it as text)"
	case "!!null":
		return "nothing"
	}
	return fmt.Sprintf("a value tagged %s", n.Tag)
}

func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// wrong reports a value of the wrong type.
func (d *decoder) wrong(n *yaml.Node, at, want string) {
	if n.Kind == yaml.AliasNode {
		d.errorf(n.Line, at, "aliases (*%s) are not supported in a spec: write the value out", n.Value)
		return
	}
	d.errorf(n.Line, at, "want %s, found %s", want, describe(n))
}

// mapping calls set for each key of the mapping n, after checking that
// the key is one of keys and not repeated; a null value counts as absent.
func (d *decoder) mapping(n *yaml.Node, at string, keys []string, set func(key string, v *yaml.Node, at string)) bool {
	if n.Kind != yaml.MappingNode {
		d.wrong(n, at, "a mapping of keys to values")
		return false
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.errorf(k.Line, at, "a key must be a name, found %s", describe(k))
			continue
		}
		key := k.Value
		if !slices.Contains(keys, key) {
			where := ""
			if at != "" {
				where = " in " + at
			}
			hint := ""
			if s := suggest.Nearest(key, keys); s != "" {
				hint = fmt.Sprintf("did you mean %q? ", s)
			}
			d.errs = append(d.errs, diag.Errorf(d.path, k.Line, "unknown key %q%s: %sthe keys are %s", key, where, hint, strings.Join(keys, ", ")))
			continue
		}
		p := join(at, key)
		if seen[key] {
			d.errorf(k.Line, p, "the key is repeated: keep one")
			continue
		}
		seen[key] = true
		d.lines[p] = k.Line
		if isNull(v) {
			continue
		}
		set(key, v, p)
	}
	return true
}

// list calls each for every item of the sequence n.
func (d *decoder) list(n *yaml.Node, at, want string, each func(i int, v *yaml.Node, at string)) {
	if n.Kind != yaml.SequenceNode {
		d.wrong(n, at, want)
		return
	}
	for i, v := range n.Content {
		p := index(at, i)
		d.lines[p] = v.Line
		each(i, v, p)
	}
}

// str returns a text value. Numbers and times are taken as written, so
// that "userId: 12345" is the text "12345".
func (d *decoder) str(n *yaml.Node, at string) string {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!str" || n.Tag == "!!int" || n.Tag == "!!float" || n.Tag == "!!timestamp") {
		return n.Value
	}
	d.wrong(n, at, "text")
	return ""
}

func (d *decoder) strs(n *yaml.Node, at string) []string {
	var out []string
	d.list(n, at, "a list of text", func(_ int, v *yaml.Node, p string) {
		out = append(out, d.str(v, p))
	})
	return out
}

// num returns a whole number from lo to hi; what describes the range.
func (d *decoder) num(n *yaml.Node, at string, lo, hi int, what string) int {
	var v int
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Decode(&v) != nil {
		d.wrong(n, at, what)
		return 0
	}
	if v < lo || v > hi {
		d.errorf(n.Line, at, "want %s, found %s", what, n.Value)
		return 0
	}
	return v
}

func (d *decoder) boolean(n *yaml.Node, at string) bool {
	var v bool
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&v) != nil {
		d.wrong(n, at, "true or false")
	}
	return v
}

func (d *decoder) spec(n *yaml.Node, s *Spec) {
	d.mapping(n, "", specKeys, func(key string, v *yaml.Node, at string) {
		switch key {
		case "systemPrompt":
			s.SystemPrompt = &SystemPrompt{}
			d.systemPrompt(v, at, s.SystemPrompt)
		case "identity":
			s.Identity = &Identity{}
			d.identity(v, at, s.Identity)
		case "requestingUser":
			s.RequestingUser = &RequestingUser{}
			d.user(v, at, s.RequestingUser)
		case "conversationState":
			s.ConversationState = &ConversationState{}
			d.state(v, at, s.ConversationState)
		case "constraints":
			d.list(v, at, "a list of constraints", func(_ int, v *yaml.Node, at string) {
				var c Constraint
				d.constraint(v, at, &c)
				s.Constraints = append(s.Constraints, c)
			})
		case "task":
			d.list(v, at, "a list of task annotations", func(_ int, v *yaml.Node, at string) {
				var t TaskAnnotation
				d.task(v, at, &t)
				s.Task = append(s.Task, t)
			})
		case "input":
			d.input(v, at, &s.Input)
		case "tools":
			d.list(v, at, "a list of tools", func(_ int, v *yaml.Node, at string) {
				var t Tool
				d.tool(v, at, &t)
				s.Tools = append(s.Tools, t)
			})
		case "assembler":
			s.Assembler = &AssemblerConfig{}
			d.assembler(v, at, s.Assembler)
		}
	})
}

func (d *decoder) systemPrompt(n *yaml.Node, at string, p *SystemPrompt) {
	d.mapping(n, at, systemPromptKeys, func(key string, v *yaml.Node, at string) {
		switch key {
		case "summary":
			p.Summary = d.str(v, at)
		case "rules":
			p.Rules = d.strs(v, at)
		case "sources":
			p.Sources = d.strs(v, at)
		}
	})
}

func (d *decoder) identity(n *yaml.Node, at string, p *Identity) {
	d.mapping(n, at, identityKeys, func(key string, v *yaml.Node, at string) {
		switch key {
		case "personaId":
			p.PersonaID = d.str(v, at)
		case "name":
			p.Name = d.str(v, at)
		case "role":
			p.Role = d.str(v, at)
		case "summary":
			p.Summary = d.str(v, at)
		case "traits":
			p.Traits = d.strs(v, at)
		case "tone":
			p.Tone = d.str(v, at)
		case "styleGuidelines":
			p.StyleGuidelines = d.strs(v, at)
		}
	})
}

func (d *decoder) user(n *yaml.Node, at string, p *RequestingUser) {
	d.mapping(n, at, userKeys, func(key string, v *yaml.Node, at string) {
		switch key {
		case "userId":
			p.UserID = d.str(v, at)
		case "handle":
			p.Handle = d.str(v, at)
		case "displayName":
			p.DisplayName = d.str(v, at)
		case "roles":
			p.Roles = d.strs(v, at)
		case "locale":
			p.Locale = d.str(v, at)
		case "timezone":
			p.Timezone = d.str(v, at)
		case "tier":
			p.Tier = d.str(v, at)
		}
	})
}

func (d *decoder) state(n *yaml.Node, at string, p *ConversationState) {
	d.mapping(n, at, stateKeys, func(key string, v *yaml.Node, at string) {
		switch key {
		case "summary":
			p.Summary = d.str(v, at)
		case "scope":
			p.Scope = d.str(v, at)
		case "renderMode":
			p.RenderMode = d.str(v, at)
		case "retention":
			p.Retention = &RetentionLimits{}
			d.mapping(v, at, retentionKeys, func(key string, v *yaml.Node, at string) {
				const what = "a whole number of 1 or more (leave the key out for no limit)"
				switch key {
				case "maxMessages":
					p.Retention.MaxMessages = d.num(v, at, 1, math.MaxInt32, what)
				case "maxChars":
					p.Retention.MaxChars = d.num(v, at, 1, math.MaxInt32, what)
				}
			})
		case "transcript":
			d.list(v, at, "a list of messages", func(_ int, v *yaml.Node, at string) {
				var m ConversationStateItem
				d.mapping(v, at, messageKeys, func(key string, v *yaml.Node, at string) {
					switch key {
					case "role":
						m.Role = d.str(v, at)
					case "content":
						m.Content = d.str(v, at)
					case "at":
						m.At = d.str(v, at)
					}
				})
				p.Transcript = append(p.Transcript, m)
			})
		}
	})
}

const priorityWant = "a whole number from 1 (highest) to 5"

func (d *decoder) constraint(n *yaml.Node, at string, c *Constraint) {
	d.mapping(n, at, constraintKeys, func(key string, v *yaml.Node, at string) {
		switch key {
		case "id":
			c.ID = d.str(v, at)
		case "priority":
			c.Priority = d.num(v, at, 1, 5, priorityWant)
		case "text":
			c.Text = d.str(v, at)
		case "tags":
			c.Tags = d.strs(v, at)
		case "source":
			c.Source = d.str(v, at)
		}
	})
}

func (d *decoder) task(n *yaml.Node, at string, t *TaskAnnotation) {
	d.mapping(n, at, taskKeys, func(key string, v *yaml.Node, at string) {
		switch key {
		case "id":
			t.ID = d.str(v, at)
		case "priority":
			t.Priority = d.num(v, at, 1, 5, priorityWant)
		case "instruction":
			t.Instruction = d.str(v, at)
		case "required":
			b := d.boolean(v, at)
			t.Required = &b
		case "outputFormat":
			t.OutputFormat = &FormatSpec{}
			d.mapping(v, at, formatKeys, func(key string, v *yaml.Node, at string) {
				switch key {
				case "type":
					t.OutputFormat.Type = d.str(v, at)
				case "name":
					t.OutputFormat.Name = d.str(v, at)
				case "jsonSchema":
					t.OutputFormat.JSONSchema = d.schema(v, at)
				case "example":
					t.OutputFormat.Example = d.str(v, at)
				}
			})
		}
	})
}

func (d *decoder) input(n *yaml.Node, at string, in *InputPayload) {
	d.mapping(n, at, inputKeys, func(key string, v *yaml.Node, at string) {
		switch key {
		case "userQuery":
			in.UserQuery = d.str(v, at)
		case "context":
			in.Context = d.str(v, at)
		case "attachments":
			d.list(v, at, "a list of attachments", func(_ int, v *yaml.Node, at string) {
				var a Attachment
				d.mapping(v, at, attachmentKeys, func(key string, v *yaml.Node, at string) {
					switch key {
					case "name":
						a.Name = d.str(v, at)
					case "mime":
						a.Mime = d.str(v, at)
					case "uri":
						a.URI = d.str(v, at)
					case "bytesBase64":
						a.BytesBase64 = d.str(v, at)
					}
				})
				in.Attachments = append(in.Attachments, a)
			})
		}
	})
}

func (d *decoder) tool(n *yaml.Node, at string, t *Tool) {
	d.mapping(n, at, toolKeys, func(key string, v *yaml.Node, at string) {
		switch key {
		case "name":
			t.Name = d.str(v, at)
		case "description":
			t.Description = d.str(v, at)
		case "parameters":
			t.Parameters = d.schema(v, at)
		}
	})
}

func (d *decoder) assembler(n *yaml.Node, at string, c *AssemblerConfig) {
	d.mapping(n, at, assemblerKeys, func(key string, v *yaml.Node, at string) {
		switch key {
		case "headingLevel":
			c.HeadingLevel = d.num(v, at, 1, 3, "1, 2 or 3 (the number of '#' in a heading)")
		case "showEmptySections":
			b := d.boolean(v, at)
			c.ShowEmptySections = &b
		}
	})
}

// schema converts a JSON Schema written in YAML (or JSON) to JSON, in
// document order.
func (d *decoder) schema(n *yaml.Node, at string) json.RawMessage {
	if n.Kind != yaml.MappingNode {
		d.wrong(n, at, "a JSON Schema object")
		return nil
	}
	var b bytes.Buffer
	if !d.toJSON(&b, n, at) {
		return nil
	}
	return json.RawMessage(b.Bytes())
}

var (
	jsonInt   = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)$`)
	jsonFloat = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$`)
)

// toJSON writes n as JSON to b; it reports the first problem and returns
// false.
func (d *decoder) toJSON(b *bytes.Buffer, n *yaml.Node, at string) bool {
	switch n.Kind {
	case yaml.MappingNode:
		b.WriteByte('{')
		seen := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!null" {
				d.errorf(k.Line, at, "a JSON object key must be text, found %s", describe(k))
				return false
			}
			if seen[k.Value] {
				d.errorf(k.Line, at, "the key %q is repeated: keep one", k.Value)
				return false
			}
			seen[k.Value] = true
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, k.Value)
			b.WriteByte(':')
			if !d.toJSON(b, v, at) {
				return false
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, v := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if !d.toJSON(b, v, at) {
				return false
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!str", "!!timestamp":
			writeJSONString(b, n.Value)
		case "!!null":
			b.WriteString("null")
		case "!!bool":
			var v bool
			if n.Decode(&v) != nil {
				d.wrong(n, at, "a JSON value")
				return false
			}
			b.WriteString(strconv.FormatBool(v))
		case "!!int":
			if jsonInt.MatchString(n.Value) {
				b.WriteString(n.Value)
				break
			}
			var v int64
			if n.Decode(&v) != nil {
				d.errorf(n.Line, at, "the number %s cannot be written in JSON: write it in decimal", n.Value)
				return false
			}
			b.WriteString(strconv.FormatInt(v, 10))
		case "!!float":
			if jsonFloat.MatchString(n.Value) {
				b.WriteString(n.Value)
				break
			}
			var v float64
			if n.Decode(&v) != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				d.errorf(n.Line, at, "the number %s cannot be written in JSON", n.Value)
				return false
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		default:
			d.errorf(n.Line, at, "the tag %s has no JSON form: write plain JSON values", n.Tag)
			return false
		}
	default:
		d.wrong(n, at, "a JSON value")
		return false
	}
	return true
}

// writeJSONString writes s as a JSON string, escaping only what JSON
// requires (and U+2028, U+2029), so text reads as written.
func writeJSONString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == '\u2028' || r == '\u2029':
			b.WriteString(`\u`)
			b.WriteByte(hex[r>>12&0xF])
			b.WriteByte(hex[r>>8&0xF])
			b.WriteByte(hex[r>>4&0xF])
			b.WriteByte(hex[r&0xF])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
