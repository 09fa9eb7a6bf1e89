package registry_test

import (
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/presets"
	"github.com/tessera-dev/tessera/serve/gittest"
	"github.com/tessera-dev/tessera/serve/registry"
)

// gitHTTP serves the bare repository at dir over HTTP on loopback, with
// Git's own smart HTTP server (git http-backend, as a forge runs it) and
// pushes allowed, and returns its URL. The registry's side needs no git
// binary; the test's server does, and the test skips without one.
func gitHTTP(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("git --exec-path: %v", err)
		}
		t.Skipf("needs git's http-backend for a server to push to: %v", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skipf("needs git's http-backend: %v", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("[http]\n\treceivepack = true\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	h := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + filepath.Dir(dir), "GIT_HTTP_EXPORT_ALL=1"}, Stderr: io.Discard}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL + "/" + filepath.Base(dir)
}

// TestNetworkRemote runs registries on clones of their own over a remote
// served over HTTP: moves travel through it, a commit pushed there is a
// version on both, and of moves made from the same state one wins and
// the others are conflicts, which the receiving Git decides.
func TestNetworkRemote(t *testing.T) {
	repo, c := history(t)
	bare := repo.Bare()
	u := gitHTTP(t, bare)
	ctx := t.Context()
	// A password in the URL is sent, and never shown.
	ra, _ := openRemote(t, gittest.Clone(t, bare).Dir+"/catalog", strings.Replace(u, "http://", "http://tessera:s3cret@", 1))
	if got := ra.Remote(); strings.Contains(got, "s3cret") || !strings.Contains(got, "tessera:xxxxx@") {
		t.Errorf("Remote() = %q", got)
	}
	for _, bad := range []string{"http://tessera:s3cret@127.0.0.1:1/prompts.git", strings.Replace(u, "http://", "http://tessera:s3cret@", 1) + "-missing"} {
		r, err := registry.Open(ctx, registry.Options{Root: gittest.Clone(t, bare).Dir + "/catalog", Remote: bad, Engine: &engine.Engine{Registry: presets.Default()}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Refresh(ctx); err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "xxxxx") {
			t.Errorf("reading %s: %v", bad, err)
		} else {
			t.Logf("reading a remote that does not answer: %v", err)
		}
	}
	rb, sb := openRemote(t, gittest.Clone(t, bare).Dir+"/catalog", u)
	if ra.Branch() != "main" {
		t.Errorf("branch %q", ra.Branch())
	}
	if _, err := ra.SetLabel(ctx, pgc, "production", 2); err != nil {
		t.Fatal(err)
	}
	if got := remoteRef(t, bare, registry.PromptRef(pgc, "production")); got != c[2] {
		t.Errorf("the remote's production is %s, want %s", got, c[2])
	}
	// b moves it from the state it read before: refused.
	if _, err := rb.MoveLabels(ctx, sb, pgc, map[string]int{"production": 3}, nil); !registry.IsConflict(err) {
		t.Errorf("a move from a stale state: %v", err)
	}
	sb = rb.State()
	if res, err := rb.ByLabel(ctx, sb, pgc, "production"); err != nil || res.Version != 2 {
		t.Errorf("b after the conflict: %+v, %v", res, err)
	}
	// A commit pushed to the remote is fetched over HTTP.
	c6 := pushFourth(t, bare)
	st, err := rb.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if vs := st.Versions[pgc]; len(vs) != 4 || vs[3].Commit != c6 {
		t.Fatalf("after the push: %d versions", len(vs))
	}
	// b labels it and removes production in one push; a sees both.
	if _, err := rb.MoveLabels(ctx, st, pgc, map[string]int{"staging": 4}, []string{"production"}); err != nil {
		t.Fatal(err)
	}
	sa, err := ra.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := ra.ByLabel(ctx, sa, pgc, "staging"); err != nil || res.Version != 4 {
		t.Errorf("a's staging: %+v, %v", res, err)
	}
	if _, ok := sa.Refs[registry.PromptRef(pgc, "production")]; ok {
		t.Error("a still has production")
	}
	// A golden case at a commit only this clone has: its objects go with
	// it, and the remote has the commit after.
	local := gittest.Clone(t, bare)
	local.Write(context1, "a text only this clone has\n")
	lc := local.Commit("local only")
	rl, _ := openRemote(t, local.Dir+"/catalog", u)
	if _, err := rl.AddGolden(ctx, pgc, "case-local", lc); err != nil {
		t.Fatal(err)
	}
	if got := remoteRef(t, bare, registry.GoldenRef(pgc, "case-local")); got != lc {
		t.Errorf("the remote's golden case: %s, want %s", got, lc)
	}
	if repo, err := git.PlainOpen(bare); err != nil {
		t.Fatal(err)
	} else if _, err := repo.CommitObject(lc); err != nil {
		t.Errorf("the remote lacks the pushed commit: %v", err)
	}
	// Several at once from one state: one wins.
	const n = 3
	regs := []*registry.Registry{ra, rb}
	for range n - 2 {
		r, _ := openRemote(t, gittest.Clone(t, bare).Dir+"/catalog", u)
		regs = append(regs, r)
	}
	states := make([]*registry.State, n)
	for i, r := range regs {
		if states[i], err = r.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, r := range regs {
		wg.Go(func() { _, errs[i] = r.MoveLabels(ctx, states[i], pgc, map[string]int{"canary": 1 + i}, nil) })
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		if err == nil {
			won++
		} else if !registry.IsConflict(err) {
			t.Errorf("registry %d: %v", i, err)
		}
	}
	if won != 1 {
		t.Errorf("%d moves won: %v", won, errs)
	}
}

// TestNetworkRemoteTimeout: a remote that takes the connection and never
// answers fails a refresh after Options.RemoteTimeout, and says so.
func TestNetworkRemoteTimeout(t *testing.T) {
	repo, _ := history(t)
	bare := repo.Bare()
	stop := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	defer ts.Close()
	defer close(stop)
	r, err := registry.Open(t.Context(), registry.Options{Root: gittest.Clone(t, bare).Dir + "/catalog", Remote: ts.URL + "/prompts.git",
		RemoteTimeout: 200 * time.Millisecond, Engine: &engine.Engine{Registry: presets.Default()}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = r.Refresh(t.Context())
	if took := time.Since(start); err == nil || took > 5*time.Second || !strings.Contains(err.Error(), "deadline") {
		t.Errorf("a refresh from a remote that does not answer: %v after %s", err, took)
	}
}
