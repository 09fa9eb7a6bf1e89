package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/canonical"
	"github.com/tessera-dev/tessera/diag"
)

// SpecOut is the directory, under compile's output, that compiled specs
// go to: <out>/specs/<spec name>.txt.
const SpecOut = "specs"

// specExtensions are the file extensions of spec files in the specs
// directory.
var specExtensions = []string{".yaml", ".yml", ".json"}

// SpecBuild is a canonical prompt spec of the catalog, assembled.
type SpecBuild struct {
	// Path is the spec file's path relative to the catalog root.
	Path string
	// Name is the file's name without its extension; the compiled
	// prompt is <out>/specs/<Name>.txt.
	Name string
	// Result is the assembled spec, fitted to the catalog's budget when
	// it has one.
	Result *canonical.Result
}

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

// AssembleSpec assembles the canonical prompt spec at p (relative to the
// root) with the catalog's redaction patterns, and fits it to the
// catalog's budget when there is one.
func (c *Catalog) AssembleSpec(ctx context.Context, p string) (*canonical.Result, error) {
	text, err := c.readFile(ctx, p)
	if err != nil {
		return nil, err
	}
	spec, err := canonical.ParseSpec(p, []byte(text))
	if err != nil {
		return nil, err
	}
	r, err := c.cfg.Redaction.Redactor()
	if err != nil {
		return nil, diag.Errorf(ConfigFile, c.cfg.Redaction.Line, "redaction: %v", err)
	}
	res, err := canonical.Assemble(ctx, spec, canonical.Config{Redactor: r})
	if err != nil {
		return nil, err
	}
	counter, b, err := c.ConfiguredBudget(canonical.Messages)
	if err != nil || counter == nil {
		return res, err
	}
	if err := res.Fit(ctx, b, budget.Options{Counter: counter}); err != nil {
		e := diag.Errorf(p, 0, "does not fit the token budget: %v", err)
		e.Related = append(e.Related, diag.Location{Label: "budget at", Path: ConfigFile, Line: c.cfg.Budget.Line})
		return nil, e
	}
	return res, nil
}

// BuildSpecs assembles every spec of the specs directory (see SpecPaths
// and AssembleSpec) and writes nothing. It reports every problem, as a
// sorted diag.List. Two specs whose names differ only by extension, or a
// workflow with the id "specs", would write to the same place and are an
// error.
func (c *Catalog) BuildSpecs(ctx context.Context) ([]*SpecBuild, error) {
	paths, err := c.SpecPaths(ctx)
	if err != nil || len(paths) == 0 {
		return nil, err
	}
	var (
		out  []*SpecBuild
		errs diag.List
	)
	if ids, err := c.WorkflowIDs(ctx); err == nil && slices.Contains(ids, SpecOut) {
		errs.Add(diag.Errorf(path.Join(c.cfg.Workflows, SpecOut+".json"), 0, "a workflow named %q would be compiled into the directory the specs go to: rename the workflow", SpecOut))
	}
	seen := map[string]string{}
	for _, p := range paths {
		name := strings.TrimSuffix(path.Base(p), path.Ext(p))
		if prev, ok := seen[name]; ok {
			errs.Add(diag.Errorf(p, 0, "compiles to %s/%s.txt, as %s does: rename one of them", SpecOut, name, prev))
			continue
		}
		seen[name] = p
		res, err := c.AssembleSpec(ctx, p)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			errs.Add(err)
			continue
		}
		out = append(out, &SpecBuild{Path: p, Name: name, Result: res})
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return out, nil
}
