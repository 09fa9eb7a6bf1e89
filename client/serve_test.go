package client_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/client"
	"github.com/tessera-dev/tessera/serve"
	"github.com/tessera-dev/tessera/serve/gittest"
)

// manualClock is a clock the test moves.
type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *manualClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// The client against tessera serve itself: a label set, fetched, cached,
// revalidated, fetched by hash, then removed and noticed.
func TestAgainstServe(t *testing.T) {
	repo := gittest.New(t)
	repo.CopyDir("../examples", "catalog")
	repo.Commit("add the catalog")
	ctx := t.Context()
	srv, err := serve.New(ctx, serve.Config{Root: repo.Dir + "/catalog", Store: serve.NewMemStore(),
		AdminPublicKey: "pk-admin", AdminSecretKey: "sk-admin-0123456789", PollInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	patch := func(body string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPatch, ts.URL+"/api/public/v2/prompts/pm_discovery.v1%2Fpgc/versions/1", strings.NewReader(body))
		req.SetBasicAuth("pk-admin", "sk-admin-0123456789")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("PATCH %s: %s", body, resp.Status)
		}
	}
	patch(`{"newLabels":["canary"]}`)

	clk := &manualClock{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	c, err := client.New(client.Options{BaseURL: ts.URL, PublicKey: "pk-admin", SecretKey: "sk-admin-0123456789", Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := c.Get(ctx, "pm_discovery.v1/pgc", client.GetOptions{Label: "canary"})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(p.Text))
	if p.Version != 1 || p.Type != "text" || p.Hash != hex.EncodeToString(sum[:]) || len(p.Commit) != 40 || !strings.Contains(strings.Join(p.Labels, ","), "canary") {
		t.Fatalf("from the server: %+v", p)
	}
	byHash, err := c.ByHash(ctx, p.Hash)
	if err != nil || byHash.Text != p.Text {
		t.Fatalf("by hash: %+v %v", byHash, err)
	}
	// Past the TTL: stale at once, then fresh again after a 304.
	clk.Add(61 * time.Second)
	if q, err := c.Get(ctx, "pm_discovery.v1/pgc", client.GetOptions{Label: "canary"}); err != nil || !q.Stale {
		t.Fatalf("past the TTL: %+v %v", q, err)
	}
	eventually(t, func() bool {
		q, err := c.Get(ctx, "pm_discovery.v1/pgc", client.GetOptions{Label: "canary"})
		return err == nil && !q.Stale && q.Hash == p.Hash
	})
	// The label is removed on the server: noticed at the next refresh.
	patch(`{"removeLabels":["canary"]}`)
	clk.Add(61 * time.Second)
	eventually(t, func() bool {
		_, err := c.Get(ctx, "pm_discovery.v1/pgc", client.GetOptions{Label: "canary"})
		return errors.Is(err, client.ErrNotFound)
	})
}

// eventually waits up to 10 s for ok.
func eventually(t *testing.T, ok func() bool) {
	t.Helper()
	for range 1000 {
		if ok() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("not within 10 s")
}
