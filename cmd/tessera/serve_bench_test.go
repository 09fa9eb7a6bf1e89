package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/serve"
	"github.com/tessera-dev/tessera/serve/gittest"
)

// BenchmarkServeFetchSQLite is serve's cached fetch through the handler,
// in process, with the keys in the SQLite audit database that tessera
// serve uses by default: one indexed query per request checks the key.
func BenchmarkServeFetchSQLite(b *testing.B) {
	h, secret := benchServer(b)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", "/api/public/v2/prompts/pm_discovery.v1%2Fpgc?label=latest", nil)
			req.SetBasicAuth("pk-bench", secret)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkServeRefreshSQLite is one refresh that finds nothing new (a
// poll, through POST /api/tessera/v1/refresh) with ten labels set and the
// label refs recorded in the SQLite audit database: the refs read again,
// and the recorded label refs and pending moves read to compare with
// them.
func BenchmarkServeRefreshSQLite(b *testing.B) {
	h, secret := benchServer(b)
	do := func(method, path, body string) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.SetBasicAuth("pk-bench", secret)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
		}
	}
	for i := range 10 {
		do("PATCH", "/api/public/v2/prompts/pm_discovery.v1%2Fpgc/versions/1", fmt.Sprintf(`{"newLabels":["l%d"]}`, i))
	}
	b.ReportAllocs()
	for b.Loop() {
		do("POST", "/api/tessera/v1/refresh", "")
	}
}

// benchServer starts a server on a repository holding the example
// catalog, with its keys in a SQLite audit database, and returns its
// handler and the admin key pair's secret (public key "pk-bench").
func benchServer(b *testing.B) (http.Handler, string) {
	b.Helper()
	repo := gittest.New(b)
	repo.CopyDir(filepath.Join("..", "..", "examples"), "catalog")
	repo.Commit("add the catalog")
	st, closeStore, err := openStore(b.Context(), "sqlite:"+filepath.Join(b.TempDir(), "serve.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { closeStore() })
	const secret = "sk-bench-0123456789abcdef"
	srv, err := serve.New(b.Context(), serve.Config{Root: filepath.Join(repo.Dir, "catalog"), PollInterval: -1, Store: st, AdminPublicKey: "pk-bench", AdminSecretKey: secret})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	return srv.Handler(), secret
}
