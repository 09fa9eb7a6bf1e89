package engine

import (
	"context"
	"errors"
	"path"
	"path/filepath"
	"slices"

	"github.com/tessera-dev/tessera"
	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/preset"
)

// Built is one prompt the compile guardrail built.
type Built struct {
	// Unit is what was built.
	Unit preset.Unit
	// Result is the prompt, fitted to the catalog's budget when it has
	// one.
	Result *Result
}

// Build builds every unit of every preset from catalog c (see
// preset.Preset.Units), each fitted to the catalog's budget when it has
// one, and writes nothing. It reports every problem in the catalog, not
// just the first, as a sorted diag.List: a prompt that does not fit is
// reported where its unit says, with the budget's line beside it.
func (e *Engine) Build(ctx context.Context, c *catalog.Catalog) ([]Built, error) {
	env, err := Env(c)
	if err != nil {
		return nil, err
	}
	var (
		out  []Built
		errs diag.List
		outs = map[string]string{} // output path or directory -> preset
		last string                // directory of the previous unit
		scan = newSecretScan(c, env)
	)
	type presetUnits struct {
		p     preset.Preset
		units []preset.Unit
	}
	var all []presetUnits
	total, done := 0, 0
	for _, p := range e.registry().Presets() {
		units, err := p.Units(ctx, env)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		errs.Add(err)
		all = append(all, presetUnits{p, units})
		total += len(units)
	}
	out = slices.Grow(out, total)
	for _, pu := range all {
		p := pu.p
		for _, u := range pu.units {
			done++
			if e.Progress != nil {
				e.Progress(done, total, u.Out)
			}
			if prev, ok := outs[u.Out]; ok {
				errs.Add(diag.Errorf(u.At.Path, u.At.Line, "compiles to %s, as a %s prompt does: rename one of them", u.Out, prev))
				continue
			}
			dir := path.Dir(u.Out)
			if prev, ok := outs[dir+"/"]; ok && dir != last {
				errs.Add(diag.Errorf(u.At.Path, u.At.Line, "compiles into %s/, where %s prompts go too: rename one of them", dir, prev))
				continue
			}
			outs[u.Out], outs[dir+"/"], last = p.Name(), p.Name(), dir
			res, err := e.buildUnit(ctx, c, env, p, u, scan)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				errs.Add(err)
				continue
			}
			out = append(out, Built{Unit: u, Result: res})
		}
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return out, nil
}

func (e *Engine) buildUnit(ctx context.Context, c *catalog.Catalog, env *preset.Env, p preset.Preset, u preset.Unit, scan *secretScan) (*Result, error) {
	l, err := u.Load(ctx)
	if err != nil {
		return nil, err
	}
	counter, b, err := ResolveBudget(c, nil, nil, layoutMessages(l))
	if err != nil {
		var me *ModelError
		if errors.As(err, &me) && c != nil && c.Config().Budget != nil {
			return nil, diag.ErrorfAt(catalog.ConfigFile, c.Config().Budget.Line, c.Config().Budget.Col, "budget.model: %v", me.Err)
		}
		return nil, err
	}
	res, err := e.finish(ctx, p, l, env, counter, b, nil)
	if err != nil && counter != nil && ctx.Err() == nil {
		var fe *FitError
		if errors.As(err, &fe) {
			msg := "does not fit the token budget"
			if u.Subject != "" {
				msg = u.Subject + " " + msg
			}
			d := diag.ErrorfAt(u.At.Path, u.At.Line, u.At.Col, "%s: %v", msg, fe.Err)
			d.Related = append(d.Related, diag.Location{Label: "budget at", Path: catalog.ConfigFile, Line: c.Config().Budget.Line, Col: c.Config().Budget.Col})
			return nil, d
		}
	}
	if err != nil {
		return nil, err
	}
	if errs := scan.unit(ctx, u, l, res); len(errs) > 0 {
		return nil, errs
	}
	return res, nil
}

// Compiled is what Compile wrote.
type Compiled struct {
	// Manifest is the manifest written with the prompts.
	*catalog.Manifest
	// Dir is the output directory.
	Dir string
	// Removed lists the leftovers of earlier compiles killed half way,
	// which this compile recognised as its own and removed.
	Removed []string
}

// Compile builds every unit (see Build) and writes each prompt to its
// place under outDir, with a manifest.json beside them; an empty outDir
// means tessera.yaml's "out" under the catalog root. Nothing is written
// when anything fails, and a previous output directory is replaced only
// once the new one is complete (see catalog.WriteBuild). It refuses to
// replace a directory that holds the catalog or is not a previous
// compile's output.
func (e *Engine) Compile(ctx context.Context, c *catalog.Catalog, outDir string) (*Compiled, error) {
	if outDir == "" {
		if c.Dir() == "" {
			return nil, errors.New("compile: a catalog opened with OpenFS needs an output directory")
		}
		p, err := c.WritePath("out")
		if err != nil {
			return nil, err
		}
		outDir = p
	}
	if err := c.CheckOutDir(outDir); err != nil {
		return nil, err
	}
	built, err := e.Build(ctx, c)
	if err != nil {
		return nil, err
	}
	m := &catalog.Manifest{TesseraVersion: tessera.Version, Prompts: make([]catalog.ManifestEntry, 0, len(built))}
	texts := make([]string, 0, len(built))
	for _, b := range built {
		entry := b.Unit.Entry
		entry.Path, entry.Hash, entry.Bytes = b.Unit.Out, b.Result.Prompt.Hash, len(b.Result.Prompt.Text)
		m.Prompts = append(m.Prompts, entry)
		texts = append(texts, b.Result.Prompt.Text)
	}
	removed, err := catalog.WriteBuild(ctx, outDir, texts, m)
	if err != nil {
		return nil, err
	}
	return &Compiled{Manifest: m, Dir: filepath.Clean(outDir), Removed: removed}, nil
}

// FitError is a prompt that does not fit its budget.
type FitError struct {
	// Label names the prompt.
	Label string
	// Err is the budget's error, such as a *budget.NeverDropError.
	Err error
	// At is where the prompt is defined, when its preset says
	// (preset.Layout.At).
	At preset.Location
	// BudgetLine is the line of tessera.yaml's "budget" key when the
	// budget came from there, else 0.
	BudgetLine int
}

// Error reads "path:line:col: label does not fit the token budget: why
// [budget at tessera.yaml:line:1]",
// with the parts that are known.
func (e *FitError) Error() string { return e.Diag().Error() }

// Diag returns the error as a diagnostic at the prompt's definition, with
// the budget's place in tessera.yaml beside it when the budget came from
// there.
func (e *FitError) Diag() *diag.Error {
	d := diag.ErrorfAt(e.At.Path, e.At.Line, e.At.Col, "%s does not fit the token budget: %v", e.Label, e.Err)
	d.Err = e.Err
	if e.BudgetLine > 0 {
		d.Related = append(d.Related, diag.Location{Label: "budget at", Path: catalog.ConfigFile, Line: e.BudgetLine, Col: 1})
	}
	return d
}

// Unwrap returns the budget's error.
func (e *FitError) Unwrap() error { return e.Err }

// As lets errors.As find the error as a *diag.Error (see Diag), so that
// reports that gather diagnostics show it at its place like any other.
func (e *FitError) As(target any) bool {
	if t, ok := target.(**diag.Error); ok {
		*t = e.Diag()
		return true
	}
	return false
}
