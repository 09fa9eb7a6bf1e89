package provider_test

import (
	"encoding/json"
	"fmt"
	"log"

	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/provider"
)

// Encode one small request for OpenAI Chat Completions: the system side
// as a developer message, a tool, and a strict output schema whose
// properties keep their order.
func ExampleEncode() {
	req := provider.Request{
		Model:  "gpt-4.1",
		System: []provider.Part{{Key: "rules", Text: "Answer in one sentence.", Stable: true}},
		User:   []provider.Part{{Key: "task", Text: "What is the capital of France?"}},
		Tools: []prompt.Tool{{
			Name:        "search",
			Description: "Search the encyclopedia.",
			Parameters:  json.RawMessage(`{"type": "object", "properties": {"query": {"type": "string"}}}`),
		}},
		Output: &provider.Output{
			Name:   "answer",
			Schema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"city":{"type":"string"}},"required":["text","city"],"additionalProperties":false}`),
			Strict: true,
		},
	}
	body, err := provider.Encode(provider.OpenAIChat, req, provider.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(body.JSON))
	// Output:
	// {"model":"gpt-4.1","tools":[{"type":"function","function":{"name":"search","description":"Search the encyclopedia.","parameters":{"type":"object","properties":{"query":{"type":"string"}}}}}],"messages":[{"role":"developer","content":"Answer in one sentence."},{"role":"user","content":"What is the capital of France?"}],"response_format":{"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object","properties":{"text":{"type":"string"},"city":{"type":"string"}},"required":["text","city"],"additionalProperties":false},"strict":true}}}
}

// Mark the stable prefix of an Anthropic request with cache breakpoints
// and read its hash: the same hash on the next call means the provider
// can reuse its cache.
func ExampleEncode_cacheBreakpoints() {
	req := provider.Request{
		Model:  "claude-sonnet-4-6",
		System: []provider.Part{{Key: "rules", Text: "You review pull requests.", Stable: true}},
		User: []provider.Part{
			{Key: "guide", Text: "Style guide: ...", Stable: true},
			{Key: "diff", Text: "diff --git a/x.go b/x.go ..."},
		},
		MaxTokens: 1024,
	}
	body, err := provider.Encode(provider.Anthropic, req, provider.Options{CacheBreakpoints: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(body.JSON))
	fmt.Println("breakpoints:", body.CacheBreakpoints)
	fmt.Println("stable prefix:", body.StablePrefixHash[:12])
	// Output:
	// {"model":"claude-sonnet-4-6","max_tokens":1024,"system":[{"type":"text","text":"You review pull requests.","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"text","text":"Style guide: ...","cache_control":{"type":"ephemeral"}},{"type":"text","text":"diff --git a/x.go b/x.go ..."}]}]}
	// breakpoints: 2
	// stable prefix: 7e15e3f3b58b
}

// The names ParseFormat reads are the ones a command line takes.
func ExampleParseFormat() {
	for _, name := range []string{"openai-responses", "bedrock"} {
		f, err := provider.ParseFormat(name)
		fmt.Println(f, err)
	}
	// Output:
	// openai-responses <nil>
	// Format(0) unknown provider format "bedrock": use one of openai, openai-responses, anthropic, gemini
}
