package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/presets"
	"github.com/tessera-dev/tessera/prompt"
)

func twoWorkflows() map[string]string {
	return with(base(),
		"workflows/other.v2.json", `{"nodes": [
  {"node_id": "gate", "type": "gate"},
  {"node_id": "m", "task_ref": "Gen v1.0", "includes": {"CTX": "shared/rules.txt"}}
]}`)
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCompile(t *testing.T) {
	dir := writeTree(t, twoWorkflows())
	m, err := compile(open(t, dir), "")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "build", "prompts")
	tree := readTree(t, out)
	if len(tree) != 3 {
		t.Fatalf("files written: %v", tree)
	}
	if tree["wf.v1/n.txt"] != "Intro\ncontext A\n- rule\n" || tree["other.v2/m.txt"] != "Intro\n- rule\n- rule\n" {
		t.Errorf("prompt files: %q", tree)
	}
	var onDisk catalog.Manifest
	if err := json.Unmarshal([]byte(tree[catalog.ManifestFile]), &onDisk); err != nil {
		t.Fatal(err)
	}
	want := []catalog.ManifestEntry{
		{Unit: []catalog.Member{{Key: "workflow", Value: "other.v2"}, {Key: "node", Value: "m"}, {Key: "task_ref", Value: "Gen v1.0"}}, Path: "other.v2/m.txt", Hash: prompt.Hash(tree["other.v2/m.txt"]), Bytes: len(tree["other.v2/m.txt"])},
		{Unit: []catalog.Member{{Key: "workflow", Value: "wf.v1"}, {Key: "node", Value: "n"}, {Key: "task_ref", Value: "Gen v1.0"}}, Path: "wf.v1/n.txt", Hash: prompt.Hash(tree["wf.v1/n.txt"]), Bytes: len(tree["wf.v1/n.txt"])},
	}
	if len(onDisk.Prompts) != 2 || !reflect.DeepEqual(onDisk.Prompts, want) || len(m.Prompts) != 2 {
		t.Errorf("manifest = %+v\nwant %+v", onDisk.Prompts, want)
	}

	// Compiling again gives the same bytes and leaves no temporary dirs.
	if _, err := compile(open(t, dir), ""); err != nil {
		t.Fatal(err)
	}
	sameTree(t, tree, readTree(t, out), "an identical compile")
	noLeftovers(t, filepath.Join(dir, "build"))
}

// sameTree fails unless the two file trees are equal.
func sameTree(t *testing.T, before, after map[string]string, what string) {
	t.Helper()
	if len(after) != len(before) {
		t.Fatalf("%s changed the set of files: %v", what, after)
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed %s", what, k)
		}
	}
}

// noLeftovers fails if anything but the output directory is left in dir.
func noLeftovers(t *testing.T, dir string) {
	t.Helper()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("leftovers beside the output: %v", entries)
	}
}

func TestCompileFailureKeepsPreviousOutput(t *testing.T) {
	files := twoWorkflows()
	dir := writeTree(t, files)
	if _, err := compile(open(t, dir), ""); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "build", "prompts")
	before := readTree(t, out)

	// Break both workflows in different ways.
	os.WriteFile(filepath.Join(dir, "tasks", "Gen v1.0.txt"), []byte("Intro\n$$CTX\n$$TYPO\n$$include shared/rules.txt\n"), 0o644)
	os.Remove(filepath.Join(dir, "ctx", "a.txt"))
	os.WriteFile(filepath.Join(dir, "workflows", "broken.json"), []byte("{\n\"nodes\": [\n}"), 0o644)

	_, err := compile(open(t, dir), "")
	var list diag.List
	if !errors.As(err, &list) {
		t.Fatalf("want a diag.List, got %v", err)
	}
	got := list.Error()
	for _, w := range []string{
		"tasks/Gen v1.0.txt:2:1: $$CTX (ctx/a.txt): file not found",
		"tasks/Gen v1.0.txt:3:1: unknown token $$TYPO",
		"workflows/broken.json:3:1: not valid JSON",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
	// Both nodes hit the same $$TYPO line: it is reported for each node,
	// naming the node, since each node's includes map may be the one to fix.
	for _, w := range []string{"unknown token $$TYPO: the workflow node's includes map has no entry for it [node at workflows/other.v2.json:3:3]",
		"unknown token $$TYPO: the workflow node's includes map has no entry for it [node at workflows/wf.v1.json:1:12]"} {
		if strings.Count(got, w) != 1 {
			t.Errorf("want %q once in:\n%s", w, got)
		}
	}
	sameTree(t, before, readTree(t, out), "a failed compile")
	noLeftovers(t, filepath.Join(dir, "build"))
}

func TestCompileRefusesDangerousOut(t *testing.T) {
	dir := writeTree(t, base())
	c := open(t, dir)
	for _, out := range []string{dir, filepath.Dir(dir), filepath.Join(dir, "workflows")} {
		if _, err := compile(c, out); err == nil {
			t.Errorf("Compile(%s) replaced a directory it should not", out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "workflows", "wf.v1.json")); err != nil {
		t.Fatalf("catalog damaged: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	os.Mkdir(empty, 0o755)
	if _, err := compile(c, empty); err != nil {
		t.Errorf("an empty directory should be usable: %v", err)
	}
}

// A catalog opened with OpenFS has no directory for tessera.yaml's out.
func TestCompileOpenFSNeedsOutDir(t *testing.T) {
	fsys := fstest.MapFS{}
	for name, text := range base() {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	c, err := catalog.OpenFS(context.Background(), fsys, presets.Default().Sections()...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := compile(c, ""); err == nil {
		t.Error("Compile without an output directory should fail for OpenFS")
	}
}

func TestBuildOrder(t *testing.T) {
	c := open(t, writeTree(t, twoWorkflows()))
	e := Engine{Registry: presets.Default()}
	built, err := e.Build(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range built {
		got = append(got, b.Unit.Entry.Get("workflow")+"/"+b.Unit.Entry.Get("node"))
	}
	if strings.Join(got, " ") != "other.v2/m wf.v1/n" {
		t.Errorf("order = %v", got)
	}
}
