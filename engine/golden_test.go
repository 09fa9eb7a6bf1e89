package engine

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/preset/canonical"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden and testdata/bodies from current output")

// TestExamplesGolden compiles the bundled example catalog and compares
// every output file with testdata/golden/examples. Run
// go test ./engine -run TestExamplesGolden -update after an intended
// change, and review the diff.
func TestExamplesGolden(t *testing.T) {
	c := open(t, examplePath())
	out := filepath.Join(t.TempDir(), "prompts")
	m, err := compile(c, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Prompts) != 10 {
		t.Errorf("compiled %d prompts, want 4 workflow nodes, 2 specs, 2 typed and 2 layered fixtures", len(m.Prompts))
	}
	// A compiled spec is what the canonical preset renders for it: the
	// canonical package's own golden file, which adds a final newline.
	for _, name := range []string{"v2-example", "support-ticket"} {
		got, err := os.ReadFile(filepath.Join(out, canonical.SpecOut, name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("..", "preset", "canonical", "testdata", "golden", name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got)+"\n" != string(want) {
			t.Errorf("compiled spec %s differs from preset/canonical/testdata/golden/%s.txt", name, name)
		}
	}
	golden := filepath.Join("testdata", "golden", "examples")
	if *update {
		if err := os.RemoveAll(golden); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(golden, os.DirFS(out)); err != nil {
			t.Fatal(err)
		}
		return
	}
	names := []string{catalog.ManifestFile}
	for _, e := range m.Prompts {
		names = append(names, filepath.FromSlash(e.Path))
	}
	for _, name := range names {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(golden, name))
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if string(got) != string(want) {
			t.Errorf("%s differs from its golden file; run with -update if the change is intended:\n%s", name, got)
		}
	}
	// The golden tree holds nothing the compile did not write.
	var extra []string
	filepath.WalkDir(golden, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(golden, p)
			if _, err := os.Stat(filepath.Join(out, rel)); err != nil {
				extra = append(extra, rel)
			}
		}
		return nil
	})
	if len(extra) > 0 {
		t.Errorf("golden files no longer produced: %v (run with -update)", extra)
	}
}
