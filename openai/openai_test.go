package openai

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

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/schema"
)

// goldens returns the golden bodies of the core's tests whose file names
// match pattern, keyed by path, and fails when there are fewer than min.
func goldens(t *testing.T, pattern string, min int) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "provider", "testdata", "golden", "*", pattern))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < min {
		t.Fatalf("found %d golden bodies matching %s, want at least %d", len(paths), pattern, min)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = b
	}
	return out
}

// sent starts a local server that records one request and answers it
// with reply, and returns a client pointed at it and the record.
func sent(t *testing.T, reply string) (sdk.Client, *http.Request, *[]byte) {
	t.Helper()
	var req http.Request
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req = *r
		body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply)
	}))
	t.Cleanup(srv.Close)
	c := sdk.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	return c, &req, &body
}

// sameJSON fails unless a and b hold the same JSON values, whatever the
// order of their keys.
func sameJSON(t *testing.T, name string, a, b []byte) {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !reflect.DeepEqual(x, y) {
		t.Errorf("%s: the SDK sent\n%s\nbut the body is\n%s", name, a, b)
	}
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

// sameOrder fails unless the schema at path is the same, member order
// included, in the body and in what the SDK sent.
func sameOrder(t *testing.T, name string, body, wire []byte, path ...any) {
	t.Helper()
	want := at(t, body, path...)
	if want == "" {
		t.Fatalf("%s: the body has nothing at %v", name, path)
	}
	if got := at(t, wire, path...); got != want {
		t.Errorf("%s: schema at %v sent as\n%s\nwant, in the body's order,\n%s", name, path, got, want)
	}
}

func TestChatCompletionParams(t *testing.T) {
	for path, body := range goldens(t, "openai*.json", 10) {
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
		client, req, wire := sent(t, `{"id":"c","object":"chat.completion","created":0,"model":"m","choices":[]}`)
		if _, err := client.Chat.Completions.New(context.Background(), p); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if req.URL.Path != "/chat/completions" {
			t.Errorf("%s: sent to %s", path, req.URL.Path)
		}
		sameJSON(t, path, *wire, body)
		for i := range want.Tools {
			sameOrder(t, path, body, *wire, "tools", i, "function", "parameters")
		}
		if want.ResponseFormat != nil {
			sameOrder(t, path, body, *wire, "response_format", "json_schema", "schema")
		}
	}
}

func TestResponseParams(t *testing.T) {
	for path, body := range goldens(t, "openai-responses*.json", 5) {
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

		client, req, wire := sent(t, `{"id":"r","object":"response","created_at":0,"model":"m","output":[]}`)
		if _, err := client.Responses.New(context.Background(), p); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if req.URL.Path != "/responses" {
			t.Errorf("%s: sent to %s", path, req.URL.Path)
		}
		sameJSON(t, path, *wire, body)
		for i := range want.Tools {
			sameOrder(t, path, body, *wire, "tools", i, "parameters")
		}
		if want.Text != nil {
			sameOrder(t, path, body, *wire, "text", "format", "schema")
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
	client, _, wire := sent(t, `{"id":"c","object":"chat.completion","created":0,"model":"m","choices":[]}`)
	if _, err := client.Chat.Completions.New(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(*wire), `"properties":{"text":{"type":"string"},"lang":{"type":"string"}}`) {
		t.Errorf("property order lost on the wire: %s", *wire)
	}
}
