package anthropic

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

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/schema"
)

const reply = `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`

// sent starts a local server that records one request and answers it,
// and returns a client pointed at it and the record.
func sent(t *testing.T) (sdk.Client, *http.Request, *[]byte) {
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

type block struct {
	Type, Text   string
	CacheControl *struct{ Type string } `json:"cache_control"`
}

func TestMessageParams(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "provider", "testdata", "golden", "*", "anthropic.json"))
	if len(paths) < 4 {
		t.Fatalf("found %d golden Anthropic bodies, want at least 4", len(paths))
	}
	for _, path := range paths {
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
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
		client, req, wire := sent(t)
		if _, err := client.Messages.New(context.Background(), p); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if req.URL.Path != "/v1/messages" {
			t.Errorf("%s: sent to %s", path, req.URL.Path)
		}
		var x, y any
		json.Unmarshal(*wire, &x)
		json.Unmarshal(body, &y)
		if !reflect.DeepEqual(x, y) {
			t.Errorf("%s: the SDK sent\n%s\nbut the body is\n%s", path, *wire, body)
		}
		schemas := [][]any{}
		for i := range want.Tools {
			schemas = append(schemas, []any{"tools", i, "input_schema"})
		}
		if want.OutputConfig != nil {
			schemas = append(schemas, []any{"output_config", "format", "schema"})
		}
		for _, s := range schemas {
			if w, g := at(t, body, s...), at(t, *wire, s...); w == "" || g != w {
				t.Errorf("%s: schema at %v sent as\n%s\nwant, in the body's order,\n%s", path, s, g, w)
			}
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
	client, _, wire := sent(t)
	if _, err := client.Messages.New(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(*wire), `"properties":{"text":{"type":"string"},"lang":{"type":"string"}}`) {
		t.Errorf("property order lost on the wire: %s", *wire)
	}
}
