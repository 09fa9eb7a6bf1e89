package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"

	"github.com/tessera-dev/tessera/diag"
)

// specExtensions are the file extensions of spec files in the specs
// directory.
var specExtensions = []string{".yaml", ".yml", ".json"}

// SpecPaths returns the paths of the spec files in the config's specs
// directory (.yaml, .yml, .json), sorted; none when the config names no
// specs directory.
func (c *Catalog) SpecPaths(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.cfg.Specs == "" {
		return nil, nil
	}
	entries, err := fs.ReadDir(c.fsys, c.cfg.Specs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, diag.Errorf(ConfigFile, 0, "specs directory %q does not exist: create it or fix the \"specs\" key", c.cfg.Specs)
		}
		return nil, fmt.Errorf("list specs in %s: %w", c.cfg.Specs, err)
	}
	var paths []string
	for _, e := range entries {
		if !e.IsDir() && slices.Contains(specExtensions, path.Ext(e.Name())) {
			paths = append(paths, path.Join(c.cfg.Specs, e.Name()))
		}
	}
	slices.Sort(paths)
	return paths, nil
}
