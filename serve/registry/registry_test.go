package registry_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/presets"
	"github.com/tessera-dev/tessera/serve/gittest"
	"github.com/tessera-dev/tessera/serve/registry"
)

const (
	pgc      = "pm_discovery.v1/pgc"
	context1 = "catalog/seed/prompts/pgc-contexts/project_discovery.v1.txt"
)

// history makes a repository with the example catalog under catalog/ and
// returns it with its commits: c1 adds the catalog, c2 changes pgc's
// context, c3 changes a file no prompt reads, c4 breaks the catalog, c5
// mends it with a third text of the context. Each test gets a copy of
// its own of one made for the first.
func history(t *testing.T) (*gittest.Repo, []plumbing.Hash) {
	t.Helper()
	repo, c := sharedHistory(t)
	return repo, slices.Clone(c)
}

var sharedHistory = gittest.Once(func(t testing.TB) (*gittest.Repo, []plumbing.Hash) {
	t.Helper()
	repo := gittest.New(t)
	repo.Write("README.md", "a repository with a catalog\n")
	c0 := repo.Commit("readme")
	repo.CopyDir("../../examples", "catalog")
	c1 := repo.Commit("add the catalog")
	orig := repo.Read(context1)
	repo.Write(context1, orig+"\nOne more line of context.\n")
	c2 := repo.Commit("pgc: more context")
	repo.Write("NOTES.md", "notes\n")
	c3 := repo.Commit("notes")
	yaml := repo.Read("catalog/tessera.yaml")
	repo.Write("catalog/tessera.yaml", "this: is: not yaml\n")
	c4 := repo.Commit("break the catalog")
	repo.Write("catalog/tessera.yaml", yaml)
	repo.Write(context1, orig+"\nAnother line.\n")
	c5 := repo.Commit("mend it")
	return repo, []plumbing.Hash{c0, c1, c2, c3, c4, c5}
})

func open(t *testing.T, dir string) *registry.Registry {
	t.Helper()
	r, err := registry.Open(t.Context(), registry.Options{Root: dir, Engine: &engine.Engine{Registry: presets.Default()}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestVersions(t *testing.T) {
	repo, c := history(t)
	r := open(t, repo.Dir+"/catalog")
	if r.Sub() != "catalog" || r.Branch() != "main" {
		t.Fatalf("Sub, Branch = %q, %q", r.Sub(), r.Branch())
	}
	st, err := r.Refresh(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	vs := st.Versions[pgc]
	var got []plumbing.Hash
	for _, v := range vs {
		got = append(got, v.Commit)
	}
	if want := []plumbing.Hash{c[1], c[2], c[5]}; !slices.Equal(got, want) {
		t.Fatalf("versions of %s at %v, want %v", pgc, got, want)
	}
	if other := st.Versions["specs/support-ticket"]; len(other) != 1 || other[0].Commit != c[1] {
		t.Errorf("specs/support-ticket: %+v, want one version at c1", other)
	}
	if st.Chain[4].Err == nil {
		t.Error("the broken commit has no error")
	}
	// Labels at each commit of the history.
	for i, want := range []int{0, 1, 2, 2, 2, 3} {
		v, ok := st.VersionAt(pgc, i)
		if v.Number != want || ok != (want > 0) {
			t.Errorf("VersionAt(%d) = %d, %v; want %d", i, v.Number, ok, want)
		}
	}
	ctx := t.Context()
	res, err := r.ByLabel(ctx, st, pgc, registry.Latest)
	if err != nil || res.Version != 3 {
		t.Fatalf("latest: %+v, %v", res, err)
	}
	if !strings.HasSuffix(res.Prompt.Result.Prompt.Text, "Another line.\n") && !strings.Contains(res.Prompt.Result.Prompt.Text, "Another line.") {
		t.Errorf("latest text does not have the last change:\n%s", res.Prompt.Result.Prompt.Text)
	}
	if _, err := r.ByLabel(ctx, st, pgc, "production"); !registry.IsNotFound(err) {
		t.Errorf("production before it is set: %v, want not found", err)
	}
	if _, err := r.ByVersion(ctx, st, pgc, 4); !registry.IsNotFound(err) {
		t.Errorf("version 4: %v, want not found", err)
	}
	if _, err := r.ByVersion(ctx, st, "nope", 1); !registry.IsNotFound(err) {
		t.Errorf("unknown prompt: %v, want not found", err)
	}
}

func TestLabels(t *testing.T) {
	repo, c := history(t)
	repo.SetRef(registry.LabelPrefix+"production", c[3]) // at c3: version 2
	repo.Tag("v1.0", c[1])
	r := open(t, repo.Dir+"/catalog")
	ctx := t.Context()
	st, err := r.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		label string
		want  int
	}{{"production", 2}, {"v1.0", 1}, {"latest", 3}, {"main", 3}} {
		res, err := r.ByLabel(ctx, st, pgc, tc.label)
		if err != nil || res.Version != tc.want {
			t.Errorf("label %s: %+v, %v; want version %d", tc.label, res, err, tc.want)
		}
	}
	if got := r.Labels(st, pgc, 2); !slices.Equal(got, []string{"production"}) {
		t.Errorf("labels of version 2: %v", got)
	}
	if got := r.Labels(st, pgc, 1); !slices.Equal(got, []string{"v1.0"}) {
		t.Errorf("labels of version 1: %v", got)
	}
	// A prompt's own label shadows the repository-wide one.
	if st, err = r.SetLabel(ctx, pgc, "production", 3); err != nil {
		t.Fatal(err)
	}
	if res, _ := r.ByLabel(ctx, st, pgc, "production"); res == nil || res.Version != 3 {
		t.Errorf("production after the move: %+v", res)
	}
	if res, _ := r.ByLabel(ctx, st, "specs/support-ticket", "production"); res == nil || res.Ref != registry.LabelPrefix+"production" {
		t.Errorf("another prompt's production moved too: %+v", res)
	}
	if got := r.Labels(st, pgc, 3); !slices.Equal(got, []string{"latest", "production"}) {
		t.Errorf("labels of version 3: %v", got)
	}
	if st, err = r.RemoveLabel(ctx, pgc, "production"); err != nil {
		t.Fatal(err)
	}
	if res, _ := r.ByLabel(ctx, st, pgc, "production"); res == nil || res.Version != 2 {
		t.Errorf("production after the removal: %+v", res)
	}
	if _, err := r.RemoveLabel(ctx, pgc, "production"); err == nil || !strings.Contains(err.Error(), "every prompt shares") {
		t.Errorf("removing a repository-wide label: %v", err)
	}
	if _, err := r.RemoveLabel(ctx, pgc, "staging"); !registry.IsNotFound(err) {
		t.Errorf("removing a label that is not there: %v", err)
	}
}

func TestBranchAndIncremental(t *testing.T) {
	repo, c := history(t)
	r := open(t, repo.Dir+"/catalog")
	ctx := context.Background()
	if _, err := r.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	// A feature branch, served by name, off the default branch.
	repo.Branch("feature")
	repo.Write(context1, "Entirely new context.\n")
	f := repo.Commit("feature: new context")
	repo.Checkout("main")
	// And one more commit on main, read incrementally.
	repo.Write(context1, repo.Read(context1)+"\nMain moves on.\n")
	c6 := repo.Commit("main: more")
	st, err := r.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if vs := st.Versions[pgc]; len(vs) != 4 || vs[3].Commit != c6 || len(st.Chain) != len(c)+1 {
		t.Fatalf("after the new commit: %d versions, chain of %d", len(vs), len(st.Chain))
	}
	res, err := r.ByLabel(ctx, st, pgc, "feature")
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != 0 || res.Commit != f || !strings.Contains(res.Prompt.Result.Prompt.Text, "Entirely new context.") {
		t.Errorf("feature branch: version %d at %s", res.Version, res.Commit)
	}
	short := c[2].String()[:10]
	if res, err := r.ByCommit(ctx, st, pgc, short); err != nil || res.Version != 2 {
		t.Errorf("by commit %s: %+v, %v", short, res, err)
	}
	if _, err := r.ByCommit(ctx, st, pgc, "zz"); err == nil {
		t.Error("a bad commit was accepted")
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := registry.Open(t.Context(), registry.Options{Root: t.TempDir(), Engine: &engine.Engine{}}); err == nil || !strings.Contains(err.Error(), "Git work tree") {
		t.Errorf("a directory outside Git: %v", err)
	}
	if _, err := registry.Open(t.Context(), registry.Options{Root: t.TempDir()}); err == nil {
		t.Error("no engine was accepted")
	}
	repo := gittest.New(t)
	r := open(t, repo.Dir)
	if _, err := r.Refresh(t.Context()); err == nil || !strings.Contains(err.Error(), "no commit") {
		t.Errorf("an empty repository: %v", err)
	}
}

func TestCheckLabel(t *testing.T) {
	for _, ok := range []string{"production", "v1.0", "a_b-c", strings.Repeat("a", 36)} {
		if err := registry.CheckLabel(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Prod", "a/b", "..", ".x", "x.lock", strings.Repeat("a", 37), "a b"} {
		if registry.CheckLabel(bad) == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

func TestDetachedHead(t *testing.T) {
	repo, c := history(t)
	wt, err := repo.Git.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Hash: c[2]}); err != nil {
		t.Fatal(err)
	}
	r := open(t, repo.Dir+"/catalog")
	st, err := r.Refresh(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if r.Branch() != "HEAD" || st.Head != c[2] || len(st.Versions[pgc]) != 2 {
		t.Errorf("detached at c2: branch %s, head %s, %d versions", r.Branch(), st.Head, len(st.Versions[pgc]))
	}
	if res, err := r.ByLabel(t.Context(), st, pgc, registry.Latest); err != nil || res.Version != 2 {
		t.Errorf("latest: %+v, %v", res, err)
	}
}
