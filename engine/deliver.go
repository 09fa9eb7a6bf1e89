package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/render"
	"github.com/tessera-dev/tessera/schema"
	"github.com/tessera-dev/tessera/tokenizer"
)

// Request maps the result onto a provider-neutral request: each rendered
// section becomes a part on its role's side, stable as its slot says, with
// the tools of the sections kept and the output schema. Model and
// MaxTokens are left for the caller.
func (r *Result) Request() provider.Request {
	var req provider.Request
	for _, s := range r.Sections {
		part := provider.Part{Key: s.Key, Text: s.Text, Stable: s.Stable}
		if s.Role == prompt.RoleSystem {
			req.System = append(req.System, part)
		} else {
			req.User = append(req.User, part)
		}
	}
	req.Separator = r.style.Separator
	req.Tools = slices.Clone(r.Tools)
	if r.Output != nil {
		req.Output = &provider.Output{Name: r.Output.Name, Schema: r.Output.Schema}
	}
	return req
}

// toolsOf gathers the tools of the sections that were rendered (all of
// them for a one-piece style) and of their children, in section order. A
// tool named twice must be defined the same way both times.
func toolsOf(secs []prompt.Section, rendered []Section, st render.Style) ([]prompt.Tool, error) {
	keep := map[string]bool{}
	for _, s := range rendered {
		keep[s.Key] = true
	}
	var tools []prompt.Tool
	var walk func(ss []prompt.Section) error
	walk = func(ss []prompt.Section) error {
		for i := range ss {
			for _, t := range ss[i].Tools {
				j := slices.IndexFunc(tools, func(u prompt.Tool) bool { return u.Name == t.Name })
				if j < 0 {
					tools = append(tools, t)
					continue
				}
				if u := tools[j]; u.Description != t.Description || !bytes.Equal(u.Parameters, t.Parameters) {
					return fmt.Errorf("tool %q is defined twice, differently (the second time in section %q): give one of them another name", t.Name, ss[i].Key)
				}
			}
			if err := walk(ss[i].Children); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range secs {
		if !st.Whole && !keep[secs[i].Key] {
			continue
		}
		if err := walk(secs[i : i+1]); err != nil {
			return nil, err
		}
	}
	return tools, nil
}

// deliver encodes the request body for d, asks for strict mode where the
// schemas allow it (noting where they do not), and notes in the record
// what was sent.
func (r *Result) deliver(d *Delivery) error {
	req := r.Request()
	req.Model = d.Model
	if req.Model == "" {
		req.Model = DefaultModel(d.Format)
	}
	req.MaxTokens = d.MaxTokens
	if req.Output != nil {
		req.Output.Schema, req.Output.Strict = r.strictSchema("output schema "+req.Output.Name, req.Output.Schema, d)
	}
	strictTools := len(req.Tools) > 0
	for i := range req.Tools {
		t := &req.Tools[i]
		var ok bool
		t.Parameters, ok = r.strictSchema("tool "+t.Name, t.Parameters, d)
		strictTools = strictTools && ok
	}
	req.StrictTools = strictTools
	bodyCounter, err := tokenizer.ForModel(req.Model)
	if err != nil {
		return &ModelError{Err: err}
	}
	body, err := provider.Encode(d.Format, req, provider.Options{SystemRole: d.SystemRole, CacheBreakpoints: d.CacheBreakpoints, Counter: bodyCounter, StrictChecked: true})
	if err != nil {
		return err
	}
	r.Body = body.JSON
	r.Record.Delivery = &audit.Delivery{
		Provider:           d.Format.String(),
		Model:              req.Model,
		BodyHash:           prompt.Hash(string(body.JSON)),
		StablePrefixHash:   body.StablePrefixHash,
		StablePrefixTokens: body.StablePrefixTokens,
		Counter:            body.Counter,
		CacheBreakpoints:   body.CacheBreakpoints,
	}
	return nil
}

// strictSchema parses s once, strictifies it when asked, and checks it
// against OpenAI's strict mode, returning it compacted and whether it
// passes; a schema that does not is sent without strict mode, with a note
// for the OpenAI formats. A schema that does not parse is returned as it
// is, for Encode to report.
func (r *Result) strictSchema(what string, s json.RawMessage, d *Delivery) (json.RawMessage, bool) {
	if len(s) == 0 {
		return s, false
	}
	v, err := schema.Parse(s)
	if err != nil {
		return s, false
	}
	if d.Strictify {
		v, _ = v.Strictify()
	}
	out := json.RawMessage(v.AppendCompact(nil))
	violations := v.CheckStrict()
	if len(violations) == 0 {
		return out, true
	}
	if d.Format == provider.OpenAIChat || d.Format == provider.OpenAIResponses {
		hint := ""
		if !d.Strictify {
			hint = "; --strictify fixes what can be fixed"
		}
		at := violations[0].Pointer
		if at == "" {
			at = "the root"
		}
		r.Notes = append(r.Notes, fmt.Sprintf("note: %s is sent without strict mode: %d strict-mode violation(s), the first at %s: %s%s", what, len(violations), at, violations[0].Msg, hint))
	}
	return out, false
}
