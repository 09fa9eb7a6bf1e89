package layered

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-dev/tessera/embed"
	"github.com/tessera-dev/tessera/preset/layered/untrusted"
)

// fakeServer is an OpenAI-compatible embeddings endpoint on loopback:
// each text's vector is embed.Hash's of dim numbers.
type fakeServer struct {
	dim   int
	key   string
	mu    sync.Mutex
	calls int
	texts int
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if f.key != "" && r.Header.Get("Authorization") != "Bearer "+f.key {
		http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.texts += len(req.Input)
	f.mu.Unlock()
	type item struct {
		Index     int          `json:"index"`
		Embedding embed.Vector `json:"embedding"`
	}
	var data []item
	for i, t := range req.Input {
		data = append(data, item{i, embed.Hash{Dim: f.dim}.Vector(t)})
	}
	json.NewEncoder(w).Encode(map[string]any{"data": data})
}

func (f *fakeServer) take() (calls, texts int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	calls, texts, f.calls, f.texts = f.calls, f.texts, 0, 0
	return calls, texts
}

// memFiles reads a setup from a map of file names to contents.
func memFiles(files map[string]string) ReadFunc {
	return func(name string) (string, []byte, error) {
		if s, ok := files[name]; ok {
			return name, []byte(s), nil
		}
		return name, nil, fmt.Errorf("open %s: %w", name, fs.ErrNotExist)
	}
}

const endpointYAML = `embedder: {type: openai-compatible, base_url: %s, model: fake, api_key_env: LAYERED_TEST_KEY}
scores: {min: 0.1}
tools:
  - {name: read_file, description: Read a file.}
  - {name: run_tests, description: Run the test suite., keywords: [test, tests, failing]}
skills:
  - {name: write_tests, description: Add tests that fail before a fix., keywords: [tests]}
`

// TestEndpointEmbedder: layered.yaml's endpoint is the Assembler's
// embedder; the first assembly embeds the manifests and the task (two
// calls, reported as two); with vectors made in advance one call, for
// the task; a task seen before none.
func TestEndpointEmbedder(t *testing.T) {
	f := &fakeServer{dim: 24, key: "sk-1"}
	srv := httptest.NewServer(f) // loopback only
	defer srv.Close()
	t.Setenv("LAYERED_TEST_KEY", "sk-1")
	files := map[string]string{"layered.yaml": fmt.Sprintf(endpointYAML, srv.URL+"/v1")}
	s, err := ParseSetup(memFiles(files))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sel, err := (&Assembler{Setup: s}).Select(ctx, Request{Task: "Fix the failing tests"})
	if err != nil {
		t.Fatal(err)
	}
	if calls, _ := f.take(); sel.Metrics.EmbeddingCalls != 2 || calls != 2 || sel.Metrics.Embedder != "openai-compatible/fake" {
		t.Fatalf("first assembly: metrics %+v, %d requests, want 2", sel.Metrics, calls)
	}

	e, err := s.NewEmbedder(func(string) string { return "sk-1" }, nil)
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	v, n, err := EmbedVectors(ctx, s, e, nil, false, 2, func(done, total int) { steps = append(steps, fmt.Sprintf("%d/%d", done, total)) })
	if err != nil {
		t.Fatal(err)
	}
	if v.Embedder != "openai-compatible/fake" || v.Dimension != 24 || n != len(s.Tools)+len(s.Skills)+len(v.Injection) || steps[0] != fmt.Sprintf("0/%d", n) || steps[len(steps)-1] != fmt.Sprintf("%d/%d", n, n) {
		t.Fatalf("vectors %s/%d, %d embedded, progress %v", v.Embedder, v.Dimension, n, steps)
	}
	if calls, _ := f.take(); calls != (n+1)/2 {
		t.Errorf("%d requests for %d texts in batches of 2", calls, n)
	}
	files["vectors.json"] = string(v.Marshal())
	s, err = ParseSetup(memFiles(files))
	if err != nil {
		t.Fatal(err)
	}
	a := &Assembler{Setup: s}
	for i, want := range []int{1, 0} {
		sel, err = a.Select(ctx, Request{Task: "Fix the failing tests"})
		if err != nil {
			t.Fatal(err)
		}
		if calls, _ := f.take(); sel.Metrics.EmbeddingCalls != want || calls != want {
			t.Errorf("assembly %d with vectors: metrics %+v, %d requests, want %d", i+1, sel.Metrics, calls, want)
		}
	}
	if !slices.ContainsFunc(sel.Tools, func(p Pick) bool { return p.Name == "run_tests" }) {
		t.Errorf("tools %+v", sel.Tools)
	}

	// Everything kept: nothing is embedded again, and the bytes are the same.
	again, n, err := EmbedVectors(ctx, s, e, s.Vectors, false, 0, nil)
	if err != nil || n != 0 || string(again.Marshal()) != files["vectors.json"] {
		t.Errorf("again: %d embedded, %v", n, err)
	}
	if _, n, _ = EmbedVectors(ctx, s, e, s.Vectors, true, 0, nil); n == 0 {
		t.Error("force embedded nothing")
	}

	// The key's variable unset: an error naming it, before any request.
	t.Setenv("LAYERED_TEST_KEY", "")
	if _, err := (&Assembler{Setup: s}).Select(ctx, Request{Task: "x"}); err == nil || !strings.Contains(err.Error(), "layered.yaml:1:11: embedder: the environment variable LAYERED_TEST_KEY holds no API key") {
		t.Errorf("unset key: %v", err)
	}
}

// TestVectorMismatch: a manifest vector from another embedder, made from
// another text, or of another length is an error naming the entry,
// unless the Assembler re-embeds; the lexical embedder standing in for a
// failed one ignores them.
func TestVectorMismatch(t *testing.T) {
	ctx := context.Background()
	base := "tools:\n  - {name: read_file, description: Read a file.}\n  - {name: run_tests, description: Run the tests.}\n"
	other, _, err := EmbedVectors(ctx, mustSetup(t, map[string]string{"layered.yaml": base}), embed.Hash{Dim: 16}, nil, false, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		files   map[string]string
		want    string
		reembed int // calls with Reembed: manifests and task
	}{
		{"another embedder", map[string]string{"layered.yaml": base, "vectors.json": string(other.Marshal())},
			`vectors.json: tools "read_file": its vector is from hash-v1/16, and the setup embeds with hash-v1/256: run tessera layered embed, or re-embed at assembly (--layered-reembed)`, 2},
		{"stale", map[string]string{"layered.yaml": base, "vectors.json": staleVectors(t, base)},
			`vectors.json: tools "run_tests": its vector was made from another text`, 2},
		{"inline of another embedder", map[string]string{"layered.yaml": base + "  - {name: x, description: y, embedder: other/1, embedding: [1]}\n"},
			`layered.yaml:4:5: tools "x": its vector is from other/1, and the setup embeds with hash-v1/256`, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := mustSetup(t, tt.files)
			_, err := (&Assembler{Setup: s}).Select(ctx, Request{Task: "read the file"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v\nwant %s", err, tt.want)
			}
			if !isSetupError(err) {
				t.Error("not a setup error: the lexical embedder would stand in")
			}
			sel, err := (&Assembler{Setup: s, Reembed: true}).Select(ctx, Request{Task: "read the file"})
			if err != nil || sel.Metrics.EmbeddingCalls != tt.reembed {
				t.Fatalf("re-embedded: %v, %+v", err, sel)
			}
		})
	}
	// The lexical embedder checks inline vectors when the setup is read.
	_, err = ParseSetup(memFiles(map[string]string{"layered.yaml": "tools:\n  - {name: a, embedding: [0.1, 0.2]}\n"}))
	if err == nil || !strings.Contains(err.Error(), `layered.yaml:2:5: tools "a": its embedding has 2 numbers, and the embedder hash-v1/256 makes 256`) {
		t.Errorf("two numbers: %v", err)
	}
	// An endpoint's inline vector of the wrong length is found at first use.
	f := &fakeServer{dim: 8}
	srv := httptest.NewServer(f)
	defer srv.Close()
	yml := fmt.Sprintf("embedder: {type: openai-compatible, base_url: %s/v1, model: fake}\ntools:\n  - {name: a, description: b, embedding: [0.1, 0.2]}\n  - {name: c, description: d}\n", srv.URL)
	_, err = (&Assembler{Setup: mustSetup(t, map[string]string{"layered.yaml": yml})}).Select(ctx, Request{Task: "x"})
	if err == nil || !strings.Contains(err.Error(), `layered.yaml:3:5: tools "a": its vector has 2 numbers, and openai-compatible/fake makes 8`) {
		t.Errorf("endpoint, two numbers: %v", err)
	}
	// Re-embedding: the vector of the wrong length is made again, in a
	// call of its own once the length is known.
	f.take()
	sel, err := (&Assembler{Setup: mustSetup(t, map[string]string{"layered.yaml": yml}), Reembed: true}).Select(ctx, Request{Task: "x"})
	if calls, _ := f.take(); err != nil || sel.Metrics.EmbeddingCalls != 3 || calls != 3 {
		t.Errorf("endpoint, two numbers, re-embedded: %v, %d requests, %+v", err, calls, sel)
	}
	// A failing embedder: the lexical one stands in, whatever the vectors.
	failing := &countingEmbedder{fail: true}
	sel, err = (&Assembler{Setup: mustSetup(t, map[string]string{"layered.yaml": base}), Embedder: failing}).Select(ctx, Request{Task: "read"})
	if err != nil || sel.Metrics.Embedder != "hash-v1/256" || !strings.Contains(sel.Metrics.Fallback, "service unavailable") || sel.Metrics.EmbeddingCalls != 3 {
		t.Errorf("fallback: %v %+v", err, sel)
	}
}

func mustSetup(t *testing.T, files map[string]string) *Setup {
	t.Helper()
	s, err := ParseSetup(memFiles(files))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustVectors(t *testing.T, yml string) *Vectors {
	t.Helper()
	v, _, err := EmbedVectors(context.Background(), mustSetup(t, map[string]string{"layered.yaml": yml}), embed.Hash{}, nil, false, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// staleVectors are the vectors of yml made when run_tests said otherwise.
func staleVectors(t *testing.T, yml string) string {
	return string(mustVectors(t, strings.Replace(yml, "Run the tests.", "Run every test.", 1)).Marshal())
}

func TestParseEmbedderConfig(t *testing.T) {
	for _, tt := range []struct{ yml, want string }{
		{"embedder: ollama\n", `layered.yaml:1:11: embedder: "ollama": write lexical, or a mapping`},
		{"embedder: [a]\n", "layered.yaml:1:11: embedder: want lexical, or a mapping"},
		{"embedder: {type: nope}\n", `layered.yaml:1:12: embedder.type "nope": use lexical or openai-compatible`},
		{"embedder: {type: openai-compatible, model: m}\n", "embedder: no base_url"},
		{"embedder: {type: openai-compatible, base_url: 'http://x/v1'}\n", "embedder: no model"},
		{"embedder: {type: openai-compatible, base_url: 'localhost:1/v1', model: m}\n", `embedder.base_url "localhost:1/v1": want http:// or https://`},
		{"embedder: {type: openai-compatible, base_url: 'http://x/v1', model: m, api_key_env: 'sk-abc'}\n", `embedder.api_key_env "sk-abc": want the NAME of an environment variable`},
		{"embedder: {type: openai-compatible, base_url: 'http://x/v1', model: m, timeout: soon}\n", `embedder.timeout "soon": want a duration`},
		{"embedder: {model: m}\n", "embedder.model: the lexical embedder takes none"},
		{"embedder: {dimensions: -1}\n", "embedder.dimensions -1: want 1 to 65536"},
		{"embedder: {type: lexical, base: x}\n", `unknown key "base"`},
	} {
		_, err := ParseSetup(memFiles(map[string]string{"layered.yaml": tt.yml}))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q:\n got %v\nwant %s", tt.yml, err, tt.want)
		}
	}
	s := mustSetup(t, map[string]string{"layered.yaml": "embedder: {type: openai, base_url: 'http://127.0.0.1:11434/v1', model: nomic-embed-text, timeout: 5s, dimensions: 64}\ntools: [{name: a, embedder: openai-compatible/nomic-embed-text/64, embedding: [1]}]\n"})
	e, err := s.NewEmbedder(nil, nil)
	if err != nil || e.Name() != "openai-compatible/nomic-embed-text/64" {
		t.Fatalf("%v %v", e, err)
	}
	s = mustSetup(t, map[string]string{"layered.yaml": "embedder: lexical\n"})
	if e, err := s.NewEmbedder(nil, nil); err != nil || e.Name() != "hash-v1/256" {
		t.Fatalf("lexical: %v %v", e, err)
	}
}

func TestParseVectors(t *testing.T) {
	v := mustVectors(t, "tools: [{name: a, description: b}]\nskills: [{name: c}]\n")
	data := v.Marshal()
	back, err := ParseVectors("vectors.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if string(back.Marshal()) != string(data) {
		t.Error("not the same bytes after a round trip")
	}
	if lines := strings.Count(string(data), "\n"); lines != 4+len(v.Tools)+len(v.Skills)+len(v.Injection) {
		t.Errorf("%d lines: want one a vector", lines)
	}
	for _, tt := range []struct{ src, want string }{
		{`{"embedder":"e","dimension":1,` + "\n" + `"tools":[{"name":"a","sha256":"x","embedding":[1]}]}`, `vectors.json: tools[0] ("a"): sha256 "x": want the 64 hex digits`},
		{`{"embedder":"e","dimension":2,"tools":[{"name":"a","sha256":"` + strings.Repeat("a", 64) + `","embedding":[1]}]}`, `tools[0] ("a"): 1 numbers, the file's dimension is 2`},
		{`{"embedder":"","dimension":0}`, "embedder is empty"},
		{"{\"embedder\":\"e\",\n\"dimension\":\"x\"}", `vectors.json:2:16: dimension: want int, not a JSON string`},
		{"{\"embedder\":\"e\",\n  \"tools\":[}", "vectors.json:2:12: invalid character '}'"},
		{`{"embedder":"e","dimension":1,"extra":1}`, `unknown field "extra"`},
		{`{"embedder":"e","dimension":1} {}`, "vectors.json:1:32: more than one JSON value"},
		{`{"embedder":"e","dimension":1,"injection":[{"name":"x","sha256":"` + strings.Repeat("a", 64) + `","embedding":[1]}]}`, "an injection example has no name"},
		{`{"embedder":"e","dimension":1,"tools":[{"name":"a","sha256":"` + strings.Repeat("a", 64) + `","embedding":[1e39]}]}`, "want float32"},
	} {
		_, err := ParseVectors("vectors.json", []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q:\n got %v\nwant %s", tt.src, err, tt.want)
		}
	}
}

// TestTaskCache: the Assembler keeps the last 100 tasks' vectors.
func TestTaskCache(t *testing.T) {
	e := &countingEmbedder{}
	a := &Assembler{Setup: mustSetup(t, map[string]string{"layered.yaml": "tools: [{name: a, description: b}]\n"}), Embedder: e}
	ctx := context.Background()
	calls := func(task string) int {
		t.Helper()
		sel, err := a.Select(ctx, Request{Task: task})
		if err != nil {
			t.Fatal(err)
		}
		return sel.Metrics.EmbeddingCalls
	}
	if n := calls("task 0"); n != 2 {
		t.Errorf("first: %d calls", n)
	}
	for i := 1; i < 100; i++ {
		calls(fmt.Sprint("task ", i))
	}
	if n := calls("task 0"); n != 0 {
		t.Errorf("task 0 among the last 100: %d calls", n)
	}
	calls("task 100") // evicts task 1, the least recently used
	if n := calls("task 1"); n != 1 {
		t.Errorf("task 1 evicted: %d calls", n)
	}
	if e.calls != 2+99+1+1 {
		t.Errorf("the embedder was called %d times", e.calls)
	}
	// Entries without a vector are embedded even when the task is cached.
	sel, err := a.Select(ctx, Request{Task: "task 1", Context: &untrusted.Context{Memories: []untrusted.Entry{{ID: "m", Text: "note"}}}})
	if err != nil || sel.Metrics.EmbeddingCalls != 1 || sel.Metrics.EntriesEmbedded != 1 {
		t.Errorf("cached task with an entry: %v %+v", err, sel.Metrics)
	}
	if errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}
