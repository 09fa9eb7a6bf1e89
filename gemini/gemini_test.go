package gemini

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/internal/sdktest"
	"github.com/tessera-dev/tessera/provider"
	"google.golang.org/genai"
)

// sent starts a local server that records one request and answers it,
// and returns a client pointed at it and the record.
func sent(t *testing.T) (*genai.Client, *sdktest.Request) {
	t.Helper()
	url, wire := sdktest.Serve(t, `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]}}]}`)
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      "test",
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: url},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, wire
}

func texts(c *genai.Content) (out []string) {
	if c == nil {
		return nil
	}
	for _, p := range c.Parts {
		out = append(out, p.Text)
	}
	return out
}

func TestGenerateContentArgs(t *testing.T) {
	bodies := sdktest.Goldens(t, "gemini.json", 4)
	for _, path := range slices.Sorted(maps.Keys(bodies)) {
		body := bodies[path]
		contents, config, err := GenerateContentArgs(provider.Body{Format: provider.Gemini, JSON: body})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		type content struct {
			Role  string
			Parts []struct{ Text string }
		}
		var want struct {
			Contents          []content
			SystemInstruction *content
			Tools             []struct {
				FunctionDeclarations []struct{ Name, Description string }
			}
			GenerationConfig *struct {
				ResponseMimeType string
				MaxOutputTokens  int32
			}
		}
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatal(err)
		}
		if len(contents) != 1 || contents[0].Role != genai.RoleUser || len(contents[0].Parts) != len(want.Contents[0].Parts) {
			t.Fatalf("%s: contents %+v, want %+v", path, contents, want.Contents)
		}
		for i, p := range want.Contents[0].Parts {
			if contents[0].Parts[i].Text != p.Text {
				t.Errorf("%s: part %d is %.40q, want %.40q", path, i, contents[0].Parts[i].Text, p.Text)
			}
		}
		if want.SystemInstruction != nil {
			var w []string
			for _, p := range want.SystemInstruction.Parts {
				w = append(w, p.Text)
			}
			if !reflect.DeepEqual(texts(config.SystemInstruction), w) {
				t.Errorf("%s: system instruction %q, want %q", path, texts(config.SystemInstruction), w)
			}
		} else if config.SystemInstruction != nil {
			t.Errorf("%s: a system instruction from nowhere", path)
		}
		if len(config.Tools) != len(want.Tools) {
			t.Fatalf("%s: %d tools, want %d", path, len(config.Tools), len(want.Tools))
		}
		for i, tl := range want.Tools {
			for j, d := range tl.FunctionDeclarations {
				got := config.Tools[i].FunctionDeclarations[j]
				if got.Name != d.Name || got.Description != d.Description || got.ParametersJsonSchema == nil {
					t.Errorf("%s: declaration %d decoded as %+v, want %+v", path, j, got, d)
				}
			}
		}
		if gc := want.GenerationConfig; gc != nil && (config.ResponseMIMEType != gc.ResponseMimeType || config.MaxOutputTokens != gc.MaxOutputTokens || (gc.ResponseMimeType != "") != (config.ResponseJsonSchema != nil)) {
			t.Errorf("%s: config %+v, want %+v", path, config, gc)
		}

		// What the SDK sends is the body, schemas in the body's order.
		client, wire := sent(t)
		if _, err := client.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, config); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if wire.Path != "/v1beta/models/gemini-2.5-flash:generateContent" {
			t.Errorf("%s: sent to %s", path, wire.Path)
		}
		sdktest.SameJSONExcept(t, path, wire.Body, body, func(sentJSON, bodyJSON any) {
			x, _ := sentJSON.(map[string]any)
			y, _ := bodyJSON.(map[string]any)
			// The SDK marks the system instruction as the user's; the body
			// leaves its role out, which the API reads the same way.
			if si, ok := x["systemInstruction"].(map[string]any); ok && si["role"] == "user" {
				delete(si, "role")
			}
			// It also sends an empty generationConfig when there is none.
			if gc, ok := x["generationConfig"].(map[string]any); ok && len(gc) == 0 && y["generationConfig"] == nil {
				delete(x, "generationConfig")
			}
		})
		for i, tl := range want.Tools {
			for j := range tl.FunctionDeclarations {
				sdktest.SameOrder(t, path, body, wire.Body, "tools", i, "functionDeclarations", j, "parametersJsonSchema")
			}
		}
		if want.GenerationConfig != nil && want.GenerationConfig.ResponseMimeType != "" {
			sdktest.SameOrder(t, path, body, wire.Body, "generationConfig", "responseJsonSchema")
		}
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		b   provider.Body
		msg string
	}{
		{provider.Body{Format: provider.OpenAIChat}, "the body is for openai, not gemini"},
		{provider.Body{Format: provider.Gemini, JSON: []byte(`{`)}, "gemini: gemini body: JSON at byte 1"},
		{provider.Body{Format: provider.Gemini, JSON: []byte(`{"contents":[],"safetySettings":[]}`)}, `the body has "safetySettings", which this package does not carry over`},
		{provider.Body{Format: provider.Gemini, JSON: []byte(`{"contents":[],"generationConfig":{"temperature":1}}`)}, `generationConfig has "temperature"`},
		{provider.Body{Format: provider.Gemini, JSON: []byte(`{"contents":{}}`)}, "decoding the body into the SDK's types"},
	} {
		if _, _, err := GenerateContentArgs(c.b); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("error %v, want %q", err, c.msg)
		}
	}
}

// A request encoded by the core and decoded for the SDK in one go.
func TestFromRequest(t *testing.T) {
	req := provider.Request{
		System: []provider.Part{{Key: "rules", Text: "Answer in French.", Stable: true}},
		User:   []provider.Part{{Key: "task", Text: "Say hello."}},
		Output: &provider.Output{Schema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"lang":{"type":"string"}},"required":["text","lang"]}`)},
	}
	body, err := provider.Encode(provider.Gemini, req, provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	contents, config, err := GenerateContentArgs(body)
	if err != nil {
		t.Fatal(err)
	}
	client, wire := sent(t)
	if _, err := client.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, config); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(wire.Body), `"properties":{"text":{"type":"string"},"lang":{"type":"string"}}`) {
		t.Errorf("property order lost on the wire: %s", wire.Body)
	}
}
