package engine

import (
	"encoding/json"
	"errors"
	"github.com/tessera-dev/tessera/presets"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/provider"
)

// Request shapes for the delivery tests. The schemas are strict-mode
// ready, so that strictness depends on the model alone.
var (
	okParams    = json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`)
	kwParams    = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":40}},"required":["n"],"additionalProperties":false}`)
	oaParams    = json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","maxLength":40}},"required":["q"],"additionalProperties":false}`)
	okOutput    = json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`)
	kwOutput    = json.RawMessage(`{"type":"object","properties":{"age":{"type":"integer","description":"Age","minimum":0}},"required":["age"],"additionalProperties":false}`)
	badKwOutput = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":"zero"}},"required":["n"],"additionalProperties":false}`)
)

// shape is a request shape: tools and an output schema.
type shape struct {
	tools  []prompt.Tool
	output json.RawMessage
}

var (
	plain    = shape{}
	output   = shape{output: okOutput}
	tools    = shape{tools: []prompt.Tool{{Name: "search", Parameters: okParams}}}
	both     = shape{tools: []prompt.Tool{{Name: "search", Parameters: okParams}}, output: okOutput}
	kwOut    = shape{output: kwOutput}
	kwTools  = shape{tools: []prompt.Tool{{Name: "search", Parameters: kwParams}}}
	oaTools  = shape{tools: []prompt.Tool{{Name: "search", Parameters: oaParams}}}
	badKwOut = shape{output: badKwOutput}
)

// result is an assembled result of the shape, with a long stable system
// part when long is set, ready to deliver.
func (s shape) result(long bool) *Result {
	text := "You help."
	if long {
		text = strings.Repeat("Keep to the rules of the house, always. ", 1000)
	}
	r := &Result{
		Sections: []Section{{Key: "rules", Role: prompt.RoleSystem, Stable: true, Text: text}, {Key: "task", Role: prompt.RoleUser, Text: "Do it."}},
		Tools:    slices.Clone(s.tools),
		Record:   &audit.Record{},
	}
	if s.output != nil {
		r.Output = &preset.Output{Name: "out", Schema: s.output}
	}
	return r
}

// TestDeliverRules checks every rule of delivery against the model
// table: model × request shape → accepted (with its notes) or the error.
func TestDeliverRules(t *testing.T) {
	tests := []struct {
		name   string
		f      provider.Format
		model  string
		shape  shape
		d      Delivery
		err    string   // the error, or "" for accepted
		notes  []string // what the notes must say, in order
		strict bool     // the tools are sent strict
		body   string   // what the body must hold
	}{
		// OpenAI.
		{name: "gpt-4o, both", f: provider.OpenAIChat, model: "gpt-4o", shape: both, strict: true, body: `"response_format":{"type":"json_schema"`},
		{name: "gpt-4 has no structured output", f: provider.OpenAIChat, model: "gpt-4", shape: output, err: "gpt-4 has no structured output: it refuses a JSON output schema: drop the output schema, or target a model that has one, such as gpt-4o"},
		{name: "gpt-4 takes strict tools", f: provider.OpenAIChat, model: "gpt-4-0613", shape: tools, strict: true},
		{name: "gpt-3.5-turbo has no structured output", f: provider.OpenAIResponses, model: "gpt-3.5-turbo", shape: output, err: "gpt-3.5-turbo has no structured output"},
		{name: "gpt-4o's first snapshot has no structured output", f: provider.OpenAIChat, model: "gpt-4o-2024-05-13", shape: output, err: "gpt-4o-2024-05-13 has no structured output"},
		{name: "o1-mini takes no tools", f: provider.OpenAIChat, model: "o1-mini", shape: tools, err: "o1-mini takes no tools (function calling): drop the tools, or target a model that takes them, such as gpt-4o"},
		{name: "over the maximum output", f: provider.OpenAIChat, model: "gpt-4o", shape: plain, d: Delivery{MaxTokens: 20000}, err: "a reply of up to 20000 tokens is more than gpt-4o's maximum output of 16384 tokens: ask for at most 16384 (on the command line, --reserve sets it)"},
		{name: "at the maximum output", f: provider.OpenAIChat, model: "gpt-4o", shape: plain, d: Delivery{MaxTokens: 16384}, body: `"max_completion_tokens":16384`},
		{name: "OpenAI keeps its own strict rules", f: provider.OpenAIChat, model: "gpt-4.1", shape: oaTools, notes: []string{`note: tool search is sent without strict mode: 1 strict-mode violation(s), the first at /properties/q/maxLength`}},
		// Anthropic.
		{name: "claude-3-5-haiku has no structured output", f: provider.Anthropic, model: "claude-3-5-haiku-20241022", shape: output, err: "claude-3-5-haiku-20241022 has no structured output"},
		{name: "opus 4.1 has no strict tools", f: provider.Anthropic, model: "claude-opus-4-1", shape: tools, notes: []string{`note: the tools are sent without strict mode: claude-opus-4-1 does not accept "strict": true on a tool`}},
		{name: "refused keyword in the output schema", f: provider.Anthropic, model: "claude-sonnet-4-5", shape: kwOut, err: `claude-sonnet-4-5 refuses minimum at "/properties/age" in the output schema (its structured outputs do not support them): run with --strictify to move such keywords into descriptions, or remove them`},
		{name: "refused keyword moved", f: provider.Anthropic, model: "claude-sonnet-4-5", shape: kwOut, d: Delivery{Strictify: true}, notes: []string{`note: output schema out: moved minimum at "/properties/age" into descriptions, since claude-sonnet-4-5 refuses them`}, body: `"age":{"type":"integer","description":"Age. Must be ≥ 0."}`},
		{name: "refused keyword that cannot be moved", f: provider.Anthropic, model: "claude-haiku-4-5", shape: badKwOut, d: Delivery{Strictify: true}, err: `claude-haiku-4-5 refuses minimum at "/properties/n" in the output schema (its structured outputs do not support them): remove them, or write them in a form --strictify can move`},
		{name: "refused keyword in a strict tool", f: provider.Anthropic, model: "claude-sonnet-4-5", shape: kwTools, notes: []string{`note: the tools are sent without strict mode: claude-sonnet-4-5 refuses, in a strict tool's parameters, maximum at "/properties/n" in tool "search"; --strictify moves such keywords into descriptions`}},
		{name: "refused keyword in a strict tool, moved", f: provider.Anthropic, model: "claude-sonnet-4-5", shape: kwTools, d: Delivery{Strictify: true}, strict: true, notes: []string{`note: tool search: moved maximum at "/properties/n" into descriptions, since claude-sonnet-4-5 refuses them`}, body: `"description":"Must be ≤ 40."`},
		{name: "the keywords are Anthropic's only", f: provider.Gemini, model: "gemini-2.5-pro", shape: kwOut, body: `"minimum":0`},
		{name: "a small model's maximum caps max_tokens", f: provider.Anthropic, model: "claude-3-haiku", shape: plain, body: `"max_tokens":4096`},
		// Gemini.
		{name: "gemini 2.5 refuses tools with JSON output", f: provider.Gemini, model: "gemini-2.5-pro", shape: both, err: "gemini-2.5-pro refuses tools together with a JSON output schema: drop the output schema or the tools, or target a model that accepts both, such as gemini-3.5-flash"},
		{name: "gemini 2.0 refuses tools with JSON output", f: provider.Gemini, model: "gemini-2.0-flash", shape: both, err: "gemini-2.0-flash refuses tools together with a JSON output schema"},
		{name: "gemini 2.5 takes either alone", f: provider.Gemini, model: "gemini-2.5-flash", shape: output, body: `"responseJsonSchema"`},
		{name: "gemini 3 takes both", f: provider.Gemini, model: "gemini-3-flash-preview", shape: both, body: `"functionDeclarations"`},
		{name: "the default Gemini model takes both", f: provider.Gemini, shape: both},
		// Models the table does not know, or knows for another API.
		{name: "unknown model", f: provider.Anthropic, model: "claude-opus-4-9", shape: both, notes: []string{"note: model claude-opus-4-9 is not in Tessera's model table: the body is encoded as asked, without checking what the model accepts; describe it under models: in tessera.yaml to check it (docs/PROVIDERS.md)"}, strict: true},
		{name: "another provider's model", f: provider.OpenAIChat, model: "claude-3-haiku", shape: output, err: "--model: claude-3-haiku is an Anthropic model, and --provider openai asks for an OpenAI body: name an OpenAI model (such as gpt-4o), or add --allow-model-mismatch to send claude-3-haiku in this body anyway"},
		{name: "another provider's model, for Gemini", f: provider.Gemini, model: "gpt-4o", shape: plain, err: "--model: gpt-4o is an OpenAI model, and --provider gemini asks for a Gemini body: name a Gemini model (such as gemini-3.5-flash)"},
		{name: "another provider's model, allowed", f: provider.OpenAIChat, model: "claude-3-haiku", shape: output, d: Delivery{AllowModelMismatch: true}, body: `"model":"claude-3-haiku"`, notes: []string{"note: claude-3-haiku is an Anthropic model and the body is for openai: the body is encoded as asked, without checking what the model accepts"}},
		{name: "no tokenizer at all", f: provider.OpenAIChat, model: "llama-3.1-70b", shape: plain, body: `"model":"llama-3.1-70b"`, notes: []string{
			"note: model llama-3.1-70b is not in Tessera's model table: the body is encoded as asked, without checking what the model accepts; describe it under models: in tessera.yaml to check it (docs/PROVIDERS.md)",
			"note: no tokenizer is known for llama-3.1-70b: the stable prefix is counted with " + DefaultModel(provider.OpenAIChat) + "'s (o200k_base)",
		}},
		{name: "a fine-tuned model has its base model's row", f: provider.OpenAIChat, model: "ft:gpt-3.5-turbo-0125:acme::8xyz", shape: output, err: "ft:gpt-3.5-turbo-0125:acme::8xyz has no structured output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.shape.result(false)
			d := tt.d
			d.Format, d.Model = tt.f, tt.model
			err := res.deliver(&d, nil)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Notes) != len(tt.notes) {
				t.Fatalf("notes %q, want %d", res.Notes, len(tt.notes))
			}
			for i, n := range tt.notes {
				if !strings.HasPrefix(res.Notes[i], n) {
					t.Errorf("note %q, want %q", res.Notes[i], n)
				}
			}
			body := string(res.Body)
			if tt.body != "" && !strings.Contains(body, tt.body) {
				t.Errorf("body lacks %s:\n%s", tt.body, body)
			}
			if strict := strings.Contains(body, `"strict":true`) && len(tt.shape.tools) > 0; strict != tt.strict && tt.f != provider.Gemini {
				t.Errorf("strict tools %v, want %v:\n%s", strict, tt.strict, body)
			}
		})
	}
}

// TestDeliverDropsBreakpoints checks that a stable prefix under the
// model's minimum cacheable length gets no breakpoint, with a note and
// the record saying so, and one above it keeps them.
func TestDeliverDropsBreakpoints(t *testing.T) {
	res := tools.result(false)
	d := &Delivery{Format: provider.Anthropic, Model: "claude-haiku-4-5", CacheBreakpoints: true}
	if err := res.deliver(d, nil); err != nil {
		t.Fatal(err)
	}
	rec := res.Record.Delivery
	if strings.Contains(string(res.Body), "cache_control") || rec.CacheBreakpoints != 0 {
		t.Errorf("a short prefix kept its breakpoints: %s", res.Body)
	}
	const why = "2 of 2 cache breakpoints left out: the prefix before each is under claude-haiku-4-5's minimum cacheable length of 4096 tokens (the whole stable prefix counts "
	if !strings.HasPrefix(rec.BreakpointsDropped, why) || len(res.Notes) != 1 || res.Notes[0] != "note: "+rec.BreakpointsDropped {
		t.Errorf("record %q, notes %q", rec.BreakpointsDropped, res.Notes)
	}
	data, err := res.Record.Marshal()
	if err != nil || !strings.Contains(string(data), `"breakpoints_dropped":"2 of 2 cache breakpoints left out`) {
		t.Errorf("the log line does not say so: %s %v", data, err)
	}

	// A long prefix keeps the system block's breakpoint; the tool's,
	// before it, is still too short.
	res = tools.result(true)
	if err := res.deliver(d, nil); err != nil {
		t.Fatal(err)
	}
	if rec := res.Record.Delivery; rec.CacheBreakpoints != 1 || !strings.HasPrefix(rec.BreakpointsDropped, "1 of 2 cache breakpoints left out") {
		t.Errorf("long prefix: %d breakpoints, %q", rec.CacheBreakpoints, rec.BreakpointsDropped)
	}
	// A model the table does not know keeps every breakpoint asked for.
	res = tools.result(false)
	if err := res.deliver(&Delivery{Format: provider.Anthropic, Model: "claude-opus-4-9", CacheBreakpoints: true}, nil); err != nil || res.Record.Delivery.CacheBreakpoints != 2 || res.Record.Delivery.BreakpointsDropped != "" {
		t.Errorf("unknown model: %+v %v", res.Record.Delivery, err)
	}
}

// TestDeliverModelsOverride checks that a table with corrections is
// used: a new model is checked, and counted with its provider's default
// model's tokenizer when it has none of its own.
func TestDeliverModelsOverride(t *testing.T) {
	no, yes, max := false, true, 1000
	openai, anthropic := "openai", "anthropic"
	tab, err := provider.BuiltinModels().With(
		provider.ModelOverride{Name: "acme-llm", Source: "tessera.yaml:4", Provider: &openai, Tools: &yes, StructuredOutput: &no},
		provider.ModelOverride{Name: "claude-3-haiku", Source: "tessera.yaml:8", MaxOutputTokens: &max},
		provider.ModelOverride{Name: "gpt-4o", Source: "tessera.yaml:10", Provider: &anthropic},
	)
	if err != nil {
		t.Fatal(err)
	}
	res := output.result(false)
	err = res.deliver(&Delivery{Format: provider.OpenAIChat, Model: "acme-llm", Models: tab}, nil)
	if err == nil || err.Error() != "acme-llm has no structured output (tessera.yaml:4): it refuses a JSON output schema: drop the output schema, or target a model that has one, such as gpt-4o" {
		t.Errorf("new model: %v", err)
	}
	res = plain.result(false)
	if err := res.deliver(&Delivery{Format: provider.OpenAIChat, Model: "acme-llm", Models: tab}, nil); err != nil || len(res.Notes) != 1 || res.Notes[0] != "note: no tokenizer is known for acme-llm: the stable prefix is counted with gpt-4o's (o200k_base)" || res.Record.Delivery.Counter != "o200k_base" {
		t.Errorf("counter of a new model: %v %q %+v", err, res.Notes, res.Record.Delivery)
	}
	res = plain.result(false)
	if err := res.deliver(&Delivery{Format: provider.Anthropic, Model: "claude-3-haiku-20240307", Models: tab}, nil); err != nil || !strings.Contains(string(res.Body), `"max_tokens":1000`) {
		t.Errorf("a corrected maximum: %v %s", err, res.Body)
	}
	res = plain.result(false)
	if err := res.deliver(&Delivery{Format: provider.OpenAIChat, Model: "gpt-4o", Models: tab}, nil); err == nil || !strings.Contains(err.Error(), "gpt-4o is an Anthropic model (tessera.yaml:10), and --provider openai asks for an OpenAI body") {
		t.Errorf("a corrected provider: %v", err)
	}
	res = plain.result(false)
	if err := res.deliver(&Delivery{Format: provider.OpenAIChat, Model: "gpt-4o", Models: tab, AllowModelMismatch: true}, nil); err != nil || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "gpt-4o is an Anthropic model") {
		t.Errorf("a corrected provider, allowed: %v %q", err, res.Notes)
	}
}

// TestDeliverCatalogModels checks that Assemble takes the corrections of
// the catalog's tessera.yaml.
func TestDeliverCatalogModels(t *testing.T) {
	files := base()
	files["tessera.yaml"] += "models:\n  gpt-4o:\n    max_output_tokens: 100\n"
	dir := writeTree(t, files)
	c := open(t, dir)
	e := Engine{Registry: presets.Default()}
	_, err := e.Assemble(t.Context(), Request{Args: preset.Args{"workflow": "wf.v1", "node": "n"}, Catalog: c, NoLog: true, CorrelationID: "c-1", Delivery: &Delivery{Format: provider.OpenAIChat, MaxTokens: 200}})
	if err == nil || !strings.Contains(err.Error(), "more than gpt-4o's maximum output of 100 tokens (") {
		t.Errorf("the catalog's correction was not used: %v", err)
	}
	var me *ModelError
	if errors.As(err, &me) {
		t.Errorf("a refusal is not a model error: %v", err)
	}
}

// TestDeliverContextWindow checks that a prompt that does not fit the
// model's context window, with the reply it asks room for, is refused by
// an exact count and warned of by an estimate.
func TestDeliverContextWindow(t *testing.T) {
	window, maxOut := 1000, 500
	tab, err := provider.BuiltinModels().With(
		provider.ModelOverride{Name: "gpt-4o", Source: "tessera.yaml:3", ContextWindow: &window, MaxOutputTokens: &maxOut},
		provider.ModelOverride{Name: "claude-sonnet-4-6", Source: "tessera.yaml:6", ContextWindow: &window, MaxOutputTokens: &maxOut},
	)
	if err != nil {
		t.Fatal(err)
	}
	withText := func(text string) *Result {
		r := plain.result(false)
		r.Sections[0].Text = text
		r.Prompt.Text = text
		return r
	}
	long := strings.Repeat(" word", 600) // 600 tokens by o200k_base

	res := withText(long)
	err = res.deliver(&Delivery{Format: provider.OpenAIChat, Model: "gpt-4o", MaxTokens: 500, Models: tab}, nil)
	want := "the prompt counts 600 tokens by o200k_base with room for a reply of 500, over gpt-4o's context window of 1000 tokens: set a budget to trim it to fit (--budget 1000, and --reserve for the reply), or target a model with a larger window"
	if err == nil || err.Error() != want {
		t.Errorf("over the window:\n got %v\nwant %s", err, want)
	}
	res = withText(long)
	if err := res.deliver(&Delivery{Format: provider.OpenAIChat, Model: "gpt-4o", MaxTokens: 400, Models: tab}, nil); err != nil {
		t.Errorf("a prompt that fits with its reply: %v", err)
	}
	res = withText(long)
	if err := res.deliver(&Delivery{Format: provider.Anthropic, Model: "claude-sonnet-4-6", MaxTokens: 500, Models: tab}, nil); err != nil || len(res.Notes) != 1 || !strings.HasPrefix(res.Notes[0], "warning: the prompt counts about 750 tokens by estimate/anthropic (an estimate, which errs high) with room for a reply of 500, over claude-sonnet-4-6's context window of 1000") {
		t.Errorf("by an estimate: %v %q", err, res.Notes)
	}
	res = withText(long)
	if err := res.deliver(&Delivery{Format: provider.OpenAIChat, Model: "gpt-4o", MaxTokens: 500}, nil); err != nil {
		t.Errorf("the built-in window: %v", err)
	}
}
