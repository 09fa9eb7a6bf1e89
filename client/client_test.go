package client

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"
)

// testClient returns a client of srv on clk, and a channel told of the
// end of each background refresh.
func testClient(t *testing.T, srv *fakeServer, clk *clock, opts Options) (*Client, chan string) {
	t.Helper()
	opts.BaseURL = srv.URL
	if opts.PublicKey == "" {
		opts.PublicKey, opts.SecretKey = "pk-test", "sk-test"
	}
	opts.Now = clk.Now
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	refreshed := make(chan string, 16)
	c.afterRefresh = func(name string) { refreshed <- name }
	t.Cleanup(func() { c.Close() })
	return c, refreshed
}

func wait(t *testing.T, ch chan string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("no refresh ended")
	}
}

func get(t *testing.T, c *Client, name string, opts GetOptions) *Prompt {
	t.Helper()
	p, err := c.Get(context.Background(), name, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Within the TTL a prompt comes from the cache; past it, the stale copy
// is returned at once while one refresh runs, and an unchanged prompt
// costs a 304.
func TestCacheAndRevalidate(t *testing.T) {
	srv := newFakeServer(t)
	srv.add("review/code", "Review {{ file }} for {{lang}}.", "production", "staging")
	clk := newClock()
	c, refreshed := testClient(t, srv, clk, Options{})
	p := get(t, c, "review/code", GetOptions{})
	if p.Text != "Review {{ file }} for {{lang}}." || p.Version != 1 || p.Stale || p.Fallback || p.Hash != hashOf(p.Text) ||
		strings.Join(p.Labels, ",") != "production,staging" || p.CommitMessage != "version 1" || len(p.Sources) != 1 || string(p.Config) != `{"preset":"template"}` {
		t.Fatalf("first get: %+v", p)
	}
	if got := srv.request(0); got != "/api/public/v2/prompts/review%2Fcode?label=production" {
		t.Fatalf("request %s: the name must be one escaped path segment", got)
	}
	clk.Add(59 * time.Second)
	if p := get(t, c, "review/code", GetOptions{}); p.Stale || srv.count() != 1 {
		t.Fatalf("within the TTL: stale %v, %d requests", p.Stale, srv.count())
	}
	clk.Add(2 * time.Second)
	// Many callers past the TTL: each gets the stale copy at once, and
	// one refresh runs (held at the server until they all have).
	gate := srv.hold()
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if p := get(t, c, "review/code", GetOptions{}); !p.Stale || p.Version != 1 {
				t.Errorf("past the TTL: %+v", p)
			}
		})
	}
	wg.Wait()
	srv.mu.Lock()
	srv.gate = nil
	srv.mu.Unlock()
	close(gate)
	wait(t, refreshed)
	if srv.count() != 2 || srv.statusCount(304) != 1 {
		t.Fatalf("%d requests, %d 304s; want one refresh answered 304", srv.count(), srv.statusCount(304))
	}
	if p := get(t, c, "review/code", GetOptions{}); p.Stale {
		t.Fatal("a revalidated prompt is still stale")
	}
	// A new version behind the label is picked up at the next refresh.
	srv.add("review/code", "Review {{file}} twice.", "production")
	clk.Add(61 * time.Second)
	if p := get(t, c, "review/code", GetOptions{}); !p.Stale || p.Version != 1 {
		t.Fatalf("stale copy: %+v", p)
	}
	wait(t, refreshed)
	if p := get(t, c, "review/code", GetOptions{}); p.Stale || p.Version != 2 || p.Text != "Review {{file}} twice." {
		t.Fatalf("after the refresh: %+v", p)
	}
	// staging still points at version 1, cached on its own.
	if p := get(t, c, "review/code", GetOptions{Label: "staging"}); p.Version != 1 {
		t.Fatalf("staging: %+v", p)
	}
	if p := get(t, c, "review/code", GetOptions{Version: 2}); p.Version != 2 || srv.request(-1) != "/api/public/v2/prompts/review%2Fcode?version=2" {
		t.Fatalf("by version: %+v %v", p, srv.request(-1))
	}
}

// A failed refresh keeps the stale copy in service and is tried again
// after a backoff, not on every call.
func TestStaleWhenServerFails(t *testing.T) {
	srv := newFakeServer(t)
	srv.add("p", "text", "production")
	clk := newClock()
	var mu sync.Mutex
	var failures []string
	c, refreshed := testClient(t, srv, clk, Options{OnRefreshError: func(name string, err error) {
		mu.Lock()
		defer mu.Unlock()
		failures = append(failures, name+": "+err.Error())
	}})
	get(t, c, "p", GetOptions{})
	srv.setDown(true)
	clk.Add(61 * time.Second)
	if p := get(t, c, "p", GetOptions{}); !p.Stale || p.Text != "text" {
		t.Fatalf("stale copy: %+v", p)
	}
	wait(t, refreshed)
	n := srv.count()
	for range 5 {
		if p := get(t, c, "p", GetOptions{}); !p.Stale || p.Text != "text" {
			t.Fatalf("after a failed refresh: %+v", p)
		}
	}
	if srv.count() != n {
		t.Fatalf("%d requests within the backoff", srv.count()-n)
	}
	mu.Lock()
	if len(failures) != 1 || !strings.Contains(failures[0], "503: down for maintenance") {
		t.Fatalf("refresh errors: %q", failures)
	}
	mu.Unlock()
	clk.Add(retryBackoff)
	srv.setDown(false)
	get(t, c, "p", GetOptions{})
	wait(t, refreshed)
	if p := get(t, c, "p", GetOptions{}); p.Stale {
		t.Fatal("still stale once the server is back")
	}
}

// A label removed on the server is noticed at the next refresh and never
// served again (langfuse#10138).
func TestRemovedLabelEvicted(t *testing.T) {
	srv := newFakeServer(t)
	srv.add("p", "text", "production", "canary")
	clk := newClock()
	c, refreshed := testClient(t, srv, clk, Options{Fallback: fstest.MapFS{
		"manifest.json": {Data: []byte(`{"prompts":[{"path":"p.txt","hash":"` + hashOf("embedded") + `"}]}`)},
		"p.txt":         {Data: []byte("embedded")},
	}})
	get(t, c, "p", GetOptions{Label: "canary"})
	srv.removeLabel("p", "canary")
	clk.Add(61 * time.Second)
	if p := get(t, c, "p", GetOptions{Label: "canary"}); !p.Stale {
		t.Fatalf("the refresh should start on this call: %+v", p)
	}
	wait(t, refreshed)
	_, err := c.Get(context.Background(), "p", GetOptions{Label: "canary"})
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "404: prompt p has no label canary") {
		t.Fatalf("a removed label: %v", err)
	}
	// The server said no: the embedded copy does not stand in.
	if _, err := c.Get(context.Background(), "p", GetOptions{Label: "canary"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("asked again: %v", err)
	}
}

// A prompt not cached while the server is down comes from the compiled
// catalog, flagged; nothing else does.
func TestFallback(t *testing.T) {
	srv := newFakeServer(t)
	fsys := fstest.MapFS{
		"manifest.json":           {Data: []byte(`{"tessera_version":"0.1.0","prompts":[{"workflow":"wf","node":"n","path":"wf/n.txt","hash":"` + hashOf("Hello {{name}}") + `","bytes":14},{"path":"wf/bad.txt","hash":"` + hashOf("x") + `"}]}`)},
		"wf/n.txt":                {Data: []byte("Hello {{name}}")},
		"wf/bad.txt":              {Data: []byte("changed")},
		"unrelated/manifest.json": {Data: []byte("{}")},
	}
	clk := newClock()
	c, _ := testClient(t, srv, clk, Options{Fallback: fsys})
	srv.setDown(true)
	p, err := c.Get(context.Background(), "wf/n", GetOptions{})
	if err != nil || !p.Fallback || p.Text != "Hello {{name}}" || p.Compile(map[string]any{"name": "Ada"}) != "Hello Ada" {
		t.Fatalf("fallback: %+v %v", p, err)
	}
	if _, err := c.Get(context.Background(), "wf/bad", GetOptions{}); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("a fallback file that does not match its hash is not served: %v", err)
	}
	if _, err := c.Get(context.Background(), "wf/n", GetOptions{Version: 1}); err == nil {
		t.Fatal("a version fell back: the compiled catalog has no versions")
	}
	if p, err := c.ByHash(context.Background(), hashOf("Hello {{name}}")); err != nil || !p.Fallback || p.Name != "wf/n" {
		t.Fatalf("by hash: %+v %v", p, err)
	}
	srv.setDown(false)
	srv.add("wf/n", "Hello from the server", "production")
	if p := get(t, c, "wf/n", GetOptions{}); p.Fallback || p.Text != "Hello from the server" {
		t.Fatalf("the fallback was cached: %+v", p)
	}
	// Unreachable: a closed server.
	srv.Close()
	c2, _ := testClient(t, srv, clk, Options{Fallback: fsys})
	if p, err := c2.Get(context.Background(), "wf/n", GetOptions{}); err != nil || !p.Fallback {
		t.Fatalf("server gone: %+v %v", p, err)
	}
	if _, err := c2.Get(context.Background(), "other", GetOptions{}); err == nil {
		t.Fatal("a prompt in neither place was served")
	}
	for _, bad := range []fstest.MapFS{{}, {"manifest.json": {Data: []byte("[")}}, {"manifest.json": {Data: []byte(`{"prompts":[{"path":"../x.txt","hash":"` + hashOf("") + `"}]}`)}}} {
		if _, err := New(Options{BaseURL: "http://127.0.0.1:1", Fallback: bad}); err == nil {
			t.Errorf("fallback %v accepted", bad)
		}
	}
}

// A prompt by hash is asked for once, and cached for ever.
func TestByHash(t *testing.T) {
	srv := newFakeServer(t)
	srv.add("p", "one", "production")
	srv.add("p", "two", "production")
	clk := newClock()
	c, _ := testClient(t, srv, clk, Options{})
	for range 3 {
		p, err := c.ByHash(context.Background(), hashOf("one"))
		if err != nil || p.Text != "one" || p.Version != 1 {
			t.Fatalf("by hash: %+v %v", p, err)
		}
		clk.Add(365 * 24 * time.Hour)
	}
	if srv.count() != 1 || srv.request(0) != "/api/tessera/v1/prompts/by-hash/"+hashOf("one")+"?" {
		t.Fatalf("requests: %d, the first %s", srv.count(), srv.request(0))
	}
	if _, err := c.ByHash(context.Background(), hashOf("three")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown hash: %v", err)
	}
	if _, err := c.ByHash(context.Background(), "ABC"); err == nil {
		t.Fatal("a bad hash was asked for")
	}
}

// Callers missing the same prompt at once share one request.
func TestMissCoalesced(t *testing.T) {
	srv := newFakeServer(t)
	srv.add("p", "text", "production")
	gate := srv.hold()
	c, _ := testClient(t, srv, newClock(), Options{})
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { get(t, c, "p", GetOptions{}) })
	}
	// Let the callers queue behind the first request, then answer it.
	for range 100 {
		c.mu.Lock()
		n := len(c.inflight)
		c.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	close(gate)
	wg.Wait()
	if n := srv.count(); n != 1 {
		t.Fatalf("%d requests for one prompt", n)
	}
}

func TestErrors(t *testing.T) {
	srv := newFakeServer(t)
	srv.add("p", "text", "production")
	c, _ := testClient(t, srv, newClock(), Options{PublicKey: "pk-test", SecretKey: "wrong"})
	_, err := c.Get(context.Background(), "p", GetOptions{})
	var e *Error
	if !errors.As(err, &e) || e.Status != 401 || e.Message != "unknown key pair" || errors.Is(err, ErrNotFound) {
		t.Fatalf("bad key: %v", err)
	}
	for _, o := range []GetOptions{{Label: "a", Version: 1}, {Version: -1}} {
		if _, err := c.Get(context.Background(), "p", o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if _, err := c.Get(context.Background(), "", GetOptions{}); err == nil {
		t.Error("an empty name was asked for")
	}
	for _, u := range []string{"", "localhost:3000", "ftp://x", "http://"} {
		if _, err := New(Options{BaseURL: u}); err == nil {
			t.Errorf("base URL %q accepted", u)
		}
	}
}

// TTL < 0 turns the cache off; a per-call TTL overrides the client's.
func TestTTLOptions(t *testing.T) {
	srv := newFakeServer(t)
	srv.add("p", "text", "production")
	clk := newClock()
	c, _ := testClient(t, srv, clk, Options{TTL: -1})
	get(t, c, "p", GetOptions{})
	get(t, c, "p", GetOptions{})
	if srv.count() != 2 {
		t.Fatalf("no cache: %d requests", srv.count())
	}
	c2, _ := testClient(t, srv, clk, Options{})
	get(t, c2, "p", GetOptions{TTL: time.Hour})
	clk.Add(30 * time.Minute)
	if p := get(t, c2, "p", GetOptions{TTL: time.Hour}); p.Stale || srv.count() != 3 {
		t.Fatalf("per-call TTL: %+v, %d requests", p, srv.count())
	}
}

// Close ends every background refresh: no goroutine outlives the client.
func TestCloseLeavesNoGoroutine(t *testing.T) {
	srv := newFakeServer(t)
	srv.add("p", "text", "production")
	before := runtime.NumGoroutine()
	clk := newClock()
	c, err := New(Options{BaseURL: srv.URL, PublicKey: "pk-test", SecretKey: "sk-test", Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	get(t, c, "p", GetOptions{})
	// A refresh that hangs until Close cancels it.
	gate := srv.hold()
	clk.Add(time.Hour)
	get(t, c, "p", GetOptions{})
	done := make(chan struct{})
	go func() { c.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waits for a hung refresh")
	}
	close(gate)
	if _, err := c.Get(context.Background(), "p", GetOptions{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Get after Close: %v", err)
	}
	srv.Close()
	for i := 0; ; i++ {
		if n := runtime.NumGoroutine(); n <= before {
			break
		} else if i == 200 {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCompile(t *testing.T) {
	p := &Prompt{Text: "Hi {{name}}, {{ name }} of {{place}}; {{missing}} {{nil}} {{n}} {{ unclosed"}
	got := p.Compile(map[string]any{"name": "Ada", "place": "{{name}}", "nil": nil, "n": 3})
	if want := "Hi Ada, Ada of {{name}}; {{missing}}  3 {{ unclosed"; got != want {
		t.Fatalf("Compile:\n got %q\nwant %q", got, want)
	}
	if p.Compile(nil) != p.Text {
		t.Fatal("Compile(nil) changed the text")
	}
	if v := fmt.Sprint(p.Variables()); v != "[name place missing nil n]" {
		t.Fatalf("Variables: %s", v)
	}
	chat := &Prompt{Type: "chat", Messages: []Message{{Role: "system", Content: "You help {{who}}."}, {Type: "placeholder", Name: "history"}}}
	msgs := chat.CompileMessages(map[string]any{"who": "Ada"})
	if msgs[0].Content != "You help Ada." || chat.Messages[0].Content != "You help {{who}}." || msgs[1].Name != "history" {
		t.Fatalf("CompileMessages: %+v", msgs)
	}
}

func TestChatPrompt(t *testing.T) {
	srv := newFakeServer(t)
	srv.add("c", "You answer {{topic}} questions.", "production")
	srv.mu.Lock()
	srv.chat["c"] = true
	srv.mu.Unlock()
	c, _ := testClient(t, srv, newClock(), Options{})
	p := get(t, c, "c", GetOptions{})
	if p.Type != "chat" || len(p.Messages) != 2 || p.Text != "" {
		t.Fatalf("chat prompt: %+v", p)
	}
	msgs := p.CompileMessages(map[string]any{"topic": "Go", "question": "Why?"})
	if msgs[0].Content != "You answer Go questions." || msgs[1].Content != "Why?" {
		t.Fatalf("compiled: %+v", msgs)
	}
	// The caller's copy is its own.
	p.Messages[0].Content = "changed"
	if q := get(t, c, "c", GetOptions{}); q.Messages[0].Content == "changed" {
		t.Fatal("a caller changed the cache")
	}
}

// A caller that gives up while a shared fetch runs does not fail the
// callers waiting for the same prompt.
func TestCallerGivesUp(t *testing.T) {
	srv := newFakeServer(t)
	srv.add("p", "text", "production")
	gate := srv.hold()
	c, _ := testClient(t, srv, newClock(), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		_, err := c.Get(ctx, "p", GetOptions{})
		first <- err
	}()
	for {
		c.mu.Lock()
		n := len(c.inflight)
		c.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	second := make(chan error, 1)
	go func() {
		_, err := c.Get(context.Background(), "p", GetOptions{})
		second <- err
	}()
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("the caller who gave up: %v", err)
	}
	close(gate)
	if err := <-second; err != nil {
		t.Fatalf("the caller who waited: %v", err)
	}
}
