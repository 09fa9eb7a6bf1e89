package canonical

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/preset"
)

// Name is the preset's name in records.
const Name = "canonical"

// messageCount is the number of messages a canonical prompt is sent as: the
// system side (system prompt and identity) and the user side.
const messageCount = 2

// StableKeys are the keys of the sections that stay the same from one
// request to the next for a given assistant and user: the system prompt,
// the identity, the requesting user and the constraints. A provider
// request keeps its longest stable prefix first, for caching.
func StableKeys() []string {
	return []string{keySystemPrompt, keyIdentity, keyRequestingUser, keyConstraints}
}

// SpecOut is the directory, under compile's output, that compiled specs
// go to: <out>/specs/<spec name>.txt.
const SpecOut = "specs"

// Preset is the canonical preset (design 004) for the engine: a prompt
// spec laid out as the seven canonical sections. The zero value is ready
// to use.
type Preset struct{}

// New returns the canonical preset.
func New() *Preset { return &Preset{} }

// Name implements preset.Preset.
func (*Preset) Name() string { return Name }

// section is the key of tessera.yaml that names the specs directory.
const sectionKey = "specs"

// Section implements preset.Configurer: "specs" names the directory of
// specs compile builds.
func (*Preset) Section() catalog.Section {
	return catalog.Section{Key: sectionKey, Doc: "a directory of canonical prompt specs (.yaml, .yml, .json) that compile builds beside the workflow nodes"}
}

// Inputs implements preset.Preset: the spec file, and two rendering
// settings that override the spec's assembler block.
func (*Preset) Inputs() []preset.Input {
	return []preset.Input{
		{Name: "spec", Usage: "assemble this canonical prompt spec (YAML or JSON) instead of a workflow node", Kind: preset.File, Selects: true},
		{Name: "heading-level", Usage: "with --spec: heading level of the section labels, 1 to 3 (default: the spec's, else 2)", Kind: preset.Int},
		{Name: "hide-empty", Usage: "with --spec: leave out empty sections instead of rendering \"None provided.\"", Kind: preset.Bool},
	}
}

// Load implements preset.Preset: it reads the spec file args["spec"] (a
// path on disk, bounded by env's limits), parses it, redacts it with
// env's redactor and lays it out.
func (p *Preset) Load(ctx context.Context, env *preset.Env, args preset.Args) (*preset.Layout, error) {
	if env == nil {
		env = &preset.Env{}
	}
	cfg := Config{Redactor: env.Redactor}
	if v, ok := args["heading-level"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 3 {
			return nil, &preset.InputError{Input: "heading-level", Err: fmt.Errorf("%s: use 1, 2 or 3", v)}
		}
		cfg.HeadingLevel = n
	}
	cfg.HideEmptySections = args["hide-empty"] == "true"
	name := args["spec"]
	data, err := fileread.File(name, env.Limits.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	return p.layout(ctx, filepath.ToSlash(name), data, true, cfg)
}

// layout parses the spec data, the file name, and lays it out; owned
// says that nothing else holds data (see parseOwned).
func (p *Preset) layout(ctx context.Context, name string, data []byte, owned bool, cfg Config) (*preset.Layout, error) {
	parse := ParseSpec
	if owned {
		parse = parseOwned
	}
	spec, err := parse(name, data)
	if err != nil {
		return nil, err
	}
	res, err := prepare(ctx, spec, cfg, false)
	if err != nil {
		return nil, err
	}
	return res.Layout(name), nil
}

// Layout returns the assembled spec as the engine lays it out: its
// sections in the canonical style, its output schema, its redaction
// counts, and a record of the redacted spec with its rendering settings
// written into its assembler block, so Rebuild can lay it out again
// without the original file. What was redacted is counted, never kept.
// The style's slots and notes are shared by every layout: read them,
// never change them (Style returns a copy of one's own). A nil Result has
// no layout: nil.
func (r *Result) Layout(label string) *preset.Layout {
	if r == nil || r.Spec == nil {
		return nil
	}
	l := &preset.Layout{
		Sections:   r.Sections,
		Style:      style(r.Config),
		Messages:   messageCount,
		Redactions: r.Redactions,
		Label:      label,
		Record: func(rec *audit.Record) error {
			spec := *r.Spec
			show := !r.Config.HideEmptySections
			spec.Assembler = &AssemblerConfig{HeadingLevel: r.Config.HeadingLevel, ShowEmptySections: &show}
			if spec.Assembler.HeadingLevel == 0 {
				spec.Assembler.HeadingLevel = 2
			}
			data, err := spec.marshalRecord()
			if err != nil {
				return fmt.Errorf("canonical: recording the spec: %w", err)
			}
			rec.Inputs = data
			return nil
		},
	}
	if r.OutputSchema != nil {
		l.Output = &preset.Output{Name: r.OutputName, Schema: r.OutputSchema}
	}
	return l
}

// Rebuild implements preset.Preset: it lays out the spec the record holds
// again, with the same rendering settings. The recorded spec is already
// redacted; redacting it again could change placeholders that look like
// secrets, so it is laid out as it is.
func (p *Preset) Rebuild(ctx context.Context, env *preset.Env, rec *audit.Record) (*preset.Layout, error) {
	if rec == nil || len(rec.Inputs) == 0 {
		return nil, fmt.Errorf("record has no spec to rebuild from")
	}
	none, err := guard.NewRedactor(nil, false)
	if err != nil {
		return nil, err
	}
	return p.layout(ctx, "record spec", rec.Inputs, false, Config{Redactor: none})
}

// Units implements preset.Preset: every spec file of the catalog's specs
// directory, read through the catalog, compiled to specs/<name>.txt. Two
// specs whose names differ only by extension would write to the same
// place and are an error.
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
	if ids, err := c.WorkflowIDs(ctx); err == nil && slices.Contains(ids, SpecOut) {
		errs = append(errs, preset.Problem(path.Join(c.Config().Workflows, SpecOut+".json"), 0, "a workflow named %q would be compiled into the directory the specs go to: rename the workflow", SpecOut))
	}
	seen := map[string]string{}
	for _, sp := range paths {
		name := strings.TrimSuffix(path.Base(sp), path.Ext(sp))
		if prev, ok := seen[name]; ok {
			errs = append(errs, preset.Problem(sp, 0, "compiles to %s/%s.txt, as %s does: rename one of them", SpecOut, name, prev))
			continue
		}
		seen[name] = sp
		units = append(units, preset.Unit{
			Load: func(ctx context.Context) (*preset.Layout, error) {
				text, err := c.ReadFile(ctx, sp)
				if err != nil {
					return nil, err
				}
				return p.layout(ctx, sp, []byte(text), true, Config{Redactor: env.Redactor})
			},
			Out:   path.Join(SpecOut, name+".txt"),
			Entry: catalog.ManifestEntry{Unit: []catalog.Member{{Key: "spec", Value: sp}}},
			At:    preset.Location{Path: sp},
		})
	}
	if len(errs) > 0 {
		return units, preset.JoinErrors(errs)
	}
	return units, nil
}

// Summary implements preset.Describer.
func (*Preset) Summary() string {
	return "a canonical prompt spec from a YAML or JSON file (design 004)"
}

// UnitsSummary implements preset.Describer.
func (*Preset) UnitsSummary() string {
	return "every spec of the catalog's specs directory, to specs/<name>.txt"
}
