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
	return c.dirFiles(ctx, "specs", c.cfg.Specs)
}

// TypedPaths returns the paths of the typed prompt templates in the
// config's typed directory (.yaml, .yml, .json), sorted; none when the
// config names no typed directory.
func (c *Catalog) TypedPaths(ctx context.Context) ([]string, error) {
	return c.dirFiles(ctx, "typed", c.cfg.Typed)
}

// dirFiles lists the YAML and JSON files of dir, the value of the config
// key key, sorted.
func (c *Catalog) dirFiles(ctx context.Context, key, dir string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if dir == "" {
		return nil, nil
	}
	entries, err := fs.ReadDir(c.fsys, dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, diag.Errorf(ConfigFile, c.cfg.lines[key], "%s directory %q does not exist: create it or fix the %q key", key, dir, key)
		}
		return nil, fmt.Errorf("list %s in %s: %w", key, dir, err)
	}
	var paths []string
	for _, e := range entries {
		if !e.IsDir() && slices.Contains(specExtensions, path.Ext(e.Name())) {
			paths = append(paths, path.Join(dir, e.Name()))
		}
	}
	slices.Sort(paths)
	return paths, nil
}
