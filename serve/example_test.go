package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/tessera-dev/tessera/serve"
)

// A server over a Git repository holding the example catalog, asked for a
// prompt as a Langfuse client asks.
func ExampleNew() {
	// A repository with the catalog in catalog/, committed once.
	dir, err := os.MkdirTemp("", "registry")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := os.CopyFS(filepath.Join(dir, "catalog"), os.DirFS("../examples")); err != nil {
		fmt.Println(err)
		return
	}
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.Main}})
	if err != nil {
		fmt.Println(err)
		return
	}
	wt, _ := repo.Worktree()
	wt.AddGlob(".")
	sig := &object.Signature{Name: "Ada", Email: "ada@example.com", When: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	if _, err := wt.Commit("the example catalog", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		fmt.Println(err)
		return
	}

	srv, err := serve.New(context.Background(), serve.Config{
		Root:           filepath.Join(dir, "catalog"),
		PollInterval:   -1, // read once; POST /api/tessera/v1/refresh reads again
		AdminPublicKey: "pk-admin", AdminSecretKey: "sk-admin-example-secret",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	req := httptest.NewRequest("GET", "/api/public/v2/prompts/pm_discovery.v1%2Fpgc?label=latest", nil)
	req.SetBasicAuth("pk-admin", "sk-admin-example-secret")
	w := httptest.NewRecorder()
	srv.Handler().ServeHTTP(w, req)

	var p struct {
		Name    string
		Version int
		Type    string
		Labels  []string
	}
	json.Unmarshal(w.Body.Bytes(), &p)
	fmt.Println(w.Code, w.Header().Get("ETag"))
	fmt.Println(p.Name, p.Version, p.Type, p.Labels)
	// Output:
	// 200 "e859b9ca235c5c5157d39ad983a82495697dc71b4ad35c1c83daaf603cc33266"
	// pm_discovery.v1/pgc 1 text [latest]
}
