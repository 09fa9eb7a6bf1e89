package layered

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/embed"
	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/layered/untrusted"
)

// Name is the preset's name in records.
const Name = "layered"

// The preset's inputs, which are assemble's flags.
const (
	InputTask        = "layered-task"
	InputMode        = "layered-mode"
	InputDir         = "layered-dir"
	InputContext     = "layered-context"
	InputInteractive = "layered-interactive"
	InputMemories    = "layered-memories"
	InputReembed     = "layered-reembed"
)

// Preset is the layered preset for the engine, with the embedder the
// setup's layered.yaml names (the lexical embed.Hash by default; an
// endpoint's key from the environment), or the one WithEmbedder gives.
// The zero value is ready to use. From Go, an Assembler makes the
// selection too, and engine.Request.Layout assembles its layout.
type Preset struct {
	embedder embed.Embedder // nil: the setup's own
}

// An Option configures the preset New returns.
type Option func(*Preset)

// WithEmbedder makes the preset select with e (an embeddings model the
// program holds, say) in place of the embedder layered.yaml names. The
// record names the embedder used; replay lays the recorded selection out
// again and embeds nothing.
func WithEmbedder(e embed.Embedder) Option { return func(p *Preset) { p.embedder = e } }

// New returns the layered preset, configured by opts.
func New(opts ...Option) *Preset {
	p := &Preset{}
	for _, o := range opts {
		if o != nil {
			o(p)
		}
	}
	return p
}

// assembler returns an Assembler for setup with p's embedder, if any.
func (p *Preset) assembler(setup *Setup) *Assembler {
	var e embed.Embedder
	if p != nil {
		e = p.embedder
	}
	return &Assembler{Setup: setup, Embedder: e}
}

// Name implements preset.Preset.
func (*Preset) Name() string { return Name }

// section is the key of tessera.yaml that names the setup directory.
const sectionKey = "layered"

// Section implements preset.Configurer: "layered" names the setup
// directory, which is a whole catalog on its own.
func (*Preset) Section() catalog.Section {
	return catalog.Section{Key: sectionKey, Doc: "the layered preset's setup directory (layered.yaml, constitution.md, rules.md, rules/MODE.md or layers/, vectors.json)"}
}

// Inputs implements preset.Preset.
func (*Preset) Inputs() []preset.Input {
	return []preset.Input{
		{Name: InputTask, Usage: "assemble a trust-layered agent prompt (design 002) for this task", Selects: true},
		{Name: InputMode, Usage: "with --layered-task: plan, act, review or auto (default auto: inferred from hints and the task's words)"},
		{Name: InputDir, Usage: "with --layered-task: the setup directory (constitution.md, rules.md, layered.yaml); default: tessera.yaml's layered"},
		{Name: InputContext, Usage: "with --layered-task: the runtime context, YAML or JSON: git, env, memories, activity", Kind: preset.File},
		{Name: InputInteractive, Usage: "with --layered-task: an interactive session (hints the plan mode)", Kind: preset.Bool},
		{Name: InputMemories, Usage: "with --layered-task: memories, JSON Lines: id, text, kind, tags, created, embedding, embedder", Kind: preset.File},
		{Name: InputReembed, Usage: "with --layered-task: embed again the manifest vectors made by another embedder or from another text (by default an error)", Kind: preset.Bool},
	}
}

// Load implements preset.Preset: it reads the setup (from --layered-dir,
// else the catalog's layered directory), the context file and the
// memories file, makes the selection with the setup's embedder, and lays
// it out.
func (p *Preset) Load(ctx context.Context, env *preset.Env, args preset.Args) (*preset.Layout, error) {
	if env == nil {
		env = &preset.Env{}
	}
	setup, err := loadSetup(ctx, env, args)
	if err != nil {
		return nil, err
	}
	req := Request{Task: args[InputTask], Mode: args[InputMode]}
	if v, ok := args[InputInteractive]; ok {
		if req.Interactive, err = strconv.ParseBool(v); err != nil {
			return nil, &preset.InputError{Input: InputInteractive, Err: fmt.Errorf("%q: use true or false", v)}
		}
	}
	if f, ok := args[InputContext]; ok {
		data, err := fileread.File(f, env.Limits.MaxFileBytes)
		if err != nil {
			return nil, err
		}
		if req.Context, err = untrusted.ParseContext(filepath.ToSlash(f), data); err != nil {
			return nil, err
		}
	}
	if err := loadMemories(env, args, &req); err != nil {
		return nil, err
	}
	if err := checkMode(req.Mode); err != nil {
		return nil, &preset.InputError{Input: InputMode, Err: err}
	}
	if req.Context != nil {
		redactContext(env, req.Context)
	}
	a := p.assembler(setup)
	if v, ok := args[InputReembed]; ok {
		if a.Reembed, err = strconv.ParseBool(v); err != nil {
			return nil, &preset.InputError{Input: InputReembed, Err: fmt.Errorf("%q: use true or false", v)}
		}
	}
	sel, err := a.Select(ctx, req)
	if err != nil {
		if inFiles(err) {
			return nil, err
		}
		return nil, &preset.InputError{Input: InputTask, Err: err}
	}
	return sel.Layout(), nil
}

// redactContext redacts secrets from the untrusted entries' text.
func redactContext(env *preset.Env, c *untrusted.Context) {
	if env.Redactor == nil {
		return
	}
	for _, list := range [][]untrusted.Entry{c.Memories, c.Activity} {
		for i := range list {
			list[i].Text, _ = env.Redactor.RedactSecrets(list[i].Text)
		}
	}
}

func loadSetup(ctx context.Context, env *preset.Env, args preset.Args) (*Setup, error) {
	if dir, ok := args[InputDir]; ok {
		return ParseSetup(func(name string) (string, []byte, error) {
			p := filepath.Join(dir, filepath.FromSlash(name))
			data, err := fileread.File(p, env.Limits.MaxFileBytes)
			return filepath.ToSlash(p), data, err
		})
	}
	c := env.Catalog
	if c == nil || c.Config().Section(sectionKey) == "" {
		return nil, &preset.InputError{Input: InputDir, Err: errors.New("is needed: name the setup directory (constitution.md, rules.md, layered.yaml), or set layered: in tessera.yaml")}
	}
	dir := c.Config().Section(sectionKey)
	return ParseSetup(func(name string) (string, []byte, error) {
		p := path.Join(dir, name)
		text, err := c.ReadFile(ctx, p)
		return p, []byte(text), err
	})
}

// Rebuild implements preset.Preset: the record keeps the whole
// selection, so the prompt is laid out again without the embedder or the
// setup.
func (p *Preset) Rebuild(ctx context.Context, env *preset.Env, rec *audit.Record) (*preset.Layout, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var sel Selection
	if rec == nil {
		return nil, fmt.Errorf("record has no layered selection to rebuild from")
	}
	if err := json.Unmarshal(rec.Inputs, &sel); err != nil || sel.Task == "" {
		return nil, fmt.Errorf("record has no layered selection to rebuild from")
	}
	return sel.Layout(), nil
}

// fixtureOut is the directory, under compile's output, that layered fixtures go
// to: <out>/layered/<fixture>.txt.
const fixtureOut = "layered"

// Units implements preset.Preset: when the catalog names a layered
// setup, compile reads it (so a broken layered.yaml fails the build) and
// builds each of its fixtures into layered/<name>.txt with the setup's
// embedder.
func (p *Preset) Units(ctx context.Context, env *preset.Env) ([]preset.Unit, error) {
	if env == nil || env.Catalog == nil {
		return nil, nil
	}
	c := env.Catalog
	if c == nil || c.Config().Section(sectionKey) == "" {
		return nil, nil
	}
	setup, err := loadSetup(ctx, env, preset.Args{})
	if err != nil {
		return nil, err
	}
	dir := c.Config().Section(sectionKey)
	var errs []error
	if ids, err := c.WorkflowIDs(ctx); err == nil && slices.Contains(ids, fixtureOut) {
		errs = append(errs, preset.Problem(path.Join(c.Config().Workflows, fixtureOut+".json"), 0, "a workflow named %q would be compiled into the directory the layered fixtures go to: rename the workflow", fixtureOut))
	}
	a := p.assembler(setup)
	cfg := path.Join(dir, "layered.yaml")
	var units []preset.Unit
	for _, f := range setup.fixtures {
		at := preset.Location{Path: cfg, Line: f.line, Col: f.col}
		units = append(units, preset.Unit{
			Load: func(ctx context.Context) (*preset.Layout, error) {
				req := Request{Task: f.Task, Mode: f.Mode, Interactive: f.Interactive}
				if f.Context != "" {
					cp := path.Join(dir, f.Context)
					text, err := c.ReadFile(ctx, cp)
					if err != nil {
						return nil, err
					}
					if req.Context, err = untrusted.ParseContext(cp, []byte(text)); err != nil {
						return nil, err
					}
					redactContext(env, req.Context)
				}
				sel, err := a.Select(ctx, req)
				if err != nil {
					return nil, diag.ErrorfAt(cfg, f.line, f.col, "fixture %q: %v", f.Name, err)
				}
				l := sel.Layout()
				l.Label, l.At = "fixture "+f.Name, at
				return l, nil
			},
			Out:     path.Join(fixtureOut, f.Name+".txt"),
			Entry:   catalog.ManifestEntry{Unit: []catalog.Member{{Key: "spec", Value: cfg}, {Key: "fixture", Value: f.Name}}},
			At:      at,
			Subject: fmt.Sprintf("layered fixture %q", f.Name),
		})
	}
	if len(errs) > 0 {
		return units, preset.JoinErrors(errs)
	}
	return units, nil
}

// Summary implements preset.Describer.
func (*Preset) Summary() string {
	return "a trust-layered agent prompt: the tools, skills and memories selected for a task (design 002)"
}

// UnitsSummary implements preset.Describer.
func (*Preset) UnitsSummary() string {
	return "every fixture of the catalog's layered setup, to layered/<name>.txt"
}
