package httpembed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/embed"
)

// fake is an OpenAI-compatible embeddings server on loopback: each text's
// vector is embed.Hash's of dimension dim, and the data come back in
// reverse order, as a server may send them.
type fake struct {
	dim   int
	key   string
	calls atomic.Int32
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":{"message":"no such route"}}`, http.StatusNotFound)
		return
	}
	if f.key != "" && r.Header.Get("Authorization") != "Bearer "+f.key {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided"}}`)
		return
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []item
	for i := len(req.Input) - 1; i >= 0; i-- {
		data = append(data, item{Index: i, Embedding: embed.Hash{Dim: f.dim}.Vector(req.Input[i])})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
}

func serve(t testing.TB, f http.Handler) string {
	t.Helper()
	s := httptest.NewServer(f) // loopback only
	t.Cleanup(s.Close)
	return s.URL + "/v1"
}

func TestEmbed(t *testing.T) {
	f := &fake{dim: 16, key: "sk-test"}
	c, err := New(serve(t, f)+"/", "nomic-embed-text", "sk-test")
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"read a file", "", "run the tests"}
	got, err := c.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, txt := range texts {
		if txt == "" {
			txt = " "
		}
		want := embed.Hash{Dim: 16}.Vector(txt)
		if embed.Cosine(got[i], want) < 0.9999 && txt != " " {
			t.Errorf("text %d: vector out of order", i)
		}
	}
	if f.calls.Load() != 1 {
		t.Errorf("%d requests, want 1", f.calls.Load())
	}
	if c.Name() != "openai-compatible/nomic-embed-text" {
		t.Errorf("name %q", c.Name())
	}
	c.Dimensions = 8
	if c.Name() != "openai-compatible/nomic-embed-text/8" {
		t.Errorf("name %q", c.Name())
	}
	c.ID = "ollama/nomic"
	if c.Name() != "ollama/nomic" {
		t.Errorf("name %q", c.Name())
	}
}

func TestErrors(t *testing.T) {
	f := &fake{dim: 4, key: "right"}
	base := serve(t, f)
	bad := func(body string, status int) string {
		return serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(status)
			fmt.Fprint(w, body)
		}))
	}
	for _, tt := range []struct {
		name string
		c    *Client
		want string
	}{
		{"wrong key", &Client{BaseURL: base, Model: "m", APIKey: "wrong"}, "/v1/embeddings: 401 Unauthorized: Incorrect API key provided: check the API key"},
		{"wrong path", &Client{BaseURL: base + "/x", Model: "m"}, "/v1/x/embeddings: 404 Not Found: no such route: check the base URL"},
		{"server error", &Client{BaseURL: bad(`{"error":"model \"m\" not found, try pulling it first"}`, 500), Model: "m"}, `: 500 Internal Server Error: model "m" not found, try pulling it first`},
		{"not json", &Client{BaseURL: bad(`<html>`, 200), Model: "m"}, ": 200 OK: the response is not an embeddings response"},
		{"too few", &Client{BaseURL: bad(`{"data":[{"index":0,"embedding":[1]}]}`, 200), Model: "m"}, "1 vectors for 2 texts"},
		{"index twice", &Client{BaseURL: bad(`{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`, 200), Model: "m"}, "data[1] has index 0: want each of 0 to 1 once"},
		{"index out of range", &Client{BaseURL: bad(`{"data":[{"index":0,"embedding":[1]},{"index":7,"embedding":[1]}]}`, 200), Model: "m"}, "data[1] has index 7"},
		{"lengths differ", &Client{BaseURL: bad(`{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1]}]}`, 200), Model: "m"}, "data[1] has 1 numbers, data[0] 2"},
		{"empty vector", &Client{BaseURL: bad(`{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[1]}]}`, 200), Model: "m"}, "data[0] has no embedding"},
		{"too large", &Client{BaseURL: bad(strings.Repeat(" ", 100), 200), Model: "m", MaxResponseBytes: 10}, "larger than 10 bytes"},
		{"no server", &Client{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}, "embeddings http://127.0.0.1:1/v1/embeddings: "},
		{"no model", &Client{BaseURL: base}, "no model"},
		{"bad url", &Client{BaseURL: "localhost:11434", Model: "m"}, `base URL "localhost:11434": want http:// or https://`},
		{"credentials in url", &Client{BaseURL: "http://u:p@127.0.0.1/v1", Model: "m"}, "without credentials"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.c.Embed(context.Background(), []string{"a", "b"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "wrong") && tt.c.APIKey == "wrong" {
				t.Errorf("the key leaked into %q", err)
			}
		})
	}
}

func TestTimeoutAndCancel(t *testing.T) {
	block := make(chan struct{})
	base := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer close(block)
	c := &Client{BaseURL: base, Model: "m", Timeout: 50 * time.Millisecond}
	_, err := c.Embed(context.Background(), []string{"x"})
	var he *Error
	if !errors.As(err, &he) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within 50ms") {
		t.Fatalf("timeout: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c.Timeout = 0
	if _, err := c.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if v, err := c.Embed(context.Background(), nil); v != nil || err != nil {
		t.Fatalf("no texts: %v %v", v, err)
	}
}

// BenchmarkEmbed is one request of 32 texts to a loopback server that
// answers with 32 vectors of 768 numbers it encoded in advance: the
// client's cost (encoding the request, the round trip, decoding and
// checking 24,576 numbers), not a model's.
func BenchmarkEmbed(b *testing.B) {
	texts := make([]string, 32)
	for i := range texts {
		texts[i] = fmt.Sprintf("tool %d: read a file of the repository and show its lines", i)
	}
	body, _ := json.Marshal(request{Model: "m", Input: texts})
	rec := httptest.NewRecorder()
	(&fake{dim: 768}).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/embeddings", strings.NewReader(string(body))))
	canned := rec.Body.Bytes()
	if rec.Code != http.StatusOK {
		b.Fatalf("%d %s", rec.Code, canned)
	}
	c := &Client{BaseURL: serve(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(canned)))
		w.Write(canned)
	})), Model: "m"}
	ctx := context.Background()
	b.SetBytes(int64(len(canned)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
}
