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

// specExtensions are the file extensions SectionFiles lists.
var specExtensions = []string{".yaml", ".yml", ".json"}

// SectionFiles returns the paths of the YAML and JSON files (.yaml, .yml,
// .json) in the directory tessera.yaml gives the preset section key,
// sorted; none when it gives none. A missing directory is a problem at
// the key's line.
func (c *Catalog) SectionFiles(ctx context.Context, key string) ([]string, error) {
	return c.dirFiles(ctx, key, c.cfg.Section(key))
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
