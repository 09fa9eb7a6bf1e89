package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-dev/tessera/internal/pgtest"
	"github.com/tessera-dev/tessera/serve"
	"github.com/tessera-dev/tessera/serve/gittest"
)

// TestServeCheckNotGit runs serve --check on a catalog outside any Git
// work tree: it exits 1 saying how to make one.
func TestServeCheckNotGit(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tessera.yaml"), []byte("tasks: tasks\nworkflows: workflows\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"serve", "--root", dir, "--check"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "is not in a Git work tree") || !strings.Contains(stderr.String(), "git init && git add -A && git commit") {
		t.Errorf("exit %d\n%s", code, stderr.String())
	}
}

// TestServeCheckRemote runs serve --check on a clone with a remote that
// has a commit the clone lacks, the remote given by --remote,
// TESSERA_REMOTE and tessera.yaml's serve.remote (a path there is the
// catalog's neighbour): the remote's history is what is served, and the
// flag wins over the variable, which wins over the file.
func TestServeCheckRemote(t *testing.T) {
	repo, _ := catalogRepo(t)
	bare := repo.Bare()
	clone := gittest.Clone(t, bare)
	dev := gittest.Clone(t, bare)
	dev.Write("catalog/seed/prompts/pgc-contexts/project_discovery.v1.txt", "a second text\n")
	dev.Commit("pgc: a second text")
	dev.Push(bare)
	root := filepath.Join(clone.Dir, "catalog")
	check := func(args ...string) (int, string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"serve", "--root", root, "--check"}, args...), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	if code, out, errs := check(); code != 0 || !strings.Contains(out, "1 commit on main;") {
		t.Fatalf("without a remote: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := check("--remote", bare); code != 0 || !strings.Contains(out, "2 commits on main of "+bare+";") || !strings.Contains(out, "pm_discovery.v1/pgc: version 2") {
		t.Errorf("--remote: exit %d\n%s%s", code, out, errs)
	}
	t.Setenv("TESSERA_REMOTE", "file://"+bare)
	if code, out, errs := check(); code != 0 || !strings.Contains(out, "of file://"+bare+";") {
		t.Errorf("TESSERA_REMOTE: exit %d\n%s%s", code, out, errs)
	}
	missing := filepath.Join(t.TempDir(), "missing.git")
	if code, _, errs := check("--remote", missing); code != 1 || !strings.Contains(errs, "remote "+missing) || !strings.Contains(errs, "git init --bare") {
		t.Errorf("--remote naming no repository: exit %d\n%s", code, errs)
	}
	os.Unsetenv("TESSERA_REMOTE")
	rel, err := filepath.Rel(root, bare)
	if err != nil {
		t.Fatal(err)
	}
	yaml := clone.Read("catalog/tessera.yaml")
	clone.Write("catalog/tessera.yaml", yaml+"\nserve:\n  remote: "+rel+"\n")
	t.Chdir(t.TempDir())
	if code, out, errs := check(); code != 0 || !strings.Contains(out, "2 commits on main of "+bare+";") {
		t.Errorf("serve.remote in tessera.yaml: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := check("--remote", "ftp://git.example.com/prompts.git"); code != 1 || !strings.Contains(errs, `protocol "ftp" is not supported`) {
		t.Errorf("an ftp remote: exit %d\n%s", code, errs)
	}
}

// TestServeReplicasPostgres runs two replicas as tessera serve makes
// them: each with a clone of its own, one bare remote, one PostgreSQL
// database. Two PATCHes of one label at once: one wins, the other is a
// 409, and the history both read from the database has one move; a
// render through one is replayed through the other.
func TestServeReplicasPostgres(t *testing.T) {
	db := pgtest.Fresh(t)
	repo, _ := catalogRepo(t)
	repo.Write("catalog/seed/prompts/pgc-contexts/project_discovery.v1.txt", "a second text\n")
	repo.Commit("pgc: a second text")
	bare := repo.Bare()
	var urls []string
	for range 2 {
		store, closeStore, err := openStore(t.Context(), db)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { closeStore() })
		srv, err := serve.New(t.Context(), serve.Config{Root: filepath.Join(gittest.Clone(t, bare).Dir, "catalog"), Remote: bare, Store: store,
			PollInterval: -1, AdminPublicKey: "pk-admin", AdminSecretKey: "sk-admin-0123456789abcdef"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		ts := httptest.NewServer(srv.Handler())
		t.Cleanup(ts.Close)
		urls = append(urls, ts.URL)
	}
	send := func(i int, method, path, body string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), method, urls[i]+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth("pk-admin", "sk-admin-0123456789abcdef")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		return resp.StatusCode, buf.Bytes()
	}
	const pgc = "/api/public/v2/prompts/pm_discovery.v1%2Fpgc"
	codes := make([]int, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			codes[i], _ = send(i, "PATCH", pgc+"/versions/"+string(rune('1'+i)), `{"newLabels":["production"]}`)
		})
	}
	wg.Wait()
	if !(codes[0] == 200 && codes[1] == 409 || codes[0] == 409 && codes[1] == 200) {
		t.Fatalf("two PATCHes at once: %v, want one 200 and one 409", codes)
	}
	for i := range 2 {
		code, body := send(i, "GET", "/api/tessera/v1/prompts/pm_discovery.v1%2Fpgc/labels/history", "")
		var h struct{ Data []struct{ ToVersion int } }
		json.Unmarshal(body, &h)
		if code != 200 || len(h.Data) != 1 {
			t.Errorf("history through replica %d: %d %s", i, code, body)
		}
	}
	code, body := send(0, "POST", "/api/tessera/v1/render", `{"name":"pm_discovery.v1/pgc","label":"production"}`)
	var out struct{ AuditID string }
	if json.Unmarshal(body, &out); code != 200 || out.AuditID == "" {
		t.Fatalf("render: %d %s", code, body)
	}
	if code, body := send(1, "POST", "/api/tessera/v1/replay/"+out.AuditID+"?label=production", ""); code != 200 || !strings.Contains(string(body), `"match":true`) {
		t.Errorf("replay through the other replica: %d %s", code, body)
	}
}
