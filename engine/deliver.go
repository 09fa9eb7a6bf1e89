package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/preset"
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
	req := requestOf(r.Sections, r.style, r.Output)
	req.Tools = slices.Clone(r.Tools)
	return req
}

// requestOf maps rendered sections onto a request's sides, with output
// schema out (nil for none) and no tools.
func requestOf(secs []Section, st render.Style, out *preset.Output) provider.Request {
	var req provider.Request
	for _, s := range secs {
		part := provider.Part{Key: s.Key, Text: s.Text, Stable: s.Stable}
		if s.Role == prompt.RoleSystem {
			req.System = append(req.System, part)
		} else {
			req.User = append(req.User, part)
		}
	}
	req.Separator = st.Separator
	if out != nil {
		req.Output = &provider.Output{Name: out.Name, Schema: out.Schema}
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

// deliver encodes the request body for d, checked against what the
// target model accepts (its row of the capability table: d.Models, else
// the catalog's tessera.yaml models:, else the built-in table), asks for
// strict mode where the schemas allow it (noting where they do not), and
// notes in the record what was sent. A request the model would refuse is
// an error saying why and what to do; a model the table does not know is
// a note, and its body is encoded as asked.
func (r *Result) deliver(d *Delivery, c *catalog.Catalog) error {
	req := r.Request()
	req.Model = d.Model
	if req.Model == "" {
		req.Model = DefaultModel(d.Format)
	}
	req.MaxTokens = d.MaxTokens
	m, known, err := r.modelCaps(d, c, req.Model)
	if err != nil {
		return err
	}
	if known {
		if err := checkModel(d.Format, &req, &m); err != nil {
			return err
		}
	}
	var rules schema.KeywordRules
	if known {
		rules = m.Keywords()
	}
	if req.Output != nil {
		s := r.prepareSchema("output schema "+req.Output.Name, req.Output.Schema, d, rules, req.Model)
		req.Output.Schema, req.Output.Strict = s.out, s.strictOK
		if len(s.refused) > 0 {
			return refusedKeywords(req.Model, "the output schema", s.refused, d.Strictify)
		}
	}
	strictTools := len(req.Tools) > 0
	var refused []string // tools whose keywords keep them from strict mode
	for i := range req.Tools {
		t := &req.Tools[i]
		s := r.prepareSchema("tool "+t.Name, t.Parameters, d, rules, req.Model)
		t.Parameters = s.out
		strictTools = strictTools && s.strictOK
		if len(s.refused) > 0 {
			refused = append(refused, fmt.Sprintf("%s in tool %q", describeUses(s.refused), t.Name))
		}
	}
	switch {
	case !strictTools || d.Format == provider.Gemini:
	case known && !m.StrictTools:
		strictTools = false
		r.Notes = append(r.Notes, fmt.Sprintf("note: the tools are sent without strict mode: %s does not accept \"strict\": true on a tool", req.Model))
	case len(refused) > 0:
		strictTools = false
		hint := ""
		if !d.Strictify {
			hint = "; --strictify moves such keywords into descriptions"
		}
		r.Notes = append(r.Notes, fmt.Sprintf("note: the tools are sent without strict mode: %s refuses, in a strict tool's parameters, %s%s", req.Model, strings.Join(refused, ", "), hint))
	}
	req.StrictTools = strictTools
	bodyCounter, err := tokenizer.ForModel(req.Model)
	if err != nil {
		// A model with no tokenizer Tessera knows (one tessera.yaml adds,
		// or an open model behind an OpenAI-compatible server): the body
		// is the same, and only the record's count of the stable prefix
		// needs a tokenizer, so count it with the provider's default
		// model's and say so.
		def := DefaultModel(d.Format)
		if bodyCounter, err = tokenizer.ForModel(def); err != nil {
			return &ModelError{Err: err}
		}
		r.Notes = append(r.Notes, fmt.Sprintf("note: no tokenizer is known for %s: the stable prefix is counted with %s's (%s)", req.Model, def, bodyCounter.Name()))
	}
	if known {
		if err := r.checkWindow(&req, &m, bodyCounter); err != nil {
			return err
		}
	}
	opts := provider.Options{SystemRole: d.SystemRole, CacheBreakpoints: d.CacheBreakpoints, Counter: bodyCounter, StrictChecked: true}
	if known {
		opts.MinCacheTokens = m.MinCacheTokens
	}
	body, err := provider.Encode(d.Format, req, opts)
	if err != nil {
		return err
	}
	body.JSON = r.scrub.body(body.JSON) // the last pass of redaction: see scrubber
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
	if n := body.BreakpointsDropped; n > 0 {
		why := fmt.Sprintf("%d of %d cache breakpoints left out: the prefix before each is under %s's minimum cacheable length of %d tokens (the whole stable prefix counts %d by %s)", n, n+body.CacheBreakpoints, req.Model, m.MinCacheTokens, body.StablePrefixTokens, body.Counter)
		r.Record.Delivery.BreakpointsDropped = why
		r.Notes = append(r.Notes, "note: "+why)
	}
	r.scrub.delivery(r.Record)
	return nil
}

// modelCaps returns the row of the capability table for model, and
// whether it applies to d's format; when it does not, a note says why
// and the body is encoded without model-specific checks. A model the
// table gives to another provider than d's format is a *ModelError
// unless d.AllowModelMismatch.
func (r *Result) modelCaps(d *Delivery, c *catalog.Catalog, model string) (provider.Model, bool, error) {
	table := d.Models
	if table == nil && c != nil {
		table = c.Config().Models
	}
	if table == nil {
		table = provider.BuiltinModels()
	}
	m, _, ok := table.Lookup(model)
	switch {
	case !ok:
		r.Notes = append(r.Notes, fmt.Sprintf("note: model %s is not in Tessera's model table: the body is encoded as asked, without checking what the model accepts; describe it under models: in tessera.yaml to check it (docs/PROVIDERS.md)", model))
		return m, false, nil
	case m.Provider != provider.ProviderOf(d.Format) && !d.AllowModelMismatch:
		where := ""
		if m.Source != "" && m.Source != "built-in" {
			where = " (" + m.Source + ")"
		}
		return m, false, &ModelError{Err: fmt.Errorf("%s is %s model%s, and --provider %s asks for %s body: name %s model (such as %s), or add --allow-model-mismatch to send %s in this body anyway",
			model, article(m.Provider), where, d.Format, article(provider.ProviderOf(d.Format)), article(provider.ProviderOf(d.Format)), DefaultModel(d.Format), model)}
	case m.Provider != provider.ProviderOf(d.Format):
		r.Notes = append(r.Notes, fmt.Sprintf("note: %s is %s model and the body is for %s: the body is encoded as asked, without checking what the model accepts", model, article(m.Provider), d.Format))
		return m, false, nil
	}
	return m, true, nil
}

func article(p string) string {
	switch p {
	case "openai":
		return "an OpenAI"
	case "anthropic":
		return "an Anthropic"
	}
	return "a Gemini"
}

// checkModel refuses what the model m would refuse in req, before any
// schema is looked at: tools it does not take, an output schema without
// structured output, tools together with an output schema, a reply cap
// over the model's maximum.
// For Anthropic, which needs a cap, a model whose maximum is under
// provider.DefaultMaxTokens gets its maximum.
func checkModel(f provider.Format, req *provider.Request, m *provider.Model) error {
	where := ""
	if m.Source != "" && m.Source != "built-in" {
		where = " (" + m.Source + ")"
	}
	if len(req.Tools) > 0 && !m.Tools {
		return fmt.Errorf("%s takes no tools (function calling)%s: drop the tools, or target a model that takes them, such as %s", req.Model, where, suggest(f, func(m *provider.Model) bool { return m.Tools }))
	}
	if req.Output != nil && !m.StructuredOutput {
		return fmt.Errorf("%s has no structured output%s: it refuses a JSON output schema: drop the output schema, or target a model that has one, such as %s", req.Model, where, suggest(f, func(m *provider.Model) bool { return m.StructuredOutput }))
	}
	if req.Output != nil && len(req.Tools) > 0 && !m.ToolsWithJSONOutput {
		return fmt.Errorf("%s refuses tools together with a JSON output schema%s: drop the output schema or the tools, or target a model that accepts both, such as %s", req.Model, where, suggest(f, func(m *provider.Model) bool { return m.ToolsWithJSONOutput }))
	}
	if max := m.MaxOutputTokens; max > 0 {
		if req.MaxTokens > max {
			return fmt.Errorf("a reply of up to %d tokens is more than %s's maximum output of %d tokens%s: ask for at most %d (on the command line, --reserve sets it)", req.MaxTokens, req.Model, max, where, max)
		}
		if f == provider.Anthropic && req.MaxTokens == 0 && max < provider.DefaultMaxTokens {
			req.MaxTokens = max
		}
	}
	return nil
}

// checkWindow refuses a prompt that, with the reply it asks room for,
// does not fit the model's context window, which the provider would
// refuse too; by an estimate, which errs high, it is a warning instead.
// The count is of the prompt's text, without the tokens the provider
// adds for messages and tool definitions. A prompt of fewer bytes than
// half the window, less the reply, always fits (no counter makes more
// than two tokens of a byte), and is not counted.
func (r *Result) checkWindow(req *provider.Request, m *provider.Model, c tokenizer.Counter) error {
	window := m.ContextWindow
	if window <= 0 {
		return nil
	}
	room := window - req.MaxTokens
	if text := r.Prompt.Text; 2*len(text) <= room {
		return nil
	}
	n := c.Count(r.Prompt.Text)
	if n <= room {
		return nil
	}
	reply := ""
	if req.MaxTokens > 0 {
		reply = fmt.Sprintf(" with room for a reply of %d", req.MaxTokens)
	}
	if !c.Exact() {
		r.Notes = append(r.Notes, fmt.Sprintf("warning: the prompt counts about %d tokens by %s (an estimate, which errs high)%s, over %s's context window of %d: the provider may refuse it; set a budget to fit it (--budget %d)", n, c.Name(), reply, req.Model, window, window))
		return nil
	}
	return fmt.Errorf("the prompt counts %d tokens by %s%s, over %s's context window of %d tokens: set a budget to trim it to fit (--budget %d, and --reserve for the reply), or target a model with a larger window", n, c.Name(), reply, req.Model, window, window)
}

// suggest names a model of f's provider that ok accepts: the format's
// default model when it does, else the first row's first pattern.
func suggest(f provider.Format, ok func(*provider.Model) bool) string {
	t := provider.BuiltinModels()
	if m, _, found := t.Lookup(DefaultModel(f)); found && ok(&m) {
		return DefaultModel(f)
	}
	for _, m := range t.Rows() {
		if m.Provider == provider.ProviderOf(f) && ok(&m) {
			return strings.TrimSuffix(m.Match[0], "*") + "…"
		}
	}
	return "another model"
}

// preparedSchema is a schema made ready for a body.
type preparedSchema struct {
	out      json.RawMessage
	strictOK bool                // it passes OpenAI's strict mode
	refused  []schema.KeywordUse // keywords the model refuses, left in it
}

// prepareSchema parses s once, strictifies it when asked (and then moves
// the keywords rules refuses into descriptions, with a note), and checks
// it against OpenAI's strict mode, returning it compacted; a schema that
// does not pass strict mode is sent without it, with a note for the
// OpenAI formats. A schema that does not parse is returned as it is, for
// Encode to report.
func (r *Result) prepareSchema(what string, s json.RawMessage, d *Delivery, rules schema.KeywordRules, model string) preparedSchema {
	if len(s) == 0 {
		return preparedSchema{out: s}
	}
	v, err := schema.Parse(s)
	if err != nil {
		return preparedSchema{out: s}
	}
	var refused []schema.KeywordUse
	if d.Strictify {
		v, _ = v.Strictify()
		var moved []schema.KeywordUse
		v, moved, refused = v.MoveKeywords(rules)
		if len(moved) > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("note: %s: moved %s into descriptions, since %s refuses them", what, describeUses(moved), model))
		}
	} else {
		refused = v.FindKeywords(rules)
	}
	out := json.RawMessage(v.AppendCompact(nil))
	violations := v.CheckStrict()
	if len(violations) == 0 {
		return preparedSchema{out: out, strictOK: true, refused: refused}
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
	return preparedSchema{out: out, refused: refused}
}

// describeUses lists keyword uses for a message: `minimum at
// "/properties/age", maxLength at "/properties/name"`.
func describeUses(uses []schema.KeywordUse) string {
	parts := make([]string, len(uses))
	for i, u := range uses {
		parts[i] = u.String()
	}
	return strings.Join(parts, ", ")
}

// refusedKeywords is the error for an output schema with keywords the
// model refuses.
func refusedKeywords(model, where string, uses []schema.KeywordUse, strictified bool) error {
	fix := "run with --strictify to move such keywords into descriptions, or remove them"
	if strictified {
		fix = "remove them, or write them in a form --strictify can move into a description"
	}
	return fmt.Errorf("%s refuses %s in %s (its structured outputs do not support them): %s", model, describeUses(uses), where, fix)
}
