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

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
