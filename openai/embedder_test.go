package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tessera-dev/tessera/embed"
	"github.com/tessera-dev/tessera/preset/layered"
)

func TestEmbedderRequestAndOrder(t *testing.T) {
	c, wire := sent(t, `{"object":"list","model":"text-embedding-3-small","data":[
		{"object":"embedding","index":1,"embedding":[0.5,0.25]},
		{"object":"embedding","index":0,"embedding":[1,0]}],
		"usage":{"prompt_tokens":3,"total_tokens":3}}`)
	e := &Embedder{Client: &c, Model: "text-embedding-3-small", Dimensions: 2}
	vs, err := e.Embed(context.Background(), []string{"fix the tests", ""})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0][0] != 1 || vs[1][0] != 0.5 {
		t.Errorf("vectors %v: not in the order of the texts", vs)
	}
	var req struct {
		Input          []string `json:"input"`
		Model          string   `json:"model"`
		Dimensions     int      `json:"dimensions"`
		EncodingFormat string   `json:"encoding_format"`
	}
	if err := json.Unmarshal(wire.Body, &req); err != nil {
		t.Fatal(err)
	}
	if wire.Path != "/embeddings" || req.Model != "text-embedding-3-small" || req.Dimensions != 2 || req.EncodingFormat != "float" || strings.Join(req.Input, "|") != "fix the tests| " {
		t.Errorf("request %s %+v", wire.Path, req)
	}
	if e.Name() != "openai/text-embedding-3-small/2" || (&Embedder{Model: "m"}).Name() != "openai/m" {
		t.Errorf("names %s", e.Name())
	}
}

func TestEmbedderBadResponse(t *testing.T) {
	for _, reply := range []string{
		`{"data":[{"index":0,"embedding":[1]}]}`,
		`{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`,
		`{"data":[{"index":5,"embedding":[1]},{"index":0,"embedding":[1]}]}`,
	} {
		c, _ := sent(t, reply)
		if _, err := (&Embedder{Client: &c, Model: "m"}).Embed(context.Background(), []string{"a", "b"}); err == nil || !strings.Contains(err.Error(), "openai embeddings (m)") {
			t.Errorf("%s: %v", reply, err)
		}
	}
}

// TestEmbedderSelects: the layered preset's selection through the
// embeddings API (a local server that answers with lexical vectors):
// the manifests in one request when the setup is first used, then one
// request per assembly.
func TestEmbedderSelects(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		body, _ := io.ReadAll(r.Body)
		var req struct{ Input []string }
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i, in := range req.Input {
			out.Data = append(out.Data, item{i, embed.Hash{}.Vector(in)})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	c := sdk.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	dir := filepath.Join("..", "examples", "layered")
	s, err := layered.ParseSetup(func(name string) (string, []byte, error) {
		data, err := os.ReadFile(filepath.Join(dir, name))
		return name, data, err
	})
	if err != nil {
		t.Fatal(err)
	}
	a := &layered.Assembler{Setup: s, Embedder: &Embedder{Client: &c, Model: "text-embedding-3-small"}}
	for i, task := range []string{"Review the diff for security problems", "Fix the failing tests", "Refactor the Total function"} {
		sel, err := a.Select(context.Background(), layered.Request{Task: task})
		if err != nil {
			t.Fatal(err)
		}
		if want := int32(i + 2); requests.Load() != want || sel.Metrics.Embedder != "openai/text-embedding-3-small" || sel.Metrics.Fallback != "" {
			t.Errorf("after %q: %d requests (want %d), metrics %+v", task, requests.Load(), want, sel.Metrics)
		}
		if i == 0 && (len(sel.Skills) == 0 || sel.Skills[0].Name != "security_review") {
			t.Errorf("skills %+v", sel.Skills)
		}
	}
}
