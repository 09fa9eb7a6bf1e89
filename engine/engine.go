// Package engine is Tessera's one pipeline: a preset lays a prompt out as
// sections and a style, and the engine renders them with the one renderer
// (fencing untrusted text), fits them into a token budget, hashes the
// text, records the assembly and maps it onto a provider's request body.
// Assemble, Compile and Replay do for a Go program exactly what the
// tessera command does; the command only parses flags and prints.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/tessera-dev/tessera"
	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/include"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/render"
	"github.com/tessera-dev/tessera/tokenizer"
)

// Engine assembles prompts with the presets of its registry; the engine
// itself knows no preset (package presets gathers Tessera's five:
// &Engine{Registry: presets.Default()} has all of them). The zero Engine has
// no presets: it assembles a Layout made in Go, and says how to add
// presets when asked for one. An Engine is safe for concurrent use once
// set up.
type Engine struct {
	// Registry holds the presets; nil means none.
	Registry *preset.Registry
	// Now is the clock of assembly timestamps; nil means time.Now.
	Now func() time.Time
	// Cache keeps budget section counts across assemblies; nil counts
	// afresh each time.
	Cache *budget.Cache
	// Progress, when set, is called by Build and Compile before each
	// prompt is built: done of total, and where it goes under the output
	// directory. The command shows it on a terminal.
	Progress func(done, total int, out string)
}

func (e *Engine) registry() *preset.Registry {
	if e.Registry != nil {
		return e.Registry
	}
	return &preset.Registry{} // none
}

// Open opens the catalog rooted at dir (see catalog.Open) with the
// sections its presets own in tessera.yaml (specs, typed, layered for
// presets.Default), so that the catalog reads them. Close it when done.
func (e *Engine) Open(ctx context.Context, dir string) (*catalog.Catalog, error) {
	return catalog.Open(ctx, dir, e.registry().Sections()...)
}

// OpenFS opens a catalog held in fsys (see catalog.OpenFS) with the
// sections its presets own, as Open does.
func (e *Engine) OpenFS(ctx context.Context, fsys fs.FS) (*catalog.Catalog, error) {
	return catalog.OpenFS(ctx, fsys, e.registry().Sections()...)
}

// noPresetsHint is added to a message about a missing preset when the
// engine has none at all.
func (e *Engine) noPresetsHint() string {
	if len(e.registry().Presets()) > 0 {
		return ""
	}
	return ": this Engine has no presets; set its Registry: presets.Default() holds Tessera's five, or register your own"
}

func (e *Engine) now() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

// Request is one assembly.
type Request struct {
	// Preset names the preset; empty chooses the one whose selecting
	// inputs Args holds (see preset.Registry.Select).
	Preset string
	// Args are the preset's inputs.
	Args preset.Args
	// Catalog is the catalog in use, or nil. It gives presets their
	// files, and the redaction patterns, limits, budget and log of its
	// tessera.yaml.
	Catalog *catalog.Catalog
	// Budget, when set, fits the prompt into a token budget; nil applies
	// the catalog's budget when it has one.
	Budget *Budget
	// Delivery, when set, also encodes a provider request body.
	Delivery *Delivery
	// CorrelationID identifies the record; empty makes a new random one.
	CorrelationID string
	// Log, when set, is appended the record; nil uses the catalog's log
	// when its tessera.yaml names one. Problems with the log's index go
	// to its Warn, or, without one, to Result.Notes as warnings.
	Log *audit.Log
	// NoLog turns the catalog's log off for this assembly.
	NoLog bool
	// AllowEmpty accepts an empty prompt, which is otherwise an error.
	AllowEmpty bool
	// MaxFileBytes, when above 0, caps each input file the preset reads
	// in place of the catalog's limits.max_file_bytes (or the default);
	// the catalog's own files keep its cap.
	MaxFileBytes int64
	// Layout, when set, is the prompt already laid out by a preset's own
	// Go API (such as a typed template bound to Go structs), used in
	// place of Load; Preset must name the preset that made it, whose
	// Rebuild replays the record, and Args must be empty.
	Layout *preset.Layout
}

// Budget is a token budget for Request.
type Budget struct {
	// Model is whose tokenizer counts; empty means the delivery's model,
	// else the catalog's budget model, else "gpt-4o".
	Model string
	// Context is the context window in tokens; 0 takes the catalog's.
	Context int
	// Reserve is kept for the reply; negative takes the catalog's.
	Reserve int
	// Tokenizer, when set, is the path of the model's tokenizer file (a
	// Hugging Face tokenizer.json or a GGUF file) that counts, in place
	// of the one tessera.yaml's tokenizers: names or the model's built-in
	// counter.
	Tokenizer string
}

// Delivery asks for a provider request body.
type Delivery struct {
	// Format is the API.
	Format provider.Format
	// Model names the model in the body; empty uses DefaultModel.
	Model string
	// MaxTokens caps the reply; 0 leaves the provider's default (for
	// Anthropic, which requires one, provider.DefaultMaxTokens).
	MaxTokens int
	// SystemRole, CacheBreakpoints: see provider.Options.
	SystemRole       string
	CacheBreakpoints bool
	// Strictify makes output and tool schemas strict-mode compatible
	// where that can be done, and moves the schema keywords the model
	// refuses into descriptions where it can (see schema.MoveKeywords).
	Strictify bool
	// Models is the capability table the request is checked against;
	// nil means the catalog's (tessera.yaml's models: over the built-in
	// table), else provider.BuiltinModels().
	Models *provider.ModelTable
	// AllowModelMismatch sends a model the capability table gives to
	// another provider than Format's (through a proxy that serves it
	// under Format's API, say), with a note and without the model's
	// checks. Without it, such a model is a *ModelError.
	AllowModelMismatch bool
}

// DefaultModel is the model a request body names when none is given: one
// of each provider's current models that accepts every request shape
// Tessera encodes (an output schema together with tools included).
func DefaultModel(f provider.Format) string {
	switch f {
	case provider.Anthropic:
		return "claude-sonnet-4-6"
	case provider.Gemini:
		return "gemini-3.5-flash"
	}
	return "gpt-4o"
}

// Section is one top-level section of an assembled prompt as it was
// rendered: where it goes in a provider request, and its text.
type Section struct {
	// Key is the section's key.
	Key string
	// Role is the request side it is sent on.
	Role prompt.Role
	// Stable marks text that stays the same from request to request.
	Stable bool
	// Text is the section's rendered text, heading included.
	Text string
	// Start and End are its byte range in the prompt's text.
	Start, End int
}

// Result is an assembled prompt.
type Result struct {
	// Preset names the preset that laid it out.
	Preset string
	// Label names the prompt in messages.
	Label string
	// Prompt is the text, its hash, each section's span and the files it
	// came from.
	Prompt prompt.Prompt
	// Sections are the top-level sections as rendered, in order, with
	// their roles and stability; one section with an empty key for a
	// preset whose text is one piece.
	Sections []Section
	// Tools are offered to the model: those of the sections kept.
	Tools []prompt.Tool
	// Output is the reply schema the prompt asks for, or nil.
	Output *preset.Output
	// Budget is the budget report, when a budget was applied.
	Budget *budget.Report
	// Record is the audit record.
	Record *audit.Record
	// Body is the provider request body, when a delivery was asked for.
	Body []byte
	// Notes are what the caller should know but that did not stop the
	// assembly, such as a schema sent without strict mode.
	Notes []string

	fitted []prompt.Section
	style  render.Style
	scrub  *scrubber
}

// Env returns the environment presets get for catalog c (nil for none):
// the catalog's redaction patterns and limits, or the defaults.
func Env(c *catalog.Catalog) (*preset.Env, error) {
	env := &preset.Env{Catalog: c, Redactor: guard.Default(), Limits: catalog.DefaultLimits()}
	if c == nil {
		return env, nil
	}
	cfg := c.Config()
	r, err := cfg.Redaction.Redactor()
	if err != nil {
		return nil, err
	}
	env.Redactor, env.Limits = r, cfg.Limits
	return env, nil
}

// Assemble lays out, renders, fits, hashes, records, logs and (when asked)
// encodes one prompt.
func (e *Engine) Assemble(ctx context.Context, req Request) (*Result, error) {
	p, err := e.choose(req)
	if err != nil {
		return nil, err
	}
	env, err := Env(req.Catalog)
	if err != nil {
		return nil, err
	}
	if req.MaxFileBytes > 0 {
		env.Limits.MaxFileBytes = req.MaxFileBytes
	}
	var l *preset.Layout
	if req.Layout != nil {
		if req.Preset == "" || len(req.Args) > 0 {
			return nil, errors.New("engine: a request with a Layout names its preset and has no Args")
		}
		l = req.Layout
	} else if l, err = p.Load(ctx, env, req.Args); err != nil {
		return nil, err
	}
	if req.Delivery != nil {
		// Tools go as native definitions: the text does not repeat them.
		native := *l
		native.Sections = nativeBodies(l.Sections)
		l = &native
	}
	counter, b, err := ResolveBudget(req.Catalog, req.Budget, req.Delivery, layoutMessages(l))
	if err != nil {
		return nil, err
	}
	var fr *framing
	if counter != nil && req.Delivery != nil {
		// The budget counts the request as it is sent: the text as the
		// body carries it, the native tools of the sections kept and the
		// output schema.
		fr, b.Output = sent(req.Delivery.Format, deliveryModel(req.Delivery), l, counter)
	}
	res, err := e.finish(ctx, p, l, env, counter, b, fr)
	if err != nil {
		var fe *FitError
		if errors.As(err, &fe) && (req.Budget == nil || req.Budget.Context == 0) && req.Catalog != nil && req.Catalog.Config().Budget != nil {
			fe.BudgetLine = req.Catalog.Config().Budget.Line
		}
		return nil, err
	}
	if res.Prompt.Text == "" && !req.AllowEmpty {
		return nil, fmt.Errorf("%s: the assembled prompt is empty: check the template and its includes, or pass --allow-empty if an empty prompt is meant", res.Label)
	}
	id := req.CorrelationID
	if id == "" {
		id = audit.NewCorrelationID()
	} else if err := audit.CheckCorrelationID(id); err != nil {
		return nil, err
	}
	if res.Record, err = e.record(res, l, id); err != nil {
		return nil, err
	}
	if d := req.Delivery; d != nil {
		if err := res.deliver(d, req.Catalog); err != nil {
			return nil, err
		}
	}
	lg := req.Log
	if lg == nil && !req.NoLog && req.Catalog != nil {
		path, err := req.Catalog.WritePath("log")
		if err != nil {
			return nil, err
		}
		if path != "" {
			lg = &audit.Log{Path: path}
		}
	}
	if lg, err = KeyedLog(req.Catalog, lg); err != nil {
		return nil, err
	}
	if lg != nil {
		if lg.Warn == nil {
			// Problems with the log's index do not fail the assembly;
			// the caller hears of them with the notes.
			l := *lg
			l.Warn = func(err error) { res.Notes = append(res.Notes, "warning: "+err.Error()) }
			lg = &l
		}
		if err := lg.Append(ctx, res.Record); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func (e *Engine) choose(req Request) (preset.Preset, error) {
	reg := e.registry()
	if req.Preset != "" {
		p := reg.Lookup(req.Preset)
		if p == nil {
			if hint := e.noPresetsHint(); hint != "" {
				return nil, fmt.Errorf("no preset %q%s", req.Preset, hint)
			}
			return nil, fmt.Errorf("no preset %q: the presets are %v", req.Preset, presetNames(reg))
		}
		return p, nil
	}
	given := make([]string, 0, len(req.Args))
	for _, p := range reg.Presets() {
		for _, in := range p.Inputs() {
			if req.Args.Has(in.Name) {
				given = append(given, in.Name)
			}
		}
	}
	if hint := e.noPresetsHint(); hint != "" {
		return nil, fmt.Errorf("no preset to assemble with%s", hint)
	}
	return reg.Select(given)
}

func presetNames(r *preset.Registry) []string {
	var names []string
	for _, p := range r.Presets() {
		names = append(names, p.Name())
	}
	return names
}

func layoutMessages(l *preset.Layout) int { return max(l.Messages, 1) }

// finish renders the layout, fits it when counter is set, checks the
// output cap, and collects the sections, tools and output.
//
// With a framing fr, the budget counts the request as fr's provider
// receives it.
func (e *Engine) finish(ctx context.Context, p preset.Preset, l *preset.Layout, env *preset.Env, counter tokenizer.Counter, b budget.Budget, fr *framing) (*Result, error) {
	sc := newScrubber(env.Redactor, env.Catalog)
	l = sc.layout(l) // the last pass of redaction: see scrubber
	res := &Result{Preset: p.Name(), Label: l.Label, Output: l.Output, Notes: slices.Clone(l.Notes), fitted: l.Sections, style: l.Style, scrub: sc}
	if max := env.Limits.MaxOutputBytes; counter == nil && max > 0 {
		// Unfitted, every body and item is written whole: a text that
		// would be over the cap is refused before it is built.
		if n := render.MinSize(l.Sections); n > max {
			return nil, fmt.Errorf("%s: the assembled prompt would be at least %d bytes, over the %d-byte output cap: shorten its inputs, or raise %s in tessera.yaml", l.Label, n, max, include.OutputCapKey)
		}
	}
	if counter != nil {
		opts := budget.Options{Counter: counter, Cache: e.Cache}
		if fr != nil {
			opts.Framing = fr
		}
		fit, err := budget.Fit(ctx, l.Sections, func(s []prompt.Section) prompt.Prompt { return render.Render(s, l.Style) }, b, opts)
		if err != nil {
			return nil, &FitError{Label: l.Label, Err: err, At: l.At}
		}
		res.Prompt, res.fitted, res.Budget = fit.Prompt, fit.Sections, &fit.Report
		if fr != nil {
			res.Budget.Provider, res.Budget.Model = fr.format.String(), fr.model
		}
	} else {
		res.Prompt = render.Render(l.Sections, l.Style)
	}
	res.Prompt.Sources = l.Sources
	if err := sc.check(l.Label, res.Prompt.Text); err != nil {
		return nil, err
	}
	if n := int64(len(res.Prompt.Text)); env.Limits.MaxOutputBytes > 0 && n > env.Limits.MaxOutputBytes {
		return nil, fmt.Errorf("%s: the assembled prompt is %d bytes, over the %d-byte output cap: shorten its inputs, or raise %s in tessera.yaml", l.Label, n, env.Limits.MaxOutputBytes, include.OutputCapKey)
	}
	res.Sections = sectionsOf(res.Prompt, res.fitted, l.Style)
	tools, err := toolsOf(res.fitted, res.Sections, l.Style)
	if err != nil {
		return nil, err
	}
	res.Tools = tools
	return res, nil
}

// sectionsOf pairs each top-level span with its section's role and its
// slot's stability.
func sectionsOf(p prompt.Prompt, secs []prompt.Section, st render.Style) []Section {
	if st.Whole {
		// One piece, built from the catalog's files alone: stable.
		role := prompt.RoleUser
		if len(secs) > 0 {
			role = secs[0].Role
		}
		return []Section{{Role: role, Stable: true, Text: p.Text, End: len(p.Text)}}
	}
	stable := make(map[string]bool, len(st.Slots))
	for _, s := range st.Slots {
		stable[s.Key] = s.Stable
	}
	out := make([]Section, 0, len(secs))
	for _, sp := range p.Sections {
		if !isTop(sp.Key) {
			continue
		}
		s := Section{Key: sp.Key, Stable: stable[sp.Key], Text: p.Text[sp.Start:sp.End], Start: sp.Start, End: sp.End}
		for i := range secs {
			if secs[i].Key == sp.Key {
				s.Role = secs[i].Role
				break
			}
		}
		out = append(out, s)
	}
	return out
}

func isTop(key string) bool {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return false
		}
	}
	return true
}

// record makes the audit record of res.
func (e *Engine) record(res *Result, l *preset.Layout, id string) (*audit.Record, error) {
	rec := &audit.Record{
		AssembledPrompt:     res.Prompt.Text,
		AssembledPromptHash: res.Prompt.Hash,
		AssemblyTimestamp:   audit.Timestamp(e.now()),
		CorrelationID:       id,
		Preset:              res.Preset,
		Label:               l.Label,
		Sources:             res.Prompt.Sources,
		Sections:            res.Prompt.Sections,
		Budget:              res.Budget,
		TesseraVersion:      tessera.Version,
	}
	if len(l.Redactions) > 0 {
		rec.Redactions = map[string]int{}
		for _, c := range l.Redactions {
			rec.Redactions[c.Label] = c.N
		}
	}
	if l.Record != nil {
		if err := l.Record(rec); err != nil {
			return nil, err
		}
	}
	res.scrub.record(rec)
	res.scrub.addCounts(rec)
	return rec, nil
}

// ResolveBudget returns the counter and budget an assembly of the given
// number of provider messages is fitted to: b when it sets a context,
// else the catalog's budget (with b's model and reserve overriding it),
// else none (a nil counter). The model is b's, else the delivery's, else
// the catalog's, else gpt-4o.
func ResolveBudget(c *catalog.Catalog, b *Budget, d *Delivery, messages int) (tokenizer.Counter, budget.Budget, error) {
	var (
		none    budget.Budget
		model   string
		context int
		reserve = -1
	)
	var file string
	if b != nil {
		model, context, reserve, file = b.Model, b.Context, b.Reserve, b.Tokenizer
	}
	if model == "" && d != nil {
		model = d.Model
		if model == "" {
			model = DefaultModel(d.Format)
		}
	}
	if context == 0 {
		var cfg *catalog.BudgetConfig
		if c != nil {
			cfg = c.Config().Budget
		}
		if cfg == nil {
			return nil, none, nil
		}
		context = cfg.Context
		if model == "" {
			model = cfg.Model
		}
		if reserve < 0 {
			reserve = cfg.Reserve
		}
	}
	if model == "" {
		model = "gpt-4o"
	}
	reserve = max(reserve, 0)
	if context < 0 || reserve >= context {
		return nil, none, &BudgetError{Context: context, Reserve: reserve}
	}
	counter, err := CounterFor(c, model, file)
	if err != nil {
		if file != "" {
			return nil, none, err
		}
		return nil, none, &ModelError{Err: err}
	}
	return counter, budget.Budget{Context: context, Reserve: reserve, Overhead: tokenizer.OverheadFor(counter, messages)}, nil
}

// BudgetError is a budget whose reserve leaves nothing of its context.
type BudgetError struct{ Context, Reserve int }

func (e *BudgetError) Error() string {
	return fmt.Sprintf("--budget %d and --reserve %d: the budget must be positive and larger than the reserve", e.Context, e.Reserve)
}

// ModelError is a model name that cannot be used: no counter is known
// for it, or the capability table gives it to another provider than the
// request body's (see Delivery.AllowModelMismatch).
type ModelError struct{ Err error }

func (e *ModelError) Error() string { return "--model: " + e.Err.Error() }

// Unwrap returns the cause.
func (e *ModelError) Unwrap() error { return e.Err }

// IsUsage reports whether err is a mistake in how the engine was asked
// (a bad budget, model or preset input) rather than in the inputs' files:
// the command line shows these as usage errors.
func IsUsage(err error) bool {
	var (
		be *BudgetError
		me *ModelError
		ie *preset.InputError
	)
	return errors.As(err, &be) || errors.As(err, &me) || errors.As(err, &ie)
}
