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
// returns it as it is rather than a copy, and the parts of the spec that
// nothing was redacted in (the identity, the tools...) are shared with
// it. A schema that a redaction would
// leave as invalid JSON is an error naming the field. A nil redactor
// redacts nothing; a nil spec is an error.
func (s *Spec) Redacted(r *guard.Redactor) (*Spec, guard.Counts, error) {
	switch {
	case s == nil:
		return nil, nil, errNilSpec
	case r == nil:
		return s, nil, nil
	}
	var counts guard.Counts
	var changed []string // new values, by the order eachText visits fields
	var at []int
	var parts specParts // the parts of the spec that change
	n := 0
	s.eachText(func(f fieldRef, personal bool, p *string) {
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
			parts.add(f.part())
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
			errs = append(errs, s.errorAt(s.places(), name, "%s: holds a secret (%s) that cannot be redacted without breaking the JSON: remove it", name, c))
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
	if len(schemas) > 0 {
		parts.add("task")
	}
	if len(params) > 0 {
		parts.add("tools")
	}
	if len(atts) > 0 {
		parts.add("input")
	}
	c := s.clone(parts)
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

// specParts is a set of the parts of a spec, by top-level key.
type specParts uint16

const (
	partSystemPrompt specParts = 1 << iota
	partIdentity
	partRequestingUser
	partConversationState
	partConstraints
	partTask
	partInput
	partTools
	partAssembler
	allParts = 1<<iota - 1
)

// specKeys are the top keys of a spec, in the order of the parts.
var specKeys = [...]string{"systemPrompt", "identity", "requestingUser", "conversationState", "constraints", "task", "input", "tools", "assembler"}

// add adds the part named by its key.
func (ps *specParts) add(key string) {
	for i, k := range specKeys {
		if k == key {
			*ps |= 1 << i
			return
		}
	}
	*ps = allParts // not reached: every field is in a part
}

// clone returns a copy of s whose parts in ps are deep copies, so their
// fields may be changed; the other parts, and the line map, are shared.
func (s *Spec) clone(ps specParts) *Spec {
	c := *s
	if p := s.SystemPrompt; p != nil && ps&partSystemPrompt != 0 {
		v := *p
		v.Rules, v.Sources = slices.Clone(p.Rules), slices.Clone(p.Sources)
		c.SystemPrompt = &v
	}
	if p := s.Identity; p != nil && ps&partIdentity != 0 {
		v := *p
		v.Traits, v.StyleGuidelines = slices.Clone(p.Traits), slices.Clone(p.StyleGuidelines)
		c.Identity = &v
	}
	if p := s.RequestingUser; p != nil && ps&partRequestingUser != 0 {
		v := *p
		v.Roles = slices.Clone(p.Roles)
		c.RequestingUser = &v
	}
	if p := s.ConversationState; p != nil && ps&partConversationState != 0 {
		v := *p
		v.Transcript = slices.Clone(p.Transcript)
		if p.Retention != nil {
			r := *p.Retention
			v.Retention = &r
		}
		c.ConversationState = &v
	}
	if ps&partConstraints != 0 {
		c.Constraints = slices.Clone(s.Constraints)
		for i := range c.Constraints {
			c.Constraints[i].Tags = slices.Clone(c.Constraints[i].Tags)
		}
	}
	if ps&partTask != 0 {
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
	}
	if ps&partInput != 0 {
		c.Input.Attachments = slices.Clone(s.Input.Attachments)
	}
	if ps&partTools != 0 {
		c.Tools = slices.Clone(s.Tools)
		for i := range c.Tools {
			c.Tools[i].Parameters = slices.Clone(c.Tools[i].Parameters)
		}
	}
	if s.Assembler != nil && ps&partAssembler != 0 {
		a := *s.Assembler
		if a.ShowEmptySections != nil {
			b := *a.ShowEmptySections
			a.ShowEmptySections = &b
		}
		c.Assembler = &a
	}
	return &c
}
