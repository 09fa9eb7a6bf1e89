package anthropic

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/tessera-dev/tessera/internal/sdktest"
	"github.com/tessera-dev/tessera/provider"
)

const reply = `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`

// sent starts a local server that records one request and answers it,
// and returns a client pointed at it and the record.
func sent(t *testing.T) (sdk.Client, *sdktest.Request) {
	t.Helper()
	url, wire := sdktest.Serve(t, reply)
	c := sdk.NewClient(option.WithBaseURL(url), option.WithAPIKey("test"), option.WithMaxRetries(0))
	return c, wire
}

type block struct {
	Type, Text   string
	CacheControl *struct{ Type string } `json:"cache_control"`
}

func TestMessageParams(t *testing.T) {
	bodies := sdktest.Goldens(t, "anthropic.json", 4)
	for _, path := range slices.Sorted(maps.Keys(bodies)) {
		body := bodies[path]
		p, err := MessageParams(provider.Body{Format: provider.Anthropic, JSON: body})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var want struct {
			Model     string
			MaxTokens int64 `json:"max_tokens"`
			Tools     []struct {
				Name         string
				Strict       bool
				CacheControl *struct{ Type string } `json:"cache_control"`
			}
			System   []block
			Messages []struct {
				Role    string
				Content []block
			}
			OutputConfig *struct{ Format struct{ Type string } } `json:"output_config"`
		}
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatal(err)
		}
		if string(p.Model) != want.Model || p.MaxTokens != want.MaxTokens || len(p.Tools) != len(want.Tools) ||
			len(p.System) != len(want.System) || len(p.Messages) != 1 || len(p.Messages[0].Content) != len(want.Messages[0].Content) {
			t.Fatalf("%s: decoded %+v\nwant %+v", path, p, want)
		}
		for i, tl := range want.Tools {
			got := p.Tools[i].OfTool
			if got.Name != tl.Name || got.Strict.Or(false) != tl.Strict || (got.CacheControl.Type != "") != (tl.CacheControl != nil) {
				t.Errorf("%s: tool %d decoded as %+v, want %+v", path, i, got, tl)
			}
		}
		for i, b := range want.System {
			got := p.System[i]
			if got.Text != b.Text || (got.CacheControl.Type != "") != (b.CacheControl != nil) {
				t.Errorf("%s: system block %d decoded as %+v, want %+v", path, i, got, b)
			}
		}
		if p.Messages[0].Role != sdk.MessageParamRoleUser {
			t.Errorf("%s: message role %q", path, p.Messages[0].Role)
		}
		for i, b := range want.Messages[0].Content {
			got := p.Messages[0].Content[i].OfText
			if got == nil || got.Text != b.Text || (got.CacheControl.Type != "") != (b.CacheControl != nil) {
				t.Errorf("%s: user block %d decoded as %+v, want %+v", path, i, got, b)
			}
		}

		// What the SDK sends is the body, schemas in the body's order.
		client, wire := sent(t)
		if _, err := client.Messages.New(context.Background(), p); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if wire.Path != "/v1/messages" {
			t.Errorf("%s: sent to %s", path, wire.Path)
		}
		sdktest.SameJSON(t, path, wire.Body, body)
		for i := range want.Tools {
			sdktest.SameOrder(t, path, body, wire.Body, "tools", i, "input_schema")
		}
		if want.OutputConfig != nil {
			sdktest.SameOrder(t, path, body, wire.Body, "output_config", "format", "schema")
		}
	}
}

func TestErrors(t *testing.T) {
	if _, err := MessageParams(provider.Body{Format: provider.Gemini}); err == nil || !strings.Contains(err.Error(), "the body is for gemini, not anthropic") {
		t.Errorf("wrong format: %v", err)
	}
	if _, err := MessageParams(provider.Body{Format: provider.Anthropic, JSON: []byte(`{"a":1,"a":2}`)}); err == nil || !strings.Contains(err.Error(), `appears more than once`) {
		t.Errorf("bad JSON: %v", err)
	}
}

// A request encoded by the core and decoded for the SDK in one go.
func TestFromRequest(t *testing.T) {
	req := provider.Request{
		Model:  "claude-sonnet-4-5",
		System: []provider.Part{{Key: "rules", Text: "Answer in French.", Stable: true}},
		User:   []provider.Part{{Key: "task", Text: "Say hello."}},
		Output: &provider.Output{Schema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"lang":{"type":"string"}},"required":["text","lang"],"additionalProperties":false}`)},
	}
	body, err := provider.Encode(provider.Anthropic, req, provider.Options{CacheBreakpoints: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := MessageParams(body)
	if err != nil {
		t.Fatal(err)
	}
	if p.MaxTokens != provider.DefaultMaxTokens || p.System[0].CacheControl.Type != "ephemeral" {
		t.Errorf("max tokens %d, system %+v", p.MaxTokens, p.System)
	}
	client, wire := sent(t)
	if _, err := client.Messages.New(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(wire.Body), `"properties":{"text":{"type":"string"},"lang":{"type":"string"}}`) {
		t.Errorf("property order lost on the wire: %s", wire.Body)
	}
}
