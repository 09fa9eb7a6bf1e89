package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	repo := gittest.New(t)
	repo.CopyDir(filepath.Join("..", "..", "examples"), "catalog")
	repo.Commit("add the catalog")
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
