package registry_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/presets"
	"github.com/tessera-dev/tessera/serve/gittest"
	"github.com/tessera-dev/tessera/serve/registry"
)

// openRemote opens a clone's registry with remote as its remote and reads
// it once.
func openRemote(t *testing.T, dir, remote string) (*registry.Registry, *registry.State) {
	t.Helper()
	return openWith(t, registry.Options{Root: dir, Remote: remote})
}

// staleLockWait is how long the tests of a lock left by a writer that
// stopped wait for it: the 2 s a server waits, to prove nothing more
// than that it gives up, is time lost.
const staleLockWait = 50 * time.Millisecond

// openWith opens the registry o describes, with the default presets, and
// reads it.
func openWith(t *testing.T, o registry.Options) (*registry.Registry, *registry.State) {
	t.Helper()
	o.Engine = &engine.Engine{Registry: presets.Default()}
	r, err := registry.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	st, err := r.Refresh(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return r, st
}

// remoteRef reads ref in the bare repository at dir, zero when absent.
func remoteRef(t *testing.T, dir string, ref plumbing.ReferenceName) plumbing.Hash {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := repo.Storer.Reference(ref)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash
	}
	if err != nil {
		t.Fatal(err)
	}
	return got.Hash()
}

// TestRemote runs two registries, each on a clone of its own, over one
// bare remote: a label moved through one is pushed there, and the other
// reads it at its next refresh; a commit pushed to the remote is a
// version on both, numbered alike; a removal and a golden case travel the
// same way.
func TestRemote(t *testing.T) {
	repo, c := history(t)
	bare := repo.Bare()
	a, b := gittest.Clone(t, bare), gittest.Clone(t, bare)
	ra, sa := openRemote(t, a.Dir+"/catalog", bare)
	rb, _ := openRemote(t, b.Dir+"/catalog", "file://"+bare)
	if ra.Branch() != "main" || ra.Remote() != bare {
		t.Errorf("branch %q, remote %q", ra.Branch(), ra.Remote())
	}
	if len(sa.Versions[pgc]) != 3 {
		t.Fatalf("pgc has %d versions", len(sa.Versions[pgc]))
	}
	ctx := t.Context()
	if _, err := ra.SetLabel(ctx, pgc, "production", 2); err != nil {
		t.Fatal(err)
	}
	ref := registry.PromptRef(pgc, "production")
	if got := remoteRef(t, bare, ref); got != c[2] {
		t.Errorf("the remote's %s is %s, want %s", ref, got, c[2])
	}
	sb, err := rb.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := rb.ByLabel(ctx, sb, pgc, "production"); err != nil || res.Version != 2 {
		t.Fatalf("the other registry's production: %+v, %v", res, err)
	}

	// A new commit, pushed to the remote by someone else, is version 4 on
	// both after their next refresh, though neither clone has it.
	c6 := pushFourth(t, bare)
	for _, r := range []*registry.Registry{ra, rb} {
		st, err := r.Refresh(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if vs := st.Versions[pgc]; len(vs) != 4 || vs[3].Commit != c6 || st.Head != c6 {
			t.Errorf("after the push: %d versions, head %s", len(vs), st.Head)
		}
	}
	// Labelling it from b pushes it, and a sees it.
	if _, err := rb.SetLabel(ctx, pgc, "staging", 4); err != nil {
		t.Fatal(err)
	}
	sa, err = ra.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := ra.ByLabel(ctx, sa, pgc, "staging"); err != nil || res.Version != 4 {
		t.Errorf("a's staging: %+v, %v", res, err)
	}
	// A removal on a is a removal on b.
	if _, err := ra.RemoveLabel(ctx, pgc, "staging"); err != nil {
		t.Fatal(err)
	}
	if sb, err = rb.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := sb.Refs[registry.PromptRef(pgc, "staging")]; ok {
		t.Error("b still has staging after a removed it")
	}
	// Golden cases too.
	if _, err := ra.AddGolden(ctx, pgc, "case-1", c[2]); err != nil {
		t.Fatal(err)
	}
	if sb, err = rb.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rb.Golden(sb, pgc); len(got) != 1 || got[0] != "case-1" {
		t.Errorf("b's golden cases: %v", got)
	}
	// A golden case at a commit only a's clone has: its objects are copied
	// with it.
	a.Write(context1, "a text only this clone has\n")
	lc := a.Commit("local only")
	if _, err := ra.AddGolden(ctx, pgc, "case-local", lc); err != nil {
		t.Fatal(err)
	}
	if rrepo, err := git.PlainOpen(bare); err != nil {
		t.Fatal(err)
	} else if c, err := rrepo.CommitObject(lc); err != nil {
		t.Errorf("the remote lacks the commit: %v", err)
	} else if _, err := c.Tree(); err != nil {
		t.Errorf("the remote lacks the commit's tree: %v", err)
	}
	// A label packed on the remote (git pack-refs) is read, and removed.
	packed := registry.PromptRef(pgc, "packed")
	if err := os.WriteFile(filepath.Join(bare, "packed-refs"), []byte("# pack-refs with: peeled fully-peeled sorted\n"+c[1].String()+" "+packed.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if sb, err = rb.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if res, err := rb.ByLabel(ctx, sb, pgc, "packed"); err != nil || res.Version != 1 {
		t.Errorf("a packed label: %+v, %v", res, err)
	}
	if _, err := rb.RemoveLabel(ctx, pgc, "packed"); err != nil {
		t.Fatal(err)
	}
	if got := remoteRef(t, bare, packed); !got.IsZero() {
		t.Errorf("the packed label is still on the remote: %s", got)
	}
	// A lock left on the remote by a writer that stopped half-way does
	// not stop the others reading it.
	lock := filepath.Join(bare, filepath.FromSlash(ref.String())+".lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if sb, err = rb.Refresh(ctx); err != nil {
		t.Fatalf("a refresh with a lock on the remote: %v", err)
	}
	if res, err := rb.ByLabel(ctx, sb, pgc, "production"); err != nil || res.Version != 2 {
		t.Errorf("production with a lock on the remote: %+v, %v", res, err)
	}
}

// TestRemoteRace moves one label from several registries at once, each
// from the state it read: exactly one move wins, the others are
// conflicts, and the remote holds the winner's.
func TestRemoteRace(t *testing.T) {
	repo, _ := history(t)
	bare := repo.Bare()
	const n = 4
	regs := make([]*registry.Registry, n)
	states := make([]*registry.State, n)
	for i := range regs {
		regs[i], states[i] = openRemote(t, gittest.Clone(t, bare).Dir+"/catalog", bare)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range regs {
		wg.Go(func() {
			_, errs[i] = regs[i].MoveLabels(t.Context(), states[i], pgc, map[string]int{"production": 1 + i%3}, nil)
		})
	}
	wg.Wait()
	won := -1
	for i, err := range errs {
		switch {
		case err == nil && won >= 0:
			t.Errorf("registries %d and %d both moved the label", won, i)
		case err == nil:
			won = i
		case !registry.IsConflict(err):
			t.Errorf("registry %d: %v, want a conflict", i, err)
		}
	}
	if won < 0 {
		t.Fatalf("no move won: %v", errs)
	}
	want := states[won].Versions[pgc][won%3].Commit
	if got := remoteRef(t, bare, registry.PromptRef(pgc, "production")); got != want {
		t.Errorf("the remote has %s, the winner set %s", got, want)
	}
	// A loser read the refs again: its state has the winner's move, and a
	// move from it succeeds.
	loser := (won + 1) % n
	st := regs[loser].State()
	if st.Refs[registry.PromptRef(pgc, "production")] != want {
		t.Errorf("the loser did not read the winner's move (its move: %v)", errs[loser])
	}
	if _, err := regs[loser].MoveLabels(t.Context(), st, pgc, nil, []string{"production"}); err != nil {
		t.Errorf("moving again from the state read after the conflict: %v", err)
	}
}

// TestLocalCAS checks the compare-and-swap without a remote: a move made
// from a state that another writer has overtaken is refused, and a lock
// left by a writer that stopped is reported with its file.
func TestLocalCAS(t *testing.T) {
	repo, _ := history(t)
	r1, st1 := openWith(t, registry.Options{Root: repo.Dir + "/catalog"})
	r2, st2 := openWith(t, registry.Options{Root: repo.Dir + "/catalog", LockWait: staleLockWait})
	ctx := t.Context()
	if _, err := r1.MoveLabels(ctx, st1, pgc, map[string]int{"canary": 1}, nil); err != nil {
		t.Fatal(err)
	}
	_, err := r2.MoveLabels(ctx, st2, pgc, map[string]int{"canary": 2}, nil)
	var ce *registry.ConflictError
	if !errors.As(err, &ce) || ce.Ref != registry.PromptRef(pgc, "canary") || !ce.Want.IsZero() || ce.Got.IsZero() {
		t.Fatalf("a move from a stale state: %v", err)
	}
	lock := filepath.Join(repo.Dir, ".git", filepath.FromSlash(registry.PromptRef(pgc, "canary").String())+".lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = r2.SetLabel(ctx, pgc, "canary", 2)
	if err == nil || registry.IsConflict(err) || !strings.Contains(err.Error(), lock) {
		t.Errorf("a move under a stale lock: %v", err)
	}
	st, err := r1.Refresh(ctx)
	if err != nil {
		t.Fatalf("a refresh with a stale lock: %v", err)
	}
	for ref := range st.Refs {
		if strings.HasSuffix(ref.String(), ".lock") {
			t.Errorf("a lock file read as a ref: %s", ref)
		}
	}
	if res, err := r1.ByLabel(ctx, st, pgc, "canary"); err != nil || res.Version != 1 {
		t.Errorf("canary with a stale lock: %+v, %v", res, err)
	}
}

// TestLinkedWorktree serves a catalog from a work tree that git worktree
// add made, whose .git is a file naming a directory of the main
// repository's: the objects and refs are the main repository's.
func TestLinkedWorktree(t *testing.T) {
	repo, c := history(t)
	wt := t.TempDir()
	admin := filepath.Join(repo.Dir, ".git", "worktrees", "wt")
	for p, content := range map[string]string{
		filepath.Join(admin, "HEAD"):      c[5].String() + "\n", // detached, as git worktree add --detach leaves it
		filepath.Join(admin, "commondir"): "../..\n",
		filepath.Join(admin, "gitdir"):    filepath.Join(wt, ".git") + "\n",
		filepath.Join(wt, ".git"):         "gitdir: " + admin + "\n",
		filepath.Join(wt, "catalog", "x"): "",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := open(t, filepath.Join(wt, "catalog"))
	st, err := r.Refresh(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Head != c[5] || len(st.Versions[pgc]) != 3 || r.Sub() != "catalog" {
		t.Errorf("head %s, %d versions of pgc, catalog at %q", st.Head, len(st.Versions[pgc]), r.Sub())
	}
	// A label moved here is the main repository's.
	if _, err := r.SetLabel(t.Context(), pgc, "canary", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repo.Dir, ".git", filepath.FromSlash(registry.PromptRef(pgc, "canary").String()))); err != nil {
		t.Errorf("the label is not in the main repository: %v", err)
	}
}

// TestRemoteWithGit checks the refs written on a remote against git's
// own reading of them: a label set is what git rev-parse says, a packed
// label (git pack-refs) is removed from packed-refs, and git's lock on a
// ref holds a move off. It needs the git binary, and skips without it.
func TestRemoteWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("needs git to read what was written: %v", err)
	}
	repo, c := history(t)
	bare := repo.Bare()
	r, st := openWith(t, registry.Options{Root: gittest.Clone(t, bare).Dir + "/catalog", Remote: bare, LockWait: staleLockWait})
	ctx := t.Context()
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"--git-dir", bare}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if _, err := r.MoveLabels(ctx, st, pgc, map[string]int{"production": 2, "staging": 1}, nil); err != nil {
		t.Fatal(err)
	}
	if got := git("rev-parse", registry.PromptRef(pgc, "production").String()); got != c[2].String() {
		t.Errorf("git reads production as %s, want %s", got, c[2])
	}
	git("pack-refs", "--all")
	st, err := r.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.MoveLabels(ctx, st, pgc, nil, []string{"production"}); err != nil {
		t.Fatal(err)
	}
	if refs := git("for-each-ref", "--format=%(refname)", "refs/tessera/"); refs != registry.PromptRef(pgc, "staging").String() {
		t.Errorf("git lists %q after production's removal", refs)
	}
	git("fsck", "--no-progress")
	// git's lock on staging, as git update-ref holds it while it writes.
	lock := filepath.Join(bare, filepath.FromSlash(registry.PromptRef(pgc, "staging").String())+".lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.SetLabel(ctx, pgc, "staging", 3); err == nil || !strings.Contains(err.Error(), "is locked") {
		t.Errorf("a move under git's lock: %v", err)
	}
	os.Remove(lock)
	if _, err := r.SetLabel(ctx, pgc, "staging", 3); err != nil {
		t.Errorf("a move once the lock is gone: %v", err)
	}
	if got := git("rev-parse", registry.PromptRef(pgc, "staging").String()); got != c[5].String() {
		t.Errorf("git reads staging as %s, want %s", got, c[5])
	}
}

// pushFourth commits a fourth text of the pgc context to the remote at
// bare, as another developer would, and returns the commit.
func pushFourth(t *testing.T, bare string) plumbing.Hash {
	t.Helper()
	dev := gittest.Clone(t, bare)
	dev.Write(context1, "a fourth text\n")
	c := dev.Commit("pgc: a fourth text")
	dev.Push(bare)
	return c
}

// TestConflictUnreadable holds what a conflict returns when the remote
// cannot be read again after it: the conflict, with why the state it
// returns is not the remote's, so the caller does not move again from a
// state it takes for fresh.
func TestConflictUnreadable(t *testing.T) {
	repo, _ := history(t)
	bare := repo.Bare()
	r1, st1 := openRemote(t, gittest.Clone(t, bare).Dir+"/catalog", bare)
	r2, st2 := openRemote(t, gittest.Clone(t, bare).Dir+"/catalog", bare)
	if _, err := r1.MoveLabels(t.Context(), st1, pgc, map[string]int{"production": 1}, nil); err != nil {
		t.Fatal(err)
	}
	// A ref no reader can make sense of: the remote cannot be read.
	bad := filepath.Join(bare, "refs", "tessera", "broken")
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("not a hash\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := r2.MoveLabels(t.Context(), st2, pgc, map[string]int{"production": 2}, nil)
	if !registry.IsConflict(err) || !strings.Contains(err.Error(), "reading the refs again") || !strings.Contains(err.Error(), "broken") {
		t.Errorf("a conflict the remote cannot be read after: %v; want the conflict and the reading's error", err)
	}
}
