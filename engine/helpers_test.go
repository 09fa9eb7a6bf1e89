package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tessera-dev/tessera/catalog"
)

// base is a small valid catalog that tests change one file of.
func base() map[string]string {
	return map[string]string{
		"tessera.yaml":         "tasks: tasks\nworkflows: workflows\n",
		"tasks/Gen v1.0.txt":   "Intro\n$$CTX\n$$include shared/rules.txt\n",
		"ctx/a.txt":            "context A\n",
		"shared/rules.txt":     "- rule\n",
		"workflows/wf.v1.json": `{"nodes": [{"node_id": "n", "type": "t", "task_ref": "Gen v1.0", "includes": {"CTX": "ctx/a.txt"}}]}`,
	}
}

// with sets files' paths to contents, given in pairs; an empty content
// deletes the path.
func with(files map[string]string, kv ...string) map[string]string {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(files, kv[i])
		} else {
			files[kv[i]] = kv[i+1]
		}
	}
	return files
}

// writeTree writes files (slash paths relative to a new temp dir) and
// returns the dir.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	return dir
}

// writeFiles writes files (slash paths to contents) under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// open opens the catalog at dir, closed when the test ends.
func open(t testing.TB, dir string) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// compile compiles c into outDir ("" for its config's out) with the
// default engine.
func compile(c *catalog.Catalog, outDir string) (*Compiled, error) {
	var e Engine
	return e.Compile(context.Background(), c, outDir)
}

// examplePath is the path of a file of the bundled example catalog.
func examplePath(elem ...string) string {
	return filepath.Join(append([]string{"..", "examples"}, elem...)...)
}
