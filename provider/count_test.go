package provider

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/tokenizer"
)

// weather is the function of OpenAI's documented token-counting example
// (the cookbook's "How to count tokens with tiktoken", counting a chat
// request with tools), with its two messages.
func weather() Request {
	return Request{
		System: []Part{{Text: "You are a helpful assistant that can answer to questions about the weather."}},
		User:   []Part{{Text: "What's the weather like in San Francisco?"}},
		Tools: []prompt.Tool{{
			Name:        "get_current_weather",
			Description: "Get the current weather in a given location",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"},"unit":{"type":"string","description":"The unit of temperature to return","enum":["celsius","fahrenheit"]}},"required":["location"]}`),
		}},
	}
}

// TestCountDocumentedExample checks the count of a request with a tool
// against the prompt_tokens OpenAI's API reported for it, as the cookbook
// documents: 105 for gpt-4 and gpt-3.5-turbo (cl100k_base), 101 for
// gpt-4o and gpt-4o-mini (o200k_base).
func TestCountDocumentedExample(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  int
	}{{"gpt-4", 105}, {"gpt-3.5-turbo", 105}, {"gpt-4o", 101}, {"gpt-4o-mini", 101}} {
		c, err := tokenizer.ForModel(tc.model)
		if err != nil {
			t.Fatal(err)
		}
		req := weather()
		req.Model = tc.model
		got := Count(OpenAIChat, req, c)
		if got.Total != tc.want {
			t.Errorf("%s: counted %d tokens (%+v), the API reported %d", tc.model, got.Total, got, tc.want)
		}
	}
}

// toolCase is one request of testdata/toolcount/cases.json.
type toolCase struct {
	Name   string `json:"name"`
	System string `json:"system"`
	User   string `json:"user"`
	Tools  []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"tools"`
}

func (c *toolCase) request() Request {
	req := Request{User: []Part{{Text: c.User}}}
	if c.System != "" {
		req.System = []Part{{Text: c.System}}
	}
	for _, t := range c.Tools {
		req.Tools = append(req.Tools, prompt.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return req
}

// TestCountMatchesMeasured compares the count of each request of
// testdata/toolcount/cases.json, for gpt-4 (cl100k_base), with the count
// openai-chat-tokens gives it (testdata/toolcount/openai-chat-tokens.json,
// written by bench/peers/toolcount/count.cjs); that library's counts were
// checked by its author against the prompt_tokens OpenAI's API reports.
func TestCountMatchesMeasured(t *testing.T) {
	var cases []toolCase
	readJSON(t, "testdata/toolcount/cases.json", &cases)
	var want map[string]int
	readJSON(t, "testdata/toolcount/openai-chat-tokens.json", &want)
	c, err := tokenizer.ForModel("gpt-4")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		w, ok := want[tc.Name]
		if !ok {
			t.Errorf("%s: no measured count: run bench/peers/toolcount/count.cjs (see docs/PROVIDERS.md)", tc.Name)
			continue
		}
		if got := Count(OpenAIChat, tc.request(), c); got.Total != w {
			t.Errorf("%s: counted %d (%+v), measured %d", tc.Name, got.Total, got, w)
		}
	}
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// BenchmarkCount counts the request of testdata/toolcount/cases.json with
// the most tools (five, with enums and descriptions) for each format, as
// a budget does once per exact count of a fit. Target: under 100 µs for
// OpenAI, whose function namespace is rendered and counted whole.
func BenchmarkCount(b *testing.B) {
	var cases []toolCase
	readJSON(b, "testdata/toolcount/cases.json", &cases)
	var req Request
	for _, c := range cases {
		if len(c.Tools) > len(req.Tools) {
			req = c.request()
		}
	}
	c := tokenizer.O200kBase()
	for _, f := range Formats() {
		b.Run(f.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if t := Count(f, req, c); t.Total <= 0 {
					b.Fatal(t)
				}
			}
		})
	}
}

// FuzzSizer checks that any tool schema, text and format is counted
// without a panic, that no part of the count is negative, and that the
// parts add up to the total.
func FuzzSizer(f *testing.F) {
	f.Add("sys", "user", "tool_a", "does a", `{"type":"object","properties":{"a":{"type":"string","enum":["x","y"]},"b":{"type":"object","properties":{"c":{"type":"array","items":{"type":"integer"}}}}},"required":["a"]}`)
	f.Add("", "u", "t", "", `{"properties":{"a":{"anyOf":[{"type":"null"},{"type":"number","enum":[1,2.5]}]}}}`)
	f.Add("s\n", "u", "t", "d", `{"properties":[]}`)
	f.Add("s", "u", "t", "d", `not json`)
	f.Add("s", "u", "t", "d", `{"properties":{"x":{"type":"object"}}}`)
	c := tokenizer.O200kBase()
	f.Fuzz(func(t *testing.T, system, user, name, desc, params string) {
		req := Request{User: []Part{{Text: user}}, Tools: []prompt.Tool{{Name: name, Description: desc, Parameters: json.RawMessage(params)}}, Output: &Output{Schema: json.RawMessage(params)}}
		if system != "" {
			req.System = []Part{{Text: system, Stable: true}}
		}
		for _, f := range Formats() {
			s := NewSizer(f, "claude-sonnet-4-6", c)
			got := s.Tally(&req)
			if got.Text < 0 || got.Framing < 0 || got.Output < 0 || got.Total != got.Text+got.Framing+got.Tools+got.Output {
				t.Fatalf("%s: %+v", f, got)
			}
			if one := s.Tool(req.Tools[0]); one < 0 {
				t.Fatalf("%s: tool priced %d", f, one)
			}
		}
	})
}
