package canonical

import (
	"encoding/base64"
	"encoding/json"
	"slices"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/guard"
)

// Redacted returns the spec with secrets replaced by labelled
// placeholders in every text field, the text of textual attachments and
// the JSON Schemas, and with personal data (e-mail addresses, phone
// numbers) replaced as well in the conversation state's summary, scope
// and messages; and it counts what was replaced, per label. Log a spec
// only after redacting it.
//
// The spec itself is not modified; when nothing is redacted, Redacted
// returns it as it is rather than a copy. A schema that a redaction would
// leave as invalid JSON is an error naming the field.
func (s *Spec) Redacted(r *guard.Redactor) (*Spec, guard.Counts, error) {
	var counts guard.Counts
	var changed []string // new values, by the order eachText visits fields
	var at []int
	n := 0
	s.eachText(func(_ fieldRef, personal bool, p *string) {
		var out string
		var c guard.Counts
		if personal {
			out, c = r.Redact(*p)
		} else {
			out, c = r.RedactSecrets(*p)
		}
		if c != nil {
			counts.Merge(c)
			changed = append(changed, out)
			at = append(at, n)
		}
		n++
	})
	type edit struct {
		i   int // task, tool or attachment index
		val []byte
	}
	var schemas, params, atts []edit
	var errs diag.List
	redactRaw := func(f fieldRef, raw json.RawMessage) []byte {
		if len(raw) == 0 {
			return nil
		}
		out, c := r.RedactSecrets(string(raw))
		if c == nil {
			return nil
		}
		if !json.Valid([]byte(out)) {
			name := f.String()
			errs = append(errs, diag.Errorf(s.source, lineOf(s.lineMap(), name), "%s: holds a secret (%s) that cannot be redacted without breaking the JSON: remove it", name, c))
			return nil
		}
		counts.Merge(c)
		return []byte(out)
	}
	for i := range s.Task {
		if o := s.Task[i].OutputFormat; o != nil {
			if v := redactRaw(itemField("task", i, "outputFormat.jsonSchema"), o.JSONSchema); v != nil {
				schemas = append(schemas, edit{i, v})
			}
		}
	}
	for i := range s.Tools {
		if v := redactRaw(itemField("tools", i, "parameters"), s.Tools[i].Parameters); v != nil {
			params = append(params, edit{i, v})
		}
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, nil, errs
	}
	for i, a := range s.Input.Attachments {
		if a.BytesBase64 == "" || !textual(a.Mime) {
			continue
		}
		data, err := decodeBase64(a.BytesBase64)
		if err != nil {
			continue // Validate reports it
		}
		out, c := r.RedactSecrets(string(data))
		if c != nil {
			counts.Merge(c)
			atts = append(atts, edit{i, []byte(base64.StdEncoding.EncodeToString([]byte(out)))})
		}
	}
	if len(changed) == 0 && len(schemas) == 0 && len(params) == 0 && len(atts) == 0 {
		return s, counts, nil
	}
	c := s.clone()
	n, k := 0, 0
	c.eachText(func(_ fieldRef, _ bool, p *string) {
		if k < len(at) && at[k] == n {
			*p = changed[k]
			k++
		}
		n++
	})
	for _, e := range schemas {
		c.Task[e.i].OutputFormat.JSONSchema = e.val
	}
	for _, e := range params {
		c.Tools[e.i].Parameters = e.val
	}
	for _, e := range atts {
		c.Input.Attachments[e.i].BytesBase64 = string(e.val)
	}
	return c, counts, nil
}

// clone returns a deep copy of s; the line map is shared, as it is never
// modified.
func (s *Spec) clone() *Spec {
	c := *s
	if p := s.SystemPrompt; p != nil {
		v := *p
		v.Rules, v.Sources = slices.Clone(p.Rules), slices.Clone(p.Sources)
		c.SystemPrompt = &v
	}
	if p := s.Identity; p != nil {
		v := *p
		v.Traits, v.StyleGuidelines = slices.Clone(p.Traits), slices.Clone(p.StyleGuidelines)
		c.Identity = &v
	}
	if p := s.RequestingUser; p != nil {
		v := *p
		v.Roles = slices.Clone(p.Roles)
		c.RequestingUser = &v
	}
	if p := s.ConversationState; p != nil {
		v := *p
		v.Transcript = slices.Clone(p.Transcript)
		if p.Retention != nil {
			r := *p.Retention
			v.Retention = &r
		}
		c.ConversationState = &v
	}
	c.Constraints = slices.Clone(s.Constraints)
	for i := range c.Constraints {
		c.Constraints[i].Tags = slices.Clone(c.Constraints[i].Tags)
	}
	c.Task = slices.Clone(s.Task)
	for i := range c.Task {
		t := &c.Task[i]
		if t.Required != nil {
			b := *t.Required
			t.Required = &b
		}
		if t.OutputFormat != nil {
			o := *t.OutputFormat
			o.JSONSchema = slices.Clone(o.JSONSchema)
			t.OutputFormat = &o
		}
	}
	c.Input.Attachments = slices.Clone(s.Input.Attachments)
	c.Tools = slices.Clone(s.Tools)
	for i := range c.Tools {
		c.Tools[i].Parameters = slices.Clone(c.Tools[i].Parameters)
	}
	if s.Assembler != nil {
		a := *s.Assembler
		if a.ShowEmptySections != nil {
			b := *a.ShowEmptySections
			a.ShowEmptySections = &b
		}
		c.Assembler = &a
	}
	return &c
}
