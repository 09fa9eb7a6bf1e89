package serve_test

import (
	"net/http"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tessera-dev/tessera/serve"
	"github.com/tessera-dev/tessera/serve/registry"
)

// refresh reads the repository again through f's API.
func (f *fixture) refresh() {
	f.t.Helper()
	if code, _, body := f.do(admin, "POST", "/api/tessera/v1/refresh", nil); code != http.StatusOK {
		f.t.Fatalf("refresh: %d %s", code, body)
	}
}

// TestOutsideMoves: a label moved with git is recorded at the next
// refresh, by "git"; one moved through the API is recorded once, by its
// key.
func TestOutsideMoves(t *testing.T) {
	f := newFixture(t, serve.Config{})
	ref := registry.PromptRef(pgc, "canary")
	f.repo.SetRef(ref.String(), f.c[1]) // git update-ref
	f.refresh()
	h := f.history()
	if len(h) != 1 || h[0]["actor"] != serve.OutsideActor || h[0]["toVersion"] != 2.0 || h[0]["fromVersion"] != 0.0 || h[0]["toCommit"] != f.c[1].String() {
		t.Fatalf("history after a move with git: %v", h)
	}
	f.refresh() // nothing moved: nothing recorded
	if code, _, body := f.do(member, "PATCH", promptPath(pgc)+"/versions/3", map[string]any{"newLabels": []string{"canary"}}); code != http.StatusOK {
		t.Fatalf("PATCH: %d %s", code, body)
	}
	f.refresh()
	if h = f.history(); len(h) != 2 || h[0]["actor"] != member || h[0]["fromVersion"] != 2.0 || h[0]["toVersion"] != 3.0 {
		t.Fatalf("history after a move through the API and a refresh: %v", h)
	}
	if err := f.repo.Git.Storer.RemoveReference(ref); err != nil { // git update-ref -d
		t.Fatal(err)
	}
	f.refresh()
	if h = f.history(); len(h) != 3 || h[0]["actor"] != serve.OutsideActor || h[0]["toVersion"] != 0.0 || h[0]["fromVersion"] != 3.0 {
		t.Errorf("history after a removal with git: %v", h)
	}
}

// TestReplicasOutsideMoves: a move through one replica is not taken for
// one made with git by the other; a move made with git on the remote is
// recorded once, though both replicas see it.
func TestReplicasOutsideMoves(t *testing.T) {
	a, b, bare := replicas(t, -1)
	if code, _, body := a.do(member, "PATCH", promptPath(pgc)+"/versions/1", map[string]any{"newLabels": []string{"production"}}); code != http.StatusOK {
		t.Fatalf("PATCH: %d %s", code, body)
	}
	b.refresh()
	a.refresh()
	if h := a.history(); len(h) != 1 || h[0]["actor"] != member {
		t.Fatalf("history after a move through a: %v", h)
	}
	remote, err := git.PlainOpen(bare)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Storer.SetReference(plumbing.NewHashReference(registry.PromptRef(pgc, "production"), a.c[2])); err != nil {
		t.Fatal(err)
	}
	b.refresh()
	a.refresh()
	if h := b.history(); len(h) != 2 || h[0]["actor"] != serve.OutsideActor || h[0]["fromVersion"] != 1.0 || h[0]["toVersion"] != 3.0 {
		t.Errorf("history after a move with git on the remote: %v", h)
	}
}
