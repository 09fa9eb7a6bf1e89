package gemini

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/schema"
	"google.golang.org/genai"
)

// sent starts a local server that records one request and answers it,
// and returns a client pointed at it and the record.
func sent(t *testing.T) (*genai.Client, *http.Request, *[]byte) {
	t.Helper()
	var req http.Request
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req = *r
		body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]}}]}`)
	}))
	t.Cleanup(srv.Close)
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      "test",
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, &req, &body
}

// at returns the compact JSON at a path of object keys and array indexes,
// members in their order; "" when the path leads nowhere.
func at(t *testing.T, data []byte, path ...any) string {
	t.Helper()
	v, err := schema.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	p := &v
	for _, k := range path {
		switch k := k.(type) {
		case string:
			p = p.Get(k)
		case int:
			if p.Kind != schema.Array || k >= len(p.Items) {
				return ""
			}
			p = &p.Items[k]
		}
		if p == nil {
			return ""
		}
	}
	return string(p.Append(nil))
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
	paths, _ := filepath.Glob(filepath.Join("..", "provider", "testdata", "golden", "*", "gemini.json"))
	if len(paths) < 4 {
		t.Fatalf("found %d golden Gemini bodies, want at least 4", len(paths))
	}
	for _, path := range paths {
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
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
		client, req, wire := sent(t)
		if _, err := client.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, config); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if req.URL.Path != "/v1beta/models/gemini-2.5-flash:generateContent" {
			t.Errorf("%s: sent to %s", path, req.URL.Path)
		}
		var x, y map[string]any
		json.Unmarshal(*wire, &x)
		json.Unmarshal(body, &y)
		// The SDK marks the system instruction as the user's; the body
		// leaves its role out, which the API reads the same way.
		if si, ok := x["systemInstruction"].(map[string]any); ok && si["role"] == "user" {
			delete(si, "role")
		}
		// It also sends an empty generationConfig when there is none.
		if gc, ok := x["generationConfig"].(map[string]any); ok && len(gc) == 0 && y["generationConfig"] == nil {
			delete(x, "generationConfig")
		}
		if !reflect.DeepEqual(x, y) {
			t.Errorf("%s: the SDK sent\n%s\nbut the body is\n%s", path, *wire, body)
		}
		var schemas [][]any
		for i, tl := range want.Tools {
			for j := range tl.FunctionDeclarations {
				schemas = append(schemas, []any{"tools", i, "functionDeclarations", j, "parametersJsonSchema"})
			}
		}
		if want.GenerationConfig != nil && want.GenerationConfig.ResponseMimeType != "" {
			schemas = append(schemas, []any{"generationConfig", "responseJsonSchema"})
		}
		for _, s := range schemas {
			if w, g := at(t, body, s...), at(t, *wire, s...); w == "" || g != w {
				t.Errorf("%s: schema at %v sent as\n%s\nwant, in the body's order,\n%s", path, s, g, w)
			}
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
	client, _, wire := sent(t)
	if _, err := client.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, config); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(*wire), `"properties":{"text":{"type":"string"},"lang":{"type":"string"}}`) {
		t.Errorf("property order lost on the wire: %s", *wire)
	}
}
