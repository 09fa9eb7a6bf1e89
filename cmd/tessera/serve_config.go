package main

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/internal/fileread"
)

// serveFromConfig sets each flag that neither the command line nor its
// TESSERA_* variable gave from the serve section of the catalog's
// tessera.yaml, when it has one. Call it after serveFromEnv: a flag set
// there counts as given.
func (a *app) serveFromConfig(fl *pflag.FlagSet) error {
	dir := a.root
	if dir == "" {
		found, err := findRoot()
		if err != nil {
			return nil // serve says what is missing
		}
		dir = found
	}
	path := filepath.Join(dir, catalog.ConfigFile)
	data, err := fileread.File(path, fileread.DefaultMaxBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return failure{err}
	}
	cfg, err := catalog.ParseConfig(path, data, a.engine.Registry.Sections()...)
	if err != nil {
		return failure{err}
	}
	settings := cfg.Serve.Flags()
	// A remote path in tessera.yaml is the catalog's neighbour, wherever
	// serve runs from; a path on the command line or in TESSERA_REMOTE is
	// the working directory's.
	if r, ok := settings["remote"]; ok && r != "" && !strings.Contains(r, "://") && !filepath.IsAbs(r) {
		settings["remote"] = filepath.Join(dir, r)
	}
	for _, flag := range slices.Sorted(maps.Keys(settings)) {
		if fl.Changed(flag) {
			continue
		}
		if err := fl.Set(flag, settings[flag]); err != nil {
			return failure{fmt.Errorf("%s:%d: serve.%s: %v", path, cfg.Serve.Line, strings.ReplaceAll(flag, "-", "_"), err)}
		}
	}
	return nil
}
