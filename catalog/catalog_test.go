package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/tessera-dev/tessera/diag"
)

// assembleErr assembles wf.v1/n in a catalog of files and returns the
// error text.
func assembleErr(t *testing.T, files map[string]string) string {
	t.Helper()
	c, err := Open(context.Background(), writeTree(t, files))
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	_, err = c.Assemble(context.Background(), "wf.v1", "n")
	if err == nil {
		t.Fatal("assembled without error")
	}
	return err.Error()
}

func TestAssembleBase(t *testing.T) {
	a, err := open(t, writeTree(t, base())).Assemble(context.Background(), "wf.v1", "n")
	if err != nil {
		t.Fatal(err)
	}
	if a.Text != "Intro\ncontext A\n- rule\n" {
		t.Errorf("text %q", a.Text)
	}
}

func TestAssembleErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"unknown token", with(base(), "tasks/Gen v1.0.txt", "x\n$$CTXX\n"),
			"tasks/Gen v1.0.txt:2:1: unknown token $$CTXX: the workflow node's includes map has no entry for it (did you mean $$CTX?)"},
		{"no includes", with(base(), "workflows/wf.v1.json", `{"nodes": [{"node_id": "n", "task_ref": "Gen v1.0"}]}`),
			"tasks/Gen v1.0.txt:2:1: unknown token $$CTX: the workflow node has no includes"},
		{"missing include file", with(base(), "ctx/a.txt", ""),
			"tasks/Gen v1.0.txt:2:1: $$CTX (ctx/a.txt): file not found: create it or fix the path"},
		{"missing directive file", with(base(), "shared/rules.txt", ""),
			"tasks/Gen v1.0.txt:3:1: $$include shared/rules.txt: file not found"},
		{"directive leaves root", with(base(), "tasks/Gen v1.0.txt", "$$CTX\n$$include ../outside.txt\n"),
			`tasks/Gen v1.0.txt:2:1: $$include: path "../outside.txt" leaves the catalog root`},
		{"includes path leaves root", with(base(), "workflows/wf.v1.json", `{"nodes": [{"node_id": "n", "task_ref": "Gen v1.0", "includes": {"CTX": "../x.txt"}}]}`),
			`workflows/wf.v1.json:1:12: node "n": includes CTX: path "../x.txt" leaves the catalog root`},
		{"absolute includes path", with(base(), "workflows/wf.v1.json", `{"nodes": [{"node_id": "n", "task_ref": "Gen v1.0", "includes": {"CTX": "/etc/passwd"}}]}`),
			`includes CTX: path "/etc/passwd" is absolute`},
		{"nested token", with(base(), "ctx/a.txt", "one\ntwo $$OTHER\n"),
			"ctx/a.txt:2:5: included text holds the token $$OTHER: includes are not expanded again (no recursion); put the token in the template instead [included by tasks/Gen v1.0.txt:2:1 for $$CTX (ctx/a.txt)]"},
		{"nested directive", with(base(), "shared/rules.txt", "$$include ctx/a.txt\n"),
			"shared/rules.txt:1:1: included text holds an $$include directive"},
		{"invalid utf-8 template", with(base(), "tasks/Gen v1.0.txt", "ok\nbad \xff byte\n"),
			"tasks/Gen v1.0.txt:2:5: invalid UTF-8 at byte offset 7 (line 2): save the file as UTF-8"},
		{"invalid utf-8 include", with(base(), "ctx/a.txt", "\xc3\x28"),
			"ctx/a.txt:1:1: invalid UTF-8 at byte offset 0"},
		{"unused entry", with(base(), "workflows/wf.v1.json", `{"nodes": [
  {"node_id": "n", "task_ref": "Gen v1.0", "includes": {"CTX": "ctx/a.txt", "EXTRA": "ctx/a.txt"}}]}`),
			"workflows/wf.v1.json:2:3: includes entry EXTRA is not used by tasks/Gen v1.0.txt: add $$EXTRA to the template or remove the entry"},
		{"unknown task_ref", with(base(), "workflows/wf.v1.json", `{"nodes": [{"node_id": "n", "task_ref": "Gen v1.1", "includes": {"CTX": "ctx/a.txt"}}]}`),
			`workflows/wf.v1.json:1:12: task_ref "Gen v1.1": no template Gen v1.1.txt, Gen v1.1.md, Gen v1.1.prompt in tasks (did you mean "Gen v1.0"?)`},
		{"ambiguous task_ref", with(base(), "tasks/Gen v1.0.md", "x"),
			`task_ref "Gen v1.0" is ambiguous: tasks/Gen v1.0.txt, tasks/Gen v1.0.md all exist`},
		{"task_ref leaves root", with(base(), "workflows/wf.v1.json", `{"nodes": [{"node_id": "n", "task_ref": "../../x"}]}`),
			`task_ref "../../x": path "../../x" leaves the catalog root`},
		{"include is a directory", with(base(), "workflows/wf.v1.json", `{"nodes": [{"node_id": "n", "task_ref": "Gen v1.0", "includes": {"CTX": "ctx"}}]}`),
			"ctx: is a directory, not a file"},
		{"no task_ref", with(base(), "workflows/wf.v1.json", `{"nodes": [{"node_id": "n", "type": "gate"}]}`),
			`workflows/wf.v1.json:1:12: node "n" has no task_ref, so there is no prompt to assemble`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := assembleErr(t, tt.files); !strings.Contains(got, tt.want) {
				t.Errorf("error:\n%s\nwant it to contain:\n%s", got, tt.want)
			}
		})
	}
}

func TestUnknownWorkflowAndNode(t *testing.T) {
	c := open(t, writeTree(t, base()))
	ctx := context.Background()
	_, err := c.Assemble(ctx, "nope", "n")
	if err == nil || err.Error() != `no workflow "nope" in workflows (workflows: wf.v1)` {
		t.Errorf("unknown workflow: %v", err)
	}
	_, err = c.Assemble(ctx, "wf.v1", "zz")
	if err == nil || err.Error() != `workflows/wf.v1.json: no node "zz" in workflow wf.v1 (nodes: n)` {
		t.Errorf("unknown node: %v", err)
	}
	if _, err := c.Assemble(ctx, "../wf.v1", "n"); err == nil {
		t.Error("a workflow id with a path was accepted")
	}
}

func TestSymlinkOutsideRoot(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := writeTree(t, with(base(), "ctx/a.txt", "", "ctx/other.txt", "x"))
	if err := os.Symlink(outside, filepath.Join(dir, "ctx", "a.txt")); err != nil {
		t.Fatal(err)
	}
	c := open(t, dir)
	_, err := c.Assemble(context.Background(), "wf.v1", "n")
	if err == nil || !strings.Contains(err.Error(), "ctx/a.txt: leaves the catalog root through a symbolic link: every file a catalog reads must be inside it [included by tasks/Gen v1.0.txt:2:1 for $$CTX (ctx/a.txt)]") {
		t.Errorf("err = %v", err)
	}
	// A link that stays inside the root is fine.
	if err := os.Remove(filepath.Join(dir, "ctx", "a.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ctx", "real.txt"), []byte("real\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.txt", filepath.Join(dir, "ctx", "a.txt")); err != nil {
		t.Fatal(err)
	}
	a, err := open(t, dir).Assemble(context.Background(), "wf.v1", "n")
	if err != nil || !strings.Contains(a.Text, "real\n") {
		t.Errorf("inside link: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	_, err := Open(ctx, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "tessera.yaml: not found in") {
		t.Errorf("no config: %v", err)
	}
	_, err = Open(ctx, writeTree(t, with(base(), "tessera.yaml", "tasks: tasks\nworkflows: workflows\nworkflow: x\n")), testSections...)
	if err == nil || err.Error() != `tessera.yaml:3:1: unknown key "workflow": the keys are version, tasks, workflows, template_extensions, log, log_key_env, out, specs, typed, layered, budget, redaction, limits, models, tokenizers, serve` {
		t.Errorf("unknown key: %v", err)
	}
}

func TestTaskRefWithSubdirectoryAndExtension(t *testing.T) {
	files := with(base(),
		"tessera.yaml", "tasks: tasks\nworkflows: workflows\ntemplate_extensions: [.prompt]\n",
		"tasks/pm/Gen v2.0.prompt", "v2 $$CTX\n",
		"workflows/wf.v1.json", `{"nodes": [{"node_id": "n", "task_ref": "pm/Gen v2.0", "includes": {"CTX": "ctx/a.txt"}}]}`)
	a, err := open(t, writeTree(t, files)).Assemble(context.Background(), "wf.v1", "n")
	if err != nil {
		t.Fatal(err)
	}
	if a.Text != "v2 context A\n" || a.Sources[0].Path != "tasks/pm/Gen v2.0.prompt" {
		t.Errorf("got %q from %s", a.Text, a.Sources[0].Path)
	}
}

func TestOpenFS(t *testing.T) {
	fsys := fstest.MapFS{}
	for p, s := range base() {
		fsys[p] = &fstest.MapFile{Data: []byte(s)}
	}
	c, err := OpenFS(context.Background(), fsys)
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.Assemble(context.Background(), "wf.v1", "n")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := open(t, writeTree(t, base())).Assemble(context.Background(), "wf.v1", "n")
	if a.Hash != want.Hash {
		t.Errorf("OpenFS and Open disagree: %q vs %q", a.Text, want.Text)
	}
}

// A catalog keeps what it read: edits after the first read do not change
// its prompts, and concurrent use is safe.
func TestSnapshotAndConcurrency(t *testing.T) {
	dir := writeTree(t, base())
	c := open(t, dir)
	ctx := context.Background()
	first, err := c.Assemble(ctx, "wf.v1", "n")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ctx", "a.txt"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				a, err := c.Assemble(ctx, "wf.v1", "n")
				if err != nil || a.Hash != first.Hash {
					t.Errorf("concurrent assemble: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	fresh, err := open(t, dir).Assemble(ctx, "wf.v1", "n")
	if err != nil || !strings.Contains(fresh.Text, "edited") {
		t.Errorf("a new catalog should see the edit: %v", err)
	}
}

func TestCancelledContext(t *testing.T) {
	c := open(t, writeTree(t, base()))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Assemble(ctx, "wf.v1", "n"); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	// A cancelled call leaves nothing cached: the next call works.
	if _, err := c.Assemble(context.Background(), "wf.v1", "n"); err != nil {
		t.Errorf("after cancel: %v", err)
	}
}

func TestDiagnosticsAreDiagErrors(t *testing.T) {
	c := open(t, writeTree(t, with(base(), "tasks/Gen v1.0.txt", "$$A\n$$B\n")))
	_, err := c.Assemble(context.Background(), "wf.v1", "n")
	var list diag.List
	if !errors.As(err, &list) || len(list) != 3 {
		t.Fatalf("want 3 diagnostics (two tokens, one unused entry), got %v", err)
	}
}
