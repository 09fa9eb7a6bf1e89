package catalog

import (
	"context"
	"testing"

	"github.com/tessera-dev/tessera/internal/testcatalog"
)

func open(t testing.TB, dir string) *Catalog {
	t.Helper()
	c, err := Open(context.Background(), dir, testSections...)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var (
	base       = testcatalog.Base
	with       = testcatalog.With
	writeTree  = testcatalog.WriteTree
	writeFiles = testcatalog.WriteFiles
)
