package typed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/include"
	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/internal/suggest"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/prompt"
)

// Name is the preset's name in records.
const Name = "typed"

// The preset's inputs, which are assemble's flags.
const (
	InputTemplate  = "typed"
	InputParams    = "typed-params"
	InputFixture   = "typed-fixture"
	inputExpand    = "typed-expand"
	inputOverrides = "typed-overrides"
	inputTag       = "typed-tag"
)

// outDir is the directory, under compile's output, that typed prompts go
// to: <out>/typed/<ns>/<key>/<fixture>.txt.
const outDir = "typed"

// Preset is the typed preset for the engine. The zero value is ready to
// use.
type Preset struct{}

// New returns the typed preset.
func New() *Preset { return &Preset{} }

// Name implements preset.Preset.
func (*Preset) Name() string { return Name }

// section is the key of tessera.yaml that names the templates directory.
const sectionKey = "typed"

// Section implements preset.Configurer: "typed" names the directory of
// templates compile builds with their fixtures.
func (*Preset) Section() catalog.Section {
	return catalog.Section{Key: sectionKey, Doc: "a directory of typed prompt templates (.yaml, .yml, .json) that compile builds with their fixtures"}
}

// Inputs implements preset.Preset.
func (*Preset) Inputs() []preset.Input {
	return []preset.Input{
		{Name: InputTemplate, Usage: "assemble this typed prompt template (design 003), a YAML or JSON file", Kind: preset.File, Selects: true},
		{Name: InputParams, Usage: "with --typed: the parameters' values, a YAML or JSON mapping", Kind: preset.File},
		{Name: InputFixture, Usage: "with --typed: take the parameters' values from this fixture of the template"},
		{Name: inputExpand, Usage: "with --typed: render these summarized sections in full (paths joined by ',', a child as parent/child)"},
		{Name: inputOverrides, Usage: "with --typed: replace section bodies and tool descriptions from this overrides file; stale ones are left out with a note", Kind: preset.File},
		{Name: inputTag, Usage: "with --typed: replace section bodies and tool descriptions from the overrides store (" + StoreDir + "/<ns>/<key>/<tag>.yaml under the catalog root, else the current directory) with this tag"},
	}
}

// Load implements preset.Preset: it reads the template, the values (a
// params file, or one of the template's fixtures, over the defaults) and
// the overrides, each file bounded by env's limits, and lays the prompt
// out, with secrets redacted from the values by env's redactor.
func (p *Preset) Load(ctx context.Context, env *preset.Env, args preset.Args) (*preset.Layout, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if env == nil {
		env = &preset.Env{}
	}
	if args.Has(InputParams) && args.Has(InputFixture) {
		return nil, &preset.InputError{Input: InputFixture, Err: errors.New("and --typed-params both give the values: use one")}
	}
	name := args[InputTemplate]
	t, err := readTemplate(name, env.Limits.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	opts := Options{Redactor: env.Redactor}
	if e := args[inputExpand]; e != "" {
		opts.Expand = splitPaths(e)
	}
	var vals Values
	switch {
	case args.Has(InputParams):
		pp := args[InputParams]
		data, err := fileread.File(pp, env.Limits.MaxFileBytes)
		if err != nil {
			return nil, err
		}
		if vals, err = t.ParseValues(filepath.ToSlash(pp), data); err != nil {
			return nil, err
		}
	case args.Has(InputFixture):
		f := t.fixture(args[InputFixture])
		if f == nil {
			hint := ""
			names := make([]string, len(t.Fixtures))
			for i, f := range t.Fixtures {
				names[i] = f.Name
			}
			if h := suggest.Nearest(args[InputFixture], names); h != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", h)
			}
			return nil, &preset.InputError{Input: InputFixture, Err: fmt.Errorf("%q: template %s/%s has no such fixture; its fixtures are %s%s", args[InputFixture], t.NS, t.Key, t.fixtureNames(), hint)}
		}
		if vals, err = t.valuesOf(t.path, f.Params); err != nil {
			return nil, err
		}
		if !args.Has(inputExpand) {
			opts.Expand = f.Expand
		}
	}
	if args.Has(inputOverrides) && args.Has(inputTag) {
		return nil, &preset.InputError{Input: inputTag, Err: errors.New("and --typed-overrides both give the overrides: use one")}
	}
	if args.Has(inputTag) {
		dir := StoreDir
		if env.Catalog != nil {
			dir = filepath.Join(env.Catalog.Dir(), StoreDir)
		}
		s, err := NewStore(dir)
		if err != nil {
			return nil, err
		}
		if opts.Overrides, err = s.Resolve(ctx, t, args[inputTag]); err != nil {
			return nil, &preset.InputError{Input: inputTag, Err: err}
		}
	}
	if args.Has(inputOverrides) {
		op := args[inputOverrides]
		data, err := fileread.File(op, env.Limits.MaxFileBytes)
		if err != nil {
			return nil, err
		}
		if opts.Overrides, err = t.ParseOverrides(filepath.ToSlash(op), data); err != nil {
			return nil, err
		}
	}
	l, err := t.Layout(vals, opts)
	if err != nil {
		return nil, err
	}
	if max := env.Limits.MaxOutputBytes; max > 0 {
		// The text is at least its titles and bodies: a layout over the
		// cap is refused before it is rendered, hashed and counted.
		if n := minSize(l.Sections); n > max {
			return nil, fmt.Errorf("%s: the prompt would be at least %d bytes, over the %d-byte output cap: shorten its values or sections, or raise %s in tessera.yaml", t.path, n, max, include.OutputCapKey)
		}
	}
	return l, nil
}

// minSize is a lower bound on the rendered size of secs: their titles
// and the text they show.
func minSize(secs []prompt.Section) int64 {
	var n int64
	for i := range secs {
		s := &secs[i]
		n += int64(len(s.Title))
		if s.Visibility == prompt.Summary {
			n += int64(len(s.Summary))
		} else {
			n += int64(len(s.Body))
		}
		n += minSize(s.Children)
	}
	return n
}

func readTemplate(name string, max int64) (*Template, error) {
	data, err := fileread.File(name, max)
	if err != nil {
		return nil, err
	}
	return Parse(filepath.ToSlash(name), data)
}

func splitPaths(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (t *Template) fixture(name string) *Fixture {
	for i := range t.Fixtures {
		if t.Fixtures[i].Name == name {
			return &t.Fixtures[i]
		}
	}
	return nil
}

func (t *Template) fixtureNames() string {
	if len(t.Fixtures) == 0 {
		return "none"
	}
	names := make([]string, len(t.Fixtures))
	for i, f := range t.Fixtures {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// Rebuild implements preset.Preset: it lays out again the template the
// record holds, with the recorded values (already redacted), expansions
// and applied overrides.
func (p *Preset) Rebuild(ctx context.Context, env *preset.Env, rec *audit.Record) (*preset.Layout, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var r record
	if rec == nil {
		return nil, fmt.Errorf("record has no typed template to rebuild from")
	}
	if err := json.Unmarshal(rec.Inputs, &r); err != nil || r.Template == "" {
		return nil, fmt.Errorf("record has no typed template to rebuild from")
	}
	t, err := Parse(r.Path, []byte(r.Template))
	if err != nil {
		return nil, fmt.Errorf("the recorded template no longer parses: %w", err)
	}
	vals := Values{}
	for name, raw := range r.Values {
		prm := t.Param(name)
		if prm == nil {
			return nil, fmt.Errorf("record: value for %q, which the recorded template does not declare", name)
		}
		var n yaml.Node
		if err := yaml.Unmarshal(raw, &n); err != nil || len(n.Content) != 1 {
			return nil, fmt.Errorf("record: value of %q: %v", name, err)
		}
		v, derr := valueOf(r.Path, prm, n.Content[0])
		if derr != nil {
			return nil, fmt.Errorf("record: %w", derr)
		}
		vals[name] = v
	}
	ov := newOverrides()
	for sp, body := range r.Sections {
		txt, errs := parseText(body)
		if len(errs) > 0 {
			return nil, fmt.Errorf("record: override of section %q: %s", sp, errs[0].msg)
		}
		ov.sections[sp] = override{body: body, text: txt}
	}
	for name, desc := range r.Tools {
		ov.tools[name] = override{body: desc}
	}
	for key, desc := range r.Params {
		ov.params[key] = override{body: desc}
	}
	for key, e := range r.Examples {
		ov.examples[key] = Example{Input: e[0], Output: e[1]}
	}
	return t.Layout(vals, Options{Expand: r.Expand, Overrides: ov})
}

// Units implements preset.Preset: every template of the catalog's typed
// directory, built with each of its fixtures into
// typed/<ns>/<key>/<fixture>.txt, or, without fixtures, with its defaults
// into typed/<ns>/<key>/default.txt. A template without fixtures whose
// parameters do not all have defaults is an error: compile cannot build
// it. Two templates with the same ns and key are an error.
func (p *Preset) Units(ctx context.Context, env *preset.Env) ([]preset.Unit, error) {
	if env == nil || env.Catalog == nil {
		return nil, nil
	}
	c := env.Catalog
	if c == nil {
		return nil, nil
	}
	paths, err := c.SectionFiles(ctx, sectionKey)
	if err != nil || len(paths) == 0 {
		return nil, err
	}
	var (
		units []preset.Unit
		errs  []error
	)
	if ids, err := c.WorkflowIDs(ctx); err == nil && slices.Contains(ids, outDir) {
		errs = append(errs, preset.Problem(path.Join(c.Config().Workflows, outDir+".json"), 0, "a workflow named %q would be compiled into the directory the typed prompts go to: rename the workflow", outDir))
	}
	seen := map[string]string{}
	for _, tp := range paths {
		text, err := c.ReadFile(ctx, tp)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		t, err := Parse(tp, []byte(text))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		id := t.NS + "/" + t.Key
		if prev, ok := seen[id]; ok {
			errs = append(errs, diag.ErrorfAt(tp, 1, 1, "template %s is also defined in %s: give each template its own ns and key", id, prev))
			continue
		}
		seen[id] = tp
		fixtures := t.Fixtures
		if len(fixtures) == 0 {
			if _, err := t.resolve(nil); err != nil {
				var miss *MissingError
				errors.As(err, &miss)
				prm := t.Param(miss.Names[0])
				errs = append(errs, diag.ErrorfAt(tp, prm.line, prm.col, "compile cannot build template %s: %s has no default and the template has no fixtures: add a fixture with its values, or a default", id, strings.Join(miss.Names, ", ")))
				continue
			}
			fixtures = []Fixture{{Name: "default"}}
		}
		for _, f := range fixtures {
			units = append(units, preset.Unit{
				Load: func(ctx context.Context) (*preset.Layout, error) {
					if err := ctx.Err(); err != nil {
						return nil, err
					}
					vals, err := t.valuesOf(tp, f.Params)
					if err != nil {
						return nil, err
					}
					l, err := t.Layout(vals, Options{Expand: f.Expand, Redactor: env.Redactor})
					if err != nil {
						var ie *preset.InputError
						if errors.As(err, &ie) {
							return nil, diag.ErrorfAt(tp, f.line, f.col, "fixture %q: expand: %v", f.Name, ie.Err)
						}
						return nil, err
					}
					l.Label = id + "#" + f.Name
					if f.line > 0 {
						l.At = preset.Location{Path: tp, Line: f.line, Col: f.col}
					}
					return l, nil
				},
				Out:     path.Join(outDir, t.NS, t.Key, f.Name+".txt"),
				Entry:   catalog.ManifestEntry{Unit: []catalog.Member{{Key: "spec", Value: tp}, {Key: "fixture", Value: f.Name}}},
				At:      preset.Location{Path: tp, Line: f.line, Col: f.col},
				Subject: fmt.Sprintf("typed %s fixture %q", id, f.Name),
			})
		}
	}
	if len(errs) > 0 {
		return units, preset.JoinErrors(errs)
	}
	return units, nil
}

// Summary implements preset.Describer.
func (*Preset) Summary() string {
	return "a typed template with its parameters' values (design 003)"
}

// UnitsSummary implements preset.Describer.
func (*Preset) UnitsSummary() string {
	return "every template of the catalog's typed directory with each fixture, to typed/<ns>/<key>/<fixture>.txt"
}
