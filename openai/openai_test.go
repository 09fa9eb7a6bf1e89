package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/tessera-dev/tessera/internal/sdktest"
	"github.com/tessera-dev/tessera/provider"
)

// sent starts a local server that records one request and answers it
// with reply, and returns a client pointed at it and the record.
func sent(t *testing.T, reply string) (sdk.Client, *sdktest.Request) {
	t.Helper()
	url, wire := sdktest.Serve(t, reply)
	c := sdk.NewClient(option.WithBaseURL(url), option.WithAPIKey("test"), option.WithMaxRetries(0))
	return c, wire
}

func TestChatCompletionParams(t *testing.T) {
	for path, body := range sdktest.Goldens(t, "openai*.json", 10) {
		if strings.Contains(path, "openai-responses") {
			continue
		}
		b := provider.Body{Format: provider.OpenAIChat, JSON: body}
		p, err := ChatCompletionParams(b)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var want struct {
			Model    string
			Messages []struct{ Role, Content string }
			Tools    []struct {
				Function struct {
					Name   string
					Strict bool
				}
			}
			ResponseFormat *struct {
				JSONSchema struct {
					Name   string
					Strict bool
				} `json:"json_schema"`
			} `json:"response_format"`
			MaxCompletionTokens int64 `json:"max_completion_tokens"`
		}
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatal(err)
		}
		if p.Model != want.Model || len(p.Messages) != len(want.Messages) || len(p.Tools) != len(want.Tools) ||
			p.MaxCompletionTokens.Or(0) != want.MaxCompletionTokens {
			t.Errorf("%s: model %q, %d messages, %d tools, max %d; want %+v", path, p.Model, len(p.Messages), len(p.Tools), p.MaxCompletionTokens.Or(0), want)
		}
		for i, m := range want.Messages {
			got := p.Messages[i]
			var role, text string
			switch {
			case got.OfDeveloper != nil:
				role, text = "developer", got.OfDeveloper.Content.OfString.Or("")
			case got.OfSystem != nil:
				role, text = "system", got.OfSystem.Content.OfString.Or("")
			case got.OfUser != nil:
				role, text = "user", got.OfUser.Content.OfString.Or("")
			}
			if role != m.Role || text != m.Content {
				t.Errorf("%s: message %d is %s %.40q, want %s %.40q", path, i, role, text, m.Role, m.Content)
			}
		}
		for i, tl := range want.Tools {
			fn := p.Tools[i].OfFunction
			if fn == nil || fn.Function.Name != tl.Function.Name || fn.Function.Strict.Or(false) != tl.Function.Strict {
				t.Errorf("%s: tool %d decoded as %+v, want %+v", path, i, fn, tl)
			}
		}
		if f := p.ResponseFormat.OfJSONSchema; (f == nil) != (want.ResponseFormat == nil) ||
			f != nil && (f.JSONSchema.Name != want.ResponseFormat.JSONSchema.Name || f.JSONSchema.Strict.Or(false) != want.ResponseFormat.JSONSchema.Strict) {
			t.Errorf("%s: response format %+v, want %+v", path, f, want.ResponseFormat)
		}

		// What the SDK sends is the body, schemas in the body's order.
		client, wire := sent(t, `{"id":"c","object":"chat.completion","created":0,"model":"m","choices":[]}`)
		if _, err := client.Chat.Completions.New(context.Background(), p); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if wire.Path != "/chat/completions" {
			t.Errorf("%s: sent to %s", path, wire.Path)
		}
		sdktest.SameJSON(t, path, wire.Body, body)
		for i := range want.Tools {
			sdktest.SameOrder(t, path, body, wire.Body, "tools", i, "function", "parameters")
		}
		if want.ResponseFormat != nil {
			sdktest.SameOrder(t, path, body, wire.Body, "response_format", "json_schema", "schema")
		}
	}
}

func TestResponseParams(t *testing.T) {
	for path, body := range sdktest.Goldens(t, "openai-responses*.json", 5) {
		p, err := ResponseParams(provider.Body{Format: provider.OpenAIResponses, JSON: body})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var want struct {
			Model string
			Input []struct{ Role, Content string }
			Tools []struct {
				Name   string
				Strict bool
			}
			Text *struct {
				Format struct {
					Name   string
					Strict bool
				}
			}
			MaxOutputTokens int64 `json:"max_output_tokens"`
		}
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatal(err)
		}
		if string(p.Model) != want.Model || len(p.Input.OfInputItemList) != len(want.Input) || len(p.Tools) != len(want.Tools) ||
			p.MaxOutputTokens.Or(0) != want.MaxOutputTokens {
			t.Errorf("%s: model %q, %d items, %d tools, max %d; want %+v", path, p.Model, len(p.Input.OfInputItemList), len(p.Tools), p.MaxOutputTokens.Or(0), want)
		}
		for i, m := range want.Input {
			msg := p.Input.OfInputItemList[i].OfMessage
			if msg == nil || string(msg.Role) != m.Role || msg.Content.OfString.Or("") != m.Content {
				t.Errorf("%s: input %d decoded as %+v, want %s %.40q", path, i, msg, m.Role, m.Content)
			}
		}
		for i, tl := range want.Tools {
			fn := p.Tools[i].OfFunction
			if fn == nil || fn.Name != tl.Name || fn.Strict.Or(!tl.Strict) != tl.Strict {
				t.Errorf("%s: tool %d decoded as %+v, want %+v", path, i, fn, tl)
			}
		}
		if f := p.Text.Format.OfJSONSchema; (f == nil) != (want.Text == nil) || f != nil && (f.Name != want.Text.Format.Name || f.Strict.Or(false) != want.Text.Format.Strict) {
			t.Errorf("%s: text format %+v, want %+v", path, f, want.Text)
		}

		client, wire := sent(t, `{"id":"r","object":"response","created_at":0,"model":"m","output":[]}`)
		if _, err := client.Responses.New(context.Background(), p); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if wire.Path != "/responses" {
			t.Errorf("%s: sent to %s", path, wire.Path)
		}
		sdktest.SameJSON(t, path, wire.Body, body)
		for i := range want.Tools {
			sdktest.SameOrder(t, path, body, wire.Body, "tools", i, "parameters")
		}
		if want.Text != nil {
			sdktest.SameOrder(t, path, body, wire.Body, "text", "format", "schema")
		}
	}
}

func TestErrors(t *testing.T) {
	chat := provider.Body{Format: provider.OpenAIChat, JSON: []byte(`{"messages":[]}`)}
	if _, err := ResponseParams(chat); err == nil || !strings.Contains(err.Error(), "the body is for openai, not openai-responses") {
		t.Errorf("wrong format: %v", err)
	}
	if _, err := ChatCompletionParams(provider.Body{Format: provider.Anthropic}); err == nil || !strings.Contains(err.Error(), "provider.Encode(openai, ...)") {
		t.Errorf("wrong format: %v", err)
	}
	bad := provider.Body{Format: provider.OpenAIChat, JSON: []byte(`{"messages":`)}
	if _, err := ChatCompletionParams(bad); err == nil || !strings.Contains(err.Error(), "openai: openai body: JSON at byte 12") {
		t.Errorf("bad JSON: %v", err)
	}
	untyped := provider.Body{Format: provider.OpenAIResponses, JSON: []byte(`{"input":[{"role":"user","content":"x"}]}`)}
	if _, err := ResponseParams(untyped); err == nil || !strings.Contains(err.Error(), `1 input items but 0 decoded`) {
		t.Errorf("input items without a type: %v", err)
	}
}

// A request encoded by the core and decoded for the SDK in one go.
func TestFromRequest(t *testing.T) {
	req := provider.Request{
		Model:  "gpt-4.1-mini",
		System: []provider.Part{{Key: "rules", Text: "Answer in French.", Stable: true}},
		User:   []provider.Part{{Key: "task", Text: "Say hello."}},
		Output: &provider.Output{Name: "greeting", Strict: true, Schema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"lang":{"type":"string"}},"required":["text","lang"],"additionalProperties":false}`)},
	}
	body, err := provider.Encode(provider.OpenAIChat, req, provider.Options{SystemRole: "system"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ChatCompletionParams(body)
	if err != nil {
		t.Fatal(err)
	}
	if p.Messages[0].OfSystem == nil || p.Messages[0].OfSystem.Content.OfString.Or("") != "Answer in French." {
		t.Errorf("system message %+v", p.Messages[0])
	}
	client, wire := sent(t, `{"id":"c","object":"chat.completion","created":0,"model":"m","choices":[]}`)
	if _, err := client.Chat.Completions.New(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(wire.Body), `"properties":{"text":{"type":"string"},"lang":{"type":"string"}}`) {
		t.Errorf("property order lost on the wire: %s", wire.Body)
	}
}
