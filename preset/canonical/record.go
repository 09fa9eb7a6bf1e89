package canonical

import (
	"encoding/json"
	"strconv"

	"github.com/tessera-dev/tessera/internal/jsonesc"
)

// marshalRecord returns s as encoding/json writes it, byte for byte, for
// the audit record: every assembly writes one, and the spec is most of
// it. The fields are written by hand, in the order and with the
// omissions of their json tags; a JSON Schema that encoding/json would
// compact or escape sends the whole spec to json.Marshal instead.
// TestMarshalRecord checks the two agree, with every field set.
func (s *Spec) marshalRecord() ([]byte, error) {
	n := s.textSize()
	w := recordWriter{b: make([]byte, 0, 256+n+n/32)}
	w.spec(s)
	if w.slow {
		return json.Marshal(s)
	}
	return w.b, nil
}

// textSize returns the bytes of s's text fields and schemas.
func (s *Spec) textSize() int {
	n := 0
	s.eachText(func(_ fieldRef, _ bool, p *string) { n += len(*p) + 16 })
	for i := range s.Task {
		if o := s.Task[i].OutputFormat; o != nil {
			n += len(o.JSONSchema)
		}
	}
	for i := range s.Input.Attachments {
		n += len(s.Input.Attachments[i].BytesBase64)
	}
	for i := range s.Tools {
		n += len(s.Tools[i].Parameters)
	}
	return n
}

// recordWriter writes a spec's JSON. Each object's fields are written
// with a separator before all but the first.
type recordWriter struct {
	b     []byte
	first bool // no field written yet in the current object
	slow  bool // a value needs json.Marshal
}

func (w *recordWriter) open() {
	w.b = append(w.b, '{')
	w.first = true
}

func (w *recordWriter) close() {
	w.b = append(w.b, '}')
	w.first = false
}

// key writes the key of the next field.
func (w *recordWriter) key(k string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

// str writes a field of text; omit leaves it out when empty.
func (w *recordWriter) str(k, v string, omit bool) {
	if omit && v == "" {
		return
	}
	w.key(k)
	w.b = jsonesc.AppendString(w.b, v, true)
}

func (w *recordWriter) int(k string, v int) {
	if v == 0 {
		return
	}
	w.key(k)
	w.b = strconv.AppendInt(w.b, int64(v), 10)
}

func (w *recordWriter) bool(k string, v *bool) {
	if v == nil {
		return
	}
	w.key(k)
	w.b = strconv.AppendBool(w.b, *v)
}

// strs writes a list of text; omit leaves it out when empty, else an
// empty list is null when nil.
func (w *recordWriter) strs(k string, v []string, omit bool) {
	if omit && len(v) == 0 {
		return
	}
	w.key(k)
	if v == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '[')
	for i, s := range v {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = jsonesc.AppendString(w.b, s, true)
	}
	w.b = append(w.b, ']')
}

// raw writes a JSON Schema, left out when empty, as it is when
// encoding/json would write it so: compact, with nothing to escape.
func (w *recordWriter) raw(k string, v json.RawMessage) {
	if len(v) == 0 {
		return
	}
	if !compactAndSafe(v) {
		w.slow = true
		return
	}
	w.key(k)
	w.b = append(w.b, v...)
}

// compactAndSafe reports whether the valid JSON raw has no white space
// outside its strings and nothing encoding/json escapes: '<', '>', '&',
// U+2028 and U+2029.
func compactAndSafe(raw []byte) bool {
	in := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '"':
			in = !in
		case '\\':
			i++ // an escape in a string: the next byte is not a quote
		case ' ', '\t', '\n', '\r':
			if !in {
				return false
			}
		case '<', '>', '&', 0xe2:
			return false
		}
	}
	return true
}

// spec writes s with the json tags of the Spec types.
func (w *recordWriter) spec(s *Spec) {
	w.open()
	if p := s.SystemPrompt; p != nil {
		w.key("systemPrompt")
		w.open()
		w.str("summary", p.Summary, true)
		w.strs("rules", p.Rules, false)
		w.strs("sources", p.Sources, true)
		w.close()
	}
	if p := s.Identity; p != nil {
		w.key("identity")
		w.open()
		w.str("personaId", p.PersonaID, true)
		w.str("name", p.Name, true)
		w.str("role", p.Role, true)
		w.str("summary", p.Summary, true)
		w.strs("traits", p.Traits, true)
		w.str("tone", p.Tone, true)
		w.strs("styleGuidelines", p.StyleGuidelines, true)
		w.close()
	}
	if p := s.RequestingUser; p != nil {
		w.key("requestingUser")
		w.open()
		w.str("userId", p.UserID, true)
		w.str("handle", p.Handle, true)
		w.str("displayName", p.DisplayName, true)
		w.strs("roles", p.Roles, true)
		w.str("locale", p.Locale, true)
		w.str("timezone", p.Timezone, true)
		w.str("tier", p.Tier, true)
		w.close()
	}
	if p := s.ConversationState; p != nil {
		w.key("conversationState")
		w.open()
		w.str("summary", p.Summary, true)
		w.str("scope", p.Scope, true)
		if len(p.Transcript) > 0 {
			w.key("transcript")
			w.b = append(w.b, '[')
			for i := range p.Transcript {
				if i > 0 {
					w.b = append(w.b, ',')
				}
				m := &p.Transcript[i]
				w.open()
				w.str("role", m.Role, false)
				w.str("content", m.Content, false)
				w.str("at", m.At, true)
				w.close()
			}
			w.b = append(w.b, ']')
		}
		if r := p.Retention; r != nil {
			w.key("retention")
			w.open()
			w.int("maxMessages", r.MaxMessages)
			w.int("maxChars", r.MaxChars)
			w.close()
		}
		w.str("renderMode", p.RenderMode, true)
		w.close()
	}
	if len(s.Constraints) > 0 {
		w.key("constraints")
		w.b = append(w.b, '[')
		for i := range s.Constraints {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			c := &s.Constraints[i]
			w.open()
			w.str("id", c.ID, true)
			w.int("priority", c.Priority)
			w.str("text", c.Text, false)
			w.strs("tags", c.Tags, true)
			w.str("source", c.Source, true)
			w.close()
		}
		w.b = append(w.b, ']')
	}
	w.key("task")
	if s.Task == nil {
		w.b = append(w.b, "null"...)
	} else {
		w.b = append(w.b, '[')
		for i := range s.Task {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			t := &s.Task[i]
			w.open()
			w.str("id", t.ID, true)
			w.int("priority", t.Priority)
			w.str("instruction", t.Instruction, false)
			w.bool("required", t.Required)
			if o := t.OutputFormat; o != nil {
				w.key("outputFormat")
				w.open()
				w.str("type", o.Type, false)
				w.str("name", o.Name, true)
				w.raw("jsonSchema", o.JSONSchema)
				w.str("example", o.Example, true)
				w.close()
			}
			w.close()
		}
		w.b = append(w.b, ']')
	}
	w.key("input")
	w.open()
	w.str("userQuery", s.Input.UserQuery, false)
	if len(s.Input.Attachments) > 0 {
		w.key("attachments")
		w.b = append(w.b, '[')
		for i := range s.Input.Attachments {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			a := &s.Input.Attachments[i]
			w.open()
			w.str("name", a.Name, false)
			w.str("mime", a.Mime, false)
			w.str("uri", a.URI, true)
			w.str("bytesBase64", a.BytesBase64, true)
			w.close()
		}
		w.b = append(w.b, ']')
	}
	w.str("context", s.Input.Context, true)
	w.close()
	if len(s.Tools) > 0 {
		w.key("tools")
		w.b = append(w.b, '[')
		for i := range s.Tools {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			t := &s.Tools[i]
			w.open()
			w.str("name", t.Name, false)
			w.str("description", t.Description, true)
			w.raw("parameters", t.Parameters)
			w.close()
		}
		w.b = append(w.b, ']')
	}
	if a := s.Assembler; a != nil {
		w.key("assembler")
		w.open()
		w.int("headingLevel", a.HeadingLevel)
		w.bool("showEmptySections", a.ShowEmptySections)
		w.close()
	}
	w.close()
}
