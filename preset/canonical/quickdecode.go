package canonical

import (
	"encoding/json"
	"github.com/tessera-dev/tessera/schema"
	"math"
	"slices"
	"strconv"

	"github.com/tessera-dev/tessera/internal/yamldoc"
)

// quickSpec decodes text, the normalised text of the spec file path, with
// the quick reader (quick.go), as ParseSpec's decoder would: the same
// keys, the same types, the same ranges, JSON Schemas converted to the
// same JSON. It reports false for anything it does not read, or anything
// ParseSpec would report as a problem; the caller then parses the text
// again with the full parser. The spec's lines are not kept: Spec.lineMap
// finds them when a diagnostic needs them.
func quickSpec(path, text string) (*Spec, bool) {
	var r qreader
	root, ok := quickRead(text, &r)
	if !ok {
		return nil, false
	}
	d := qdecoder{r: &r}
	s := &Spec{source: path}
	d.spec(root, s)
	if d.bad {
		return nil, false
	}
	return s, true
}

// qdecoder decodes a quick reader's tree into a Spec.
type qdecoder struct {
	r    *qreader
	bad  bool
	json []byte // the JSON of every schema, each a capped slice of it
}

func (d *qdecoder) node(i int32) *qnode { return &d.r.nodes[i] }

// fields calls f with the index in keys of each key of the mapping n, and
// the key's value. A key not in keys, or n not a mapping, is a failure.
func (d *qdecoder) fields(n int32, keys []string, f func(k int, v int32)) {
	if d.node(n).kind != qMap {
		d.bad = true
		return
	}
	for k := d.node(n).first; k >= 0 && !d.bad; {
		v := d.node(k).next
		i := slices.Index(keys, d.node(k).value)
		if i < 0 {
			d.bad = true
			return
		}
		f(i, v)
		k = d.node(v).next
	}
}

// str returns the text of a scalar: numbers and times as written, as
// ParseSpec's decoder takes them; a boolean or null is a failure.
func (d *qdecoder) str(n int32) string {
	q := d.node(n)
	if q.kind != qScalar || !q.text && isSpecialWord(q.value) {
		d.bad = true
		return ""
	}
	return q.value
}

// strs returns a list of text; an empty list is nil.
func (d *qdecoder) strs(n int32) []string {
	q := d.node(n)
	if q.kind != qSeq {
		d.bad = true
		return nil
	}
	if q.n == 0 {
		return nil
	}
	out := make([]string, 0, q.n)
	for c := q.first; c >= 0; c = d.node(c).next {
		out = append(out, d.str(c))
	}
	return out
}

// intIn returns a plain decimal whole number from lo to hi.
func (d *qdecoder) intIn(n int32, lo, hi int) int {
	q := d.node(n)
	if q.kind != qScalar || q.text || !plainDecimal(q.value) {
		d.bad = true
		return 0
	}
	i, err := strconv.Atoi(q.value)
	if err != nil || i < lo || i > hi {
		d.bad = true
	}
	return i
}

// boolPtr returns a pointer to a plain true or false.
func (d *qdecoder) boolPtr(n int32) *bool {
	q := d.node(n)
	var b bool
	switch {
	case q.kind != qScalar || q.text:
		d.bad = true
	case q.value == "true" || q.value == "True" || q.value == "TRUE":
		b = true
	case q.value == "false" || q.value == "False" || q.value == "FALSE":
	default:
		d.bad = true
	}
	return &b
}

// list calls f with each item of the list n and its index, after alloc
// with the number of items; an empty list calls neither.
func (d *qdecoder) list(n int32, alloc func(n int), f func(i int, item int32)) {
	q := d.node(n)
	if q.kind != qSeq {
		d.bad = true
		return
	}
	if q.n == 0 {
		return
	}
	alloc(int(q.n))
	i := 0
	for c := q.first; c >= 0 && !d.bad; c = d.node(c).next {
		f(i, c)
		i++
	}
}

var specKeys = []string{"systemPrompt", "identity", "requestingUser", "conversationState", "constraints", "task", "input", "tools", "assembler"}

func (d *qdecoder) spec(n int32, s *Spec) {
	d.fields(n, specKeys, func(k int, v int32) {
		switch k {
		case 0:
			s.SystemPrompt = &SystemPrompt{}
			d.fields(v, []string{"summary", "rules", "sources"}, func(k int, v int32) {
				p := s.SystemPrompt
				switch k {
				case 0:
					p.Summary = d.str(v)
				case 1:
					p.Rules = d.strs(v)
				case 2:
					p.Sources = d.strs(v)
				}
			})
		case 1:
			s.Identity = &Identity{}
			d.fields(v, []string{"personaId", "name", "role", "summary", "traits", "tone", "styleGuidelines"}, func(k int, v int32) {
				p := s.Identity
				switch k {
				case 0:
					p.PersonaID = d.str(v)
				case 1:
					p.Name = d.str(v)
				case 2:
					p.Role = d.str(v)
				case 3:
					p.Summary = d.str(v)
				case 4:
					p.Traits = d.strs(v)
				case 5:
					p.Tone = d.str(v)
				case 6:
					p.StyleGuidelines = d.strs(v)
				}
			})
		case 2:
			s.RequestingUser = &RequestingUser{}
			d.fields(v, []string{"userId", "handle", "displayName", "roles", "locale", "timezone", "tier"}, func(k int, v int32) {
				p := s.RequestingUser
				switch k {
				case 0:
					p.UserID = d.str(v)
				case 1:
					p.Handle = d.str(v)
				case 2:
					p.DisplayName = d.str(v)
				case 3:
					p.Roles = d.strs(v)
				case 4:
					p.Locale = d.str(v)
				case 5:
					p.Timezone = d.str(v)
				case 6:
					p.Tier = d.str(v)
				}
			})
		case 3:
			s.ConversationState = &ConversationState{}
			d.state(v, s.ConversationState)
		case 4:
			d.list(v, func(n int) { s.Constraints = make([]Constraint, n) }, func(i int, v int32) {
				c := &s.Constraints[i]
				d.fields(v, []string{"id", "priority", "text", "tags", "source"}, func(k int, v int32) {
					switch k {
					case 0:
						c.ID = d.str(v)
					case 1:
						c.Priority = d.intIn(v, 1, 5)
					case 2:
						c.Text = d.str(v)
					case 3:
						c.Tags = d.strs(v)
					case 4:
						c.Source = d.str(v)
					}
				})
			})
		case 5:
			d.list(v, func(n int) { s.Task = make([]TaskAnnotation, n) }, func(i int, v int32) {
				d.task(v, &s.Task[i])
			})
		case 6:
			d.input(v, &s.Input)
		case 7:
			d.list(v, func(n int) { s.Tools = make([]Tool, n) }, func(i int, v int32) {
				t := &s.Tools[i]
				d.fields(v, []string{"name", "description", "parameters"}, func(k int, v int32) {
					switch k {
					case 0:
						t.Name = d.str(v)
					case 1:
						t.Description = d.str(v)
					case 2:
						t.Parameters = d.raw(v)
					}
				})
			})
		case 8:
			s.Assembler = &AssemblerConfig{}
			d.fields(v, []string{"headingLevel", "showEmptySections"}, func(k int, v int32) {
				switch k {
				case 0:
					s.Assembler.HeadingLevel = d.intIn(v, 1, 3)
				case 1:
					s.Assembler.ShowEmptySections = d.boolPtr(v)
				}
			})
		}
	})
}

func (d *qdecoder) state(n int32, st *ConversationState) {
	d.fields(n, []string{"summary", "scope", "transcript", "retention", "renderMode"}, func(k int, v int32) {
		switch k {
		case 0:
			st.Summary = d.str(v)
		case 1:
			st.Scope = d.str(v)
		case 2:
			d.list(v, func(n int) { st.Transcript = make([]ConversationStateItem, n) }, func(i int, v int32) {
				m := &st.Transcript[i]
				d.fields(v, []string{"role", "content", "at"}, func(k int, v int32) {
					switch k {
					case 0:
						m.Role = d.str(v)
					case 1:
						m.Content = d.str(v)
					case 2:
						m.At = d.str(v)
					}
				})
			})
		case 3:
			st.Retention = &RetentionLimits{}
			d.fields(v, []string{"maxMessages", "maxChars"}, func(k int, v int32) {
				switch k {
				case 0:
					st.Retention.MaxMessages = d.intIn(v, 1, math.MaxInt32)
				case 1:
					st.Retention.MaxChars = d.intIn(v, 1, math.MaxInt32)
				}
			})
		case 4:
			st.RenderMode = d.str(v)
		}
	})
}

func (d *qdecoder) task(n int32, t *TaskAnnotation) {
	d.fields(n, []string{"id", "priority", "instruction", "required", "outputFormat"}, func(k int, v int32) {
		switch k {
		case 0:
			t.ID = d.str(v)
		case 1:
			t.Priority = d.intIn(v, 1, 5)
		case 2:
			t.Instruction = d.str(v)
		case 3:
			t.Required = d.boolPtr(v)
		case 4:
			o := &FormatSpec{}
			t.OutputFormat = o
			d.fields(v, []string{"type", "name", "jsonSchema", "example"}, func(k int, v int32) {
				switch k {
				case 0:
					o.Type = d.str(v)
				case 1:
					o.Name = d.str(v)
				case 2:
					o.JSONSchema = d.raw(v)
				case 3:
					o.Example = d.str(v)
				}
			})
		}
	})
}

func (d *qdecoder) input(n int32, in *InputPayload) {
	d.fields(n, []string{"userQuery", "attachments", "context"}, func(k int, v int32) {
		switch k {
		case 0:
			in.UserQuery = d.str(v)
		case 1:
			d.list(v, func(n int) { in.Attachments = make([]Attachment, n) }, func(i int, v int32) {
				a := &in.Attachments[i]
				d.fields(v, []string{"name", "mime", "uri", "bytesBase64"}, func(k int, v int32) {
					switch k {
					case 0:
						a.Name = d.str(v)
					case 1:
						a.Mime = d.str(v)
					case 2:
						a.URI = d.str(v)
					case 3:
						a.BytesBase64 = d.str(v)
					}
				})
			})
		case 2:
			in.Context = d.str(v)
		}
	})
}

// raw returns the mapping n as JSON, keys in the order written.
func (d *qdecoder) raw(n int32) json.RawMessage {
	if d.node(n).kind != qMap {
		d.bad = true
		return nil
	}
	start := len(d.json)
	d.writeJSON(n)
	return json.RawMessage(d.json[start:len(d.json):len(d.json)])
}

func (d *qdecoder) writeJSON(n int32) {
	q := d.node(n)
	switch q.kind {
	case qMap:
		d.json = append(d.json, '{')
		for k := q.first; k >= 0; {
			if k != q.first {
				d.json = append(d.json, ',')
			}
			d.json = schema.AppendString(d.json, d.node(k).value)
			d.json = append(d.json, ':')
			v := d.node(k).next
			d.writeJSON(v)
			k = d.node(v).next
		}
		d.json = append(d.json, '}')
	case qSeq:
		d.json = append(d.json, '[')
		for c := q.first; c >= 0; c = d.node(c).next {
			if c != q.first {
				d.json = append(d.json, ',')
			}
			d.writeJSON(c)
		}
		d.json = append(d.json, ']')
	default:
		v := q.value
		switch {
		case q.text:
			d.json = schema.AppendString(d.json, v)
		case v == "true" || v == "True" || v == "TRUE":
			d.json = append(d.json, "true"...)
		case v == "false" || v == "False" || v == "FALSE":
			d.json = append(d.json, "false"...)
		case v == "null" || v == "Null" || v == "NULL" || v == "~":
			d.json = append(d.json, "null"...)
		case isSpecialWord(v):
			d.bad = true
		case v[0] == '+' || v[0] == '-' || v[0] == '.' || '0' <= v[0] && v[0] <= '9':
			// A number JSON writes as YAML reads it; other numbers,
			// dates and the like are left to the full parser.
			if !plainDecimal(v) && !yamldoc.JSONNumber(v) {
				d.bad = true
			}
			d.json = append(d.json, v...)
		default:
			d.json = schema.AppendString(d.json, v)
		}
	}
}

// plainDecimal reports whether s is -?(0|[1-9][0-9]*), a whole number
// YAML and strconv read alike.
func plainDecimal(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	if s == "" || s[0] == '0' && len(s) > 1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
