package engine

import (
	"encoding/json"
	"fmt"
	"github.com/tessera-dev/tessera/presets"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/tokenizer"
)

// sentCases are one input of each preset, with native tools where the
// preset has them: the agent executor with the example tools and memory,
// the canonical support ticket (a tool and an output schema), the typed
// code review (tools, a disclosure tool and an output schema), the
// layered example and the template preset's workflow node.
func sentCases(t testing.TB) map[string]Request {
	return map[string]Request{
		"template":  {Args: preset.Args{"workflow": "pm_discovery.v1", "node": "pgc"}, Catalog: open(t, examplePath())},
		"canonical": {Args: preset.Args{"spec": examplePath("canonical", "support-ticket.yaml")}},
		"agent": {Args: preset.Args{
			"agent-role": "executor", "agent-state": examplePath("agent", "state.yaml"),
			"agent-subtask": examplePath("agent", "subtask.yaml"), "agent-memory": examplePath("agent", "memory.json"),
			"agent-tools": examplePath("agent", "tools.json"),
		}},
		"typed":   {Args: preset.Args{"typed": examplePath("typed", "code-review.yaml"), "typed-params": examplePath("typed", "params", "code-review.yaml")}},
		"layered": {Args: preset.Args{"layered-task": "Fix the failing invoice tests", "layered-context": examplePath("layered", "context.yaml")}, Catalog: open(t, examplePath())},
	}
}

// TestBudgetCountsWhatIsSent fits every preset's prompt, for every
// provider body, into budgets from generous to tight, and recounts the
// body the caller receives, decoded from its JSON: its messages or
// blocks, their framing, its native tools and its output schema. The
// budget's final count must equal that recount and stay within the
// limit, and no tool may be sent twice (as a native definition and as
// its schema in the text).
func TestBudgetCountsWhatIsSent(t *testing.T) {
	for name, base := range sentCases(t) {
		for _, f := range provider.Formats() {
			model := DefaultModel(f)
			counter, err := tokenizer.ForModel(model)
			if err != nil {
				t.Fatal(err)
			}
			// The untrimmed request's size sets the budgets tried.
			full := base
			full.Delivery = &Delivery{Format: f}
			whole := assemble(t, full)
			size := recount(t, f, model, whole.Body, counter)
			tools := 0
			for _, frac := range []float64{2, 1, 0.9, 0.75, 0.6} {
				limit := int(float64(size) * frac)
				req := base
				req.Delivery = &Delivery{Format: f}
				req.Budget = &Budget{Context: limit}
				t.Run(fmt.Sprintf("%s/%s/%d", name, f, limit), func(t *testing.T) {
					req.NoLog, req.CorrelationID = true, "test-1"
					res, err := (&Engine{Registry: presets.Default()}).Assemble(t.Context(), req)
					if err != nil {
						if strings.Contains(err.Error(), "may not be trimmed") {
							t.Skipf("the untrimmable sections alone are over %d tokens", limit)
						}
						t.Fatal(err)
					}
					got := recount(t, f, model, res.Body, counter)
					if res.Budget.Final != got {
						t.Errorf("the budget counted %d tokens (%+v tools %d, output %d, framing %d); the body it gave recounts to %d", res.Budget.Final, res.Budget.Counter, res.Budget.Tools, res.Budget.Output, res.Budget.Overhead, got)
					}
					if res.Budget.Final > limit {
						t.Errorf("final count %d is over the limit %d", res.Budget.Final, limit)
					}
					if res.Budget.Provider != f.String() {
						t.Errorf("report names provider %q, want %q", res.Budget.Provider, f)
					}
					for _, tl := range res.Tools {
						if len(tl.Parameters) > 0 && strings.Contains(res.Prompt.Text, string(tl.Parameters)) {
							t.Errorf("tool %s is sent natively and its schema is also in the text", tl.Name)
						}
					}
					tools = max(tools, len(res.Tools))
				})
			}
			if name == "agent" || name == "canonical" || name == "typed" {
				if tools == 0 {
					t.Errorf("%s/%s: no native tools were sent at any budget", name, f)
				}
			}
		}
	}
}

// TestAgentToolsCountedOnce is the reported case: an executor prompt with
// 50 memory entries and 20 tools, sent to OpenAI within 1,000 tokens. The
// native tools array was left out of the count, and each tool was sent
// twice.
func TestAgentToolsCountedOnce(t *testing.T) {
	req := Request{
		Args:     AgentToolsArgs(t),
		Budget:   &Budget{Context: 1000},
		Delivery: &Delivery{Format: provider.OpenAIChat},
	}
	res := assemble(t, req)
	counter, _ := tokenizer.ForModel("gpt-4o")
	got := recount(t, provider.OpenAIChat, "gpt-4o", res.Body, counter)
	if got > 1000 || res.Budget.Final != got {
		t.Fatalf("the body recounts to %d tokens, the budget said %d, the limit is 1000", got, res.Budget.Final)
	}
	if len(res.Tools) == 0 || res.Budget.Tools == 0 {
		t.Fatalf("no tools kept (%d) or none counted (%d)", len(res.Tools), res.Budget.Tools)
	}
	for _, tl := range res.Tools {
		if strings.Contains(res.Prompt.Text, `"parameters"`) || strings.Contains(res.Prompt.Text, string(tl.Parameters)) {
			t.Fatalf("tool %s's schema is in the text as well as in the tools array:\n%s", tl.Name, res.Prompt.Text)
		}
		if !strings.Contains(res.Prompt.Text, "- "+tl.Name) {
			t.Errorf("the tools section does not name %s", tl.Name)
		}
	}
}

// body is what recount reads of a request body, in any of the four
// formats.
type body struct {
	// OpenAI Chat; Anthropic's content is an array of blocks
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function *struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
		// OpenAI Responses
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		// Anthropic
		InputSchema json.RawMessage `json:"input_schema"`
		// Gemini
		FunctionDeclarations []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	ResponseFormat *struct {
		JSONSchema struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	// OpenAI Responses
	Input []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"input"`
	Text *struct {
		Format struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"format"`
	} `json:"text"`
	// Anthropic
	System []struct {
		Text string `json:"text"`
	} `json:"system"`
	OutputConfig *struct {
		Format struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"format"`
	} `json:"output_config"`
	// Gemini
	SystemInstruction *struct {
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"systemInstruction"`
	Contents []struct {
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"contents"`
	GenerationConfig *struct {
		Schema json.RawMessage `json:"responseJsonSchema"`
	} `json:"generationConfig"`
}

// recount decodes a request body of format f and counts it as the
// provider receives it: each message's or block's text, the framing of
// the messages, the native tools (with what frames them) and the output
// schema.
func recount(t testing.TB, f provider.Format, model string, data []byte, c tokenizer.Counter) int {
	t.Helper()
	var b body
	if err := json.Unmarshal(data, &b); err != nil {
		t.Fatalf("body: %v\n%s", err, data)
	}
	var (
		system, user []string // the texts as sent: messages or blocks
		tools        []prompt.Tool
		output       json.RawMessage
	)
	switch f {
	case provider.OpenAIChat, provider.OpenAIResponses:
		for _, m := range b.Messages {
			var text string
			if err := json.Unmarshal(m.Content, &text); err != nil {
				t.Fatal(err)
			}
			if m.Role == "user" {
				user = append(user, text)
			} else {
				system = append(system, text)
			}
		}
		for _, m := range b.Input {
			if m.Role == "user" {
				user = append(user, m.Content)
			} else {
				system = append(system, m.Content)
			}
		}
		for _, tl := range b.Tools {
			if tl.Function != nil {
				tools = append(tools, prompt.Tool{Name: tl.Function.Name, Description: tl.Function.Description, Parameters: tl.Function.Parameters})
			} else {
				tools = append(tools, prompt.Tool{Name: tl.Name, Description: tl.Description, Parameters: tl.Parameters})
			}
		}
		if b.ResponseFormat != nil {
			output = b.ResponseFormat.JSONSchema.Schema
		}
		if b.Text != nil {
			output = b.Text.Format.Schema
		}
	case provider.Anthropic:
		for _, s := range b.System {
			system = append(system, s.Text)
		}
		for _, msg := range b.Messages {
			var blocks []struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(msg.Content, &blocks); err != nil {
				t.Fatal(err)
			}
			for _, c := range blocks {
				user = append(user, c.Text)
			}
		}
		for _, tl := range b.Tools {
			p := tl.InputSchema
			if string(p) == `{"type":"object","properties":{}}` {
				p = nil // what Encode writes for a tool without parameters
			}
			tools = append(tools, prompt.Tool{Name: tl.Name, Description: tl.Description, Parameters: p})
		}
		if b.OutputConfig != nil {
			output = b.OutputConfig.Format.Schema
		}
	case provider.Gemini:
		if b.SystemInstruction != nil {
			for _, p := range b.SystemInstruction.Parts {
				system = append(system, p.Text)
			}
		}
		for _, c := range b.Contents {
			for _, p := range c.Parts {
				user = append(user, p.Text)
			}
		}
		for _, tl := range b.Tools {
			for _, d := range tl.FunctionDeclarations {
				tools = append(tools, prompt.Tool{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
			}
		}
		if b.GenerationConfig != nil {
			output = b.GenerationConfig.Schema
		}
	}
	if len(user) == 0 {
		t.Fatalf("%s body has no user text:\n%s", f, data)
	}
	n := 0
	for _, s := range append(append([]string(nil), system...), user...) {
		n += c.Count(s)
	}
	messages := 1
	if len(system) > 0 {
		messages = 2
	}
	n += tokenizer.MessageOverhead(messages)
	// The tools, framed as the provider frames them: a request whose
	// system side is the system text sent.
	req := provider.Request{Tools: tools, User: []provider.Part{{Text: strings.Join(user, "")}}}
	if len(system) > 0 {
		req.System = []provider.Part{{Text: system[0]}}
		if f == provider.OpenAIChat || f == provider.OpenAIResponses {
			req.System = []provider.Part{{Text: strings.Join(system, "")}}
		}
	}
	s := provider.NewSizer(f, model, c)
	n += s.Tools(&req)
	if len(output) > 0 {
		n += s.Output(&provider.Output{Schema: output})
	}
	return n
}

// TestBudgetAsSentReplays logs assemblies fitted as their provider
// request is counted, with tools dropped and shown by name only, and
// replays each to the same bytes from its record.
func TestBudgetAsSentReplays(t *testing.T) {
	for _, f := range provider.Formats() {
		for _, name := range []string{"agent", "typed", "canonical"} {
			req := sentCases(t)[name]
			req.Delivery = &Delivery{Format: f}
			model := DefaultModel(f)
			counter, err := tokenizer.ForModel(model)
			if err != nil {
				t.Fatal(err)
			}
			size := recount(t, f, model, assemble(t, req).Body, counter)
			req.Budget = &Budget{Context: size * 9 / 10}
			req.CorrelationID = "sent-1"
			if _, err := (&Engine{Registry: presets.Default()}).Assemble(t.Context(), Request{Args: req.Args, Budget: req.Budget, Delivery: req.Delivery, NoLog: true}); err != nil {
				req.Budget.Context = size // its never-trimmed sections alone are over 90%
			}
			res, l := assembleLogged(t, req)
			if res.Budget.Provider != f.String() {
				t.Fatalf("%s/%s: report %+v", name, f, res.Budget)
			}
			if v := replay(t, l, "sent-1"); !v.OK() || v.NewHash != res.Prompt.Hash {
				t.Errorf("%s/%s: replay %s (%v)", name, f, v.Status, v.Err)
			}
		}
	}
}

// AgentToolsArgs writes, under a temporary directory, the inputs of an
// executor prompt with 50 memory entries and 20 tools (each with a
// parameters schema), and returns them with the example task state. It
// is exported for the benchmarks of package engine_test.
func AgentToolsArgs(tb testing.TB) preset.Args {
	dir := tb.TempDir()
	var mem, tools []string
	for i := range 50 {
		mem = append(mem, fmt.Sprintf(`{"id":"m%d","type":"discovery","summary":"Entry %d: module foo%d calls bar%d to parse the configuration and cache it."}`, i, i, i, i))
	}
	for i := range 20 {
		tools = append(tools, fmt.Sprintf(`{"name":"tool_%d","description":"Tool %d: runs operation %d on the workspace and reports what changed.","parameters":{"type":"object","properties":{"path":{"type":"string","description":"Path in the workspace"},"mode":{"type":"string","enum":["fast","slow"]}},"required":["path"]}}`, i, i, i))
	}
	writeFiles(tb, dir, map[string]string{
		"memory.json":  "[" + strings.Join(mem, ",") + "]",
		"tools.json":   "[" + strings.Join(tools, ",") + "]",
		"subtask.yaml": "id: add-type-hints\ndescription: Add type hints to slug.py.\nacceptance_criteria: slugify is annotated.\n",
	})
	return preset.Args{
		"agent-role": "executor", "agent-state": examplePath("agent", "state.yaml"),
		"agent-subtask": filepath.Join(dir, "subtask.yaml"), "agent-memory": filepath.Join(dir, "memory.json"), "agent-tools": filepath.Join(dir, "tools.json"),
	}
}
