package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/preset/agent"
)

func tree(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestListWorkspace(t *testing.T) {
	dir := tree(t, "b.txt", "a/z.go", "a/b/c/d/deep.go", "a/b/x.go", "A.md", ".git/HEAD", "node_modules/m/i.js",
		"build/out.bin", "pkg.egg-info/PKG", "src/__pycache__/x.pyc", "src/main.py", ".env", "empty/")
	got, err := agent.ListWorkspace(dir, agent.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `.env
A.md
a/
  b/
    c/ …
    x.go
  z.go
b.txt
empty/
src/
  main.py
(directories marked "/ …" hold entries deeper than 3 levels, not listed)`
	if got != want {
		t.Errorf("listing:\n%s\nwant:\n%s", got, want)
	}
	for range 5 {
		if again, _ := agent.ListWorkspace(dir, agent.ListOptions{}); again != got {
			t.Fatal("listing is not deterministic")
		}
	}
	got, _ = agent.ListWorkspace(dir, agent.ListOptions{MaxDepth: 1, MaxEntries: 3})
	if want := ".env\nA.md\na/ …\n(directories marked \"/ …\" hold entries deeper than 1 level, not listed)\n(listing cut at 3 entries: the rest is not shown)"; got != want {
		t.Errorf("bounded:\n%s\nwant:\n%s", got, want)
	}
	got, _ = agent.ListWorkspace(dir, agent.ListOptions{MaxDepth: 10})
	if !strings.Contains(got, "\n      d/\n        deep.go\n") || strings.Contains(got, "…") {
		t.Errorf("deep listing:\n%s", got)
	}
	if got, _ := agent.ListWorkspace(tree(t, ".git/HEAD"), agent.ListOptions{}); got != "(empty)" {
		t.Errorf("empty workspace: %q", got)
	}
	if _, err := agent.ListWorkspace(filepath.Join(dir, "b.txt"), agent.ListOptions{}); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("a file: %v", err)
	}
	if _, err := agent.ListWorkspace(filepath.Join(dir, "nope"), agent.ListOptions{}); err == nil {
		t.Error("a missing directory listed")
	}
}

func TestListWorkspaceLinksAndNames(t *testing.T) {
	dir := tree(t, "real/f.go")
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad\nname"), nil, 0o644); err != nil {
		t.Skip("no newline in file names here:", err)
	}
	got, err := agent.ListWorkspace(dir, agent.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "\"bad\\nname\"\nlink@\nreal/\n  f.go"; got != want {
		t.Errorf("listing:\n%s\nwant:\n%s", got, want)
	}
}
