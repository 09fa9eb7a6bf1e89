package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tessera-dev/tessera/embed"
)

// fakeEmbed is an OpenAI-compatible embeddings server on loopback for
// the scripts: each text's vector is embed.Hash's of dim numbers.
type fakeEmbed struct {
	mu     sync.Mutex
	dim    int
	key    string
	calls  int
	texts  int
	status int
}

func (f *fakeEmbed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.status != 0 {
		w.WriteHeader(f.status)
		w.Write([]byte(`{"error":{"message":"model is loading"}}`))
		return
	}
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	if f.key != "" && r.Header.Get("Authorization") != "Bearer "+f.key {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":{"message":"invalid api key"}}`))
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
	f.texts += len(req.Input)
	type item struct {
		Index     int          `json:"index"`
		Embedding embed.Vector `json:"embedding"`
	}
	out := struct {
		Data []item `json:"data"`
	}{}
	for i, t := range req.Input {
		out.Data = append(out.Data, item{Index: i, Embedding: embed.Hash{Dim: f.dim}.Vector(req.Model + " " + t)})
	}
	json.NewEncoder(w).Encode(out)
}

// cmdFakeEmbed runs the scripts' fake embeddings server:
//
//	fakeembed start VAR DIM [KEY]  start one, its base URL (…/v1) in $VAR
//	fakeembed calls N [TEXTS]      fail unless it got N requests (and TEXTS texts) since the last check
//	fakeembed fail STATUS          answer every request with STATUS (0: answer again)
func cmdFakeEmbed(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: fakeembed start VAR DIM [KEY] | calls N [TEXTS] | fail STATUS")
	}
	f, _ := ts.Value(fakeEmbedKey{}).(*fakeEmbed)
	num := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			ts.Fatalf("fakeembed: %q is not a number", s)
		}
		return n
	}
	switch {
	case args[0] == "start" && (len(args) == 3 || len(args) == 4):
		f.dim = num(args[2])
		if len(args) == 4 {
			f.key = args[3]
		}
		s := httptest.NewServer(f) // loopback only
		ts.Defer(s.Close)
		ts.Setenv(args[1], s.URL+"/v1")
	case args[0] == "calls" && (len(args) == 2 || len(args) == 3):
		f.mu.Lock()
		calls, texts := f.calls, f.texts
		f.calls, f.texts = 0, 0
		f.mu.Unlock()
		if calls != num(args[1]) {
			ts.Fatalf("fakeembed: %d requests, want %s", calls, args[1])
		}
		if len(args) == 3 && texts != num(args[2]) {
			ts.Fatalf("fakeembed: %d texts embedded, want %s", texts, args[2])
		}
	case args[0] == "fail" && len(args) == 2:
		f.mu.Lock()
		f.status = num(args[1])
		f.mu.Unlock()
	default:
		ts.Fatalf("usage: fakeembed start VAR DIM [KEY] | calls N [TEXTS] | fail STATUS")
	}
}

// fakeEmbedKey keys each script's fake server in its values.
type fakeEmbedKey struct{}
