package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tessera-dev/tessera/internal/testcatalog"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/presets"
)

// open opens the catalog at dir, closed when the test ends.
func open(t testing.TB, dir string) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Open(context.Background(), dir, presets.Default().Sections()...)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// compile compiles c into outDir ("" for its config's out) with the
// default engine.
func compile(c *catalog.Catalog, outDir string) (*Compiled, error) {
	e := Engine{Registry: presets.Default()}
	return e.Compile(context.Background(), c, outDir)
}

// examplePath is the path of a file of the bundled example catalog.
func examplePath(elem ...string) string {
	return filepath.Join(append([]string{"..", "examples"}, elem...)...)
}

var (
	base       = testcatalog.Base
	with       = testcatalog.With
	writeTree  = testcatalog.WriteTree
	writeFiles = testcatalog.WriteFiles
)
