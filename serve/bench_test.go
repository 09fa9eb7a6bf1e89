package serve_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/serve"
	"github.com/tessera-dev/tessera/serve/gittest"
)

// benchServer is a server over a repository holding the example catalog
// in one commit.
func benchServer(b *testing.B) *serve.Server {
	b.Helper()
	repo := gittest.New(b)
	repo.CopyDir("../examples", "catalog")
	repo.Commit("add the catalog")
	srv, err := serve.New(b.Context(), serve.Config{Root: repo.Dir + "/catalog", PollInterval: -1, AdminPublicKey: "pk", AdminSecretKey: "sk"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	return srv
}

// BenchmarkFetch is a cached fetch by label through the handler, in
// process: what one request costs without the network.
func BenchmarkFetch(b *testing.B) {
	h := benchServer(b).Handler()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", "/api/public/v2/prompts/pm_discovery.v1%2Fpgc?label=latest", nil)
			req.SetBasicAuth("pk", "sk")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkFetchLoopback is a cached fetch by label over HTTP on
// loopback, with as many clients as GOMAXPROCS×4 keeping their
// connections; it reports requests per second and the 99th percentile
// latency.
func BenchmarkFetchLoopback(b *testing.B) {
	benchLoopback(b, "GET", "/api/public/v2/prompts/pm_discovery.v1%2Fpgc?label=latest", "")
}

// BenchmarkRenderLoopback is a render (assembly and audit record in the
// in-memory store) over HTTP on loopback.
func BenchmarkRenderLoopback(b *testing.B) {
	benchLoopback(b, "POST", "/api/tessera/v1/render", `{"name":"pm_discovery.v1/pgc","label":"latest"}`)
}

func benchLoopback(b *testing.B, method, path, body string) {
	ts := httptest.NewServer(benchServer(b).Handler())
	defer ts.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var (
		mu   sync.Mutex
		lats []time.Duration
	)
	b.SetParallelism(4)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			var rd io.Reader
			if body != "" {
				rd = strings.NewReader(body)
			}
			req, _ := http.NewRequest(method, ts.URL+path, rd)
			req.SetBasicAuth("pk", "sk")
			start := time.Now()
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			mine = append(mine, time.Since(start))
			if resp.StatusCode != 200 {
				b.Fatalf("%s %s: %d", method, path, resp.StatusCode)
			}
		}
		mu.Lock()
		lats = append(lats, mine...)
		mu.Unlock()
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	if len(lats) > 0 {
		slices.Sort(lats)
		b.ReportMetric(float64(lats[len(lats)*99/100].Microseconds())/1000, "p99-ms")
	}
}
