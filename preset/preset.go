// Package preset is the contract between Tessera's engine and the presets
// that lay out prompts: the template preset (design 001), the canonical
// preset (design 004) and those that follow. A preset reads its inputs and
// returns sections and a render.Style; it never renders, fits, hashes,
// fences, records or delivers. The engine does all of that, the same way
// for every preset, so a new preset is a layout and a style in a folder of
// its own, registered once.
//
// The contract, in the spirit of log/slog's Handler: a Preset names
// itself, declares its inputs (which become the assemble command's flags),
// lays out a prompt from them (Load), lays it out again from an audit
// record alone (Rebuild, for replay), and lists what the compile guardrail
// builds from a catalog (Units). presettest checks that a preset keeps the
// promises the engine relies on.
package preset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/internal/wordlist"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
)

// Preset lays out one kind of prompt.
type Preset interface {
	// Name names the preset in audit records and messages; it matches
	// ^[a-z][a-z0-9-]*$.
	Name() string
	// Inputs are the values Load reads, in the order a usage line lists
	// them. On the command line each is a flag of assemble.
	Inputs() []Input
	// Load lays out the prompt that args describe. Args holds a value for
	// every input that was given (as text; see Input.Kind).
	Load(ctx context.Context, env *Env, args Args) (*Layout, error)
	// Rebuild lays out again the prompt rec records, from what Load's
	// layout wrote into it (Layout.Record) and env as it is now.
	Rebuild(ctx context.Context, env *Env, rec *audit.Record) (*Layout, error)
	// Units lists the prompts the compile guardrail builds from env's
	// catalog, in a deterministic order; none when the catalog holds no
	// inputs for this preset.
	Units(ctx context.Context, env *Env) ([]Unit, error)
}

// Describer is implemented by a preset that says what it assembles and
// what compile builds from it, for the command's help texts: a preset
// that implements it appears in them with no change to the command.
type Describer interface {
	// Summary says what the preset assembles, as a noun phrase: "a
	// workflow node's prompt".
	Summary() string
	// UnitsSummary says what compile builds from a catalog with the
	// preset and where it writes it, as a noun phrase, or "" when it
	// builds nothing: "every workflow node with a task_ref, to
	// <workflow>/<node>.txt".
	UnitsSummary() string
}

// Configurer is implemented by a preset that owns a top-level key of
// tessera.yaml: the directory of its files ("specs: canonical"). The
// registry's Sections hands them to catalog.Open, so that a catalog
// reads the preset's key with no change to the catalog package, and the
// preset reads its files with Catalog.SectionFiles or Config.Section.
type Configurer interface {
	// Section is the key the preset owns and what its directory holds.
	Section() catalog.Section
}

// Kind is the type of an input's value.
type Kind uint8

const (
	// String is any text: a path, an id.
	String Kind = iota
	// Int is a whole number, written in decimal.
	Int
	// Bool is "true" or "false"; on the command line a flag without a
	// value.
	Bool
	// File is the path of a file on disk, as the user gave it (relative
	// to the working directory, not to a catalog).
	File
)

// Input is one value a preset reads.
type Input struct {
	// Name is the input's name, and its flag's: lower case words joined
	// by '-'.
	Name string
	// Usage says what the value is, for --help.
	Usage string
	// Kind is the value's type.
	Kind Kind
	// Selects marks the inputs that choose this preset: assemble uses the
	// preset whose selecting inputs are given, and each is then required.
	Selects bool
}

// Args are the values of a preset's inputs, by name, as text.
type Args map[string]string

// Has reports whether the input name was given.
func (a Args) Has(name string) bool { _, ok := a[name]; return ok }

// Env is what a preset may use beyond its inputs.
type Env struct {
	// Catalog is the catalog in use, or nil when there is none (a spec
	// assembled on its own).
	Catalog *catalog.Catalog
	// Redactor redacts secrets (and, where a preset says so, personal
	// data) from untrusted inputs before they are laid out or recorded.
	Redactor *guard.Redactor
	// Limits caps what a preset reads and produces.
	Limits catalog.Limits
}

// Layout is what a preset makes of its inputs: sections in a style, and
// what the engine needs to record, budget and deliver them.
type Layout struct {
	// Sections are the prompt's sections, before any budget.
	Sections []prompt.Section
	// Style is how they are written.
	Style render.Style
	// Messages is how many provider messages the prompt is sent as (the
	// budget counts their framing); 0 means 1.
	Messages int
	// Sources are the files the text came from, with their byte ranges in
	// the rendered text, for replay to name what changed.
	Sources []prompt.Source
	// Output, when set, is the JSON Schema the reply must match.
	Output *Output
	// Redactions counts what was redacted from the inputs, per label.
	Redactions guard.Counts
	// Label names the prompt in messages: "pm_discovery.v1/pgc", a spec's
	// path.
	Label string
	// At is where the prompt is defined, such as a workflow node or a spec
	// file, when the preset knows: problems found after Load, such as a
	// prompt that does not fit its budget, are reported there.
	At Location
	// Notes are what the caller should know about the layout that did not
	// stop it, such as an override left out because its section changed;
	// each starts with "note: " or "warning: ".
	Notes []string
	// Record writes into an audit record what Rebuild needs to lay the
	// prompt out again (the preset's inputs, as opaque data for audit);
	// nil records nothing beyond the text and its provenance.
	Record func(rec *audit.Record) error
}

// Output is a reply schema a layout asks for.
type Output struct {
	// Name names the schema for providers that want a name.
	Name string
	// Schema is the JSON Schema, as written (property order kept).
	Schema json.RawMessage
}

// Unit is one prompt the compile guardrail builds.
type Unit struct {
	// Load lays the prompt out.
	Load func(ctx context.Context) (*Layout, error)
	// Out is where the prompt is written, relative to compile's output
	// directory, slash-separated: "pm_discovery.v1/pgc.txt".
	Out string
	// Entry describes it in the manifest (Path, Hash and Bytes are filled
	// in by compile).
	Entry catalog.ManifestEntry
	// At is where a problem with the unit as a whole (a prompt that does
	// not fit the catalog's budget) is reported.
	At Location
	// Subject names the unit at the start of such a problem, as in
	// `node "pgc" does not fit the token budget`; empty when At says it.
	Subject string
}

// ErrNoCatalog is returned by a preset's Load when its inputs live in a
// catalog and there is none.
var ErrNoCatalog = errors.New("preset: no catalog: this preset reads its inputs from a catalog's files")

// InputError is a bad value of a preset's input; the command line shows
// it as a usage error of the input's flag.
type InputError struct {
	// Input names the input.
	Input string
	// Err says what is wrong and what to use instead.
	Err error
}

func (e *InputError) Error() string {
	switch {
	case e == nil:
		return "preset: an input error with no detail"
	case e.Err == nil:
		return "--" + e.Input + " is not valid"
	}
	return "--" + e.Input + " " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *InputError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// Problem returns a diagnostic at path and line, for presets to report
// problems with their inputs the way every other part of Tessera does.
func Problem(path string, line int, format string, args ...any) error {
	return diag.Errorf(path, line, format, args...)
}

// JoinErrors flattens errs into one diag.List (problems without a place
// keep their text), sorted, so that every problem is reported at once.
func JoinErrors(errs []error) error {
	var list diag.List
	for _, err := range errs {
		list.Add(err)
	}
	list.Sort()
	return list.Err()
}

// Location is a place in a file: a slash-separated path relative to the
// catalog root, a line and a column in bytes (each 0 when unknown).
type Location struct {
	Path      string
	Line, Col int
}

// Registry is a set of presets by name. The zero Registry is empty and
// ready to use; a Registry is not safe for concurrent Register calls.
type Registry struct {
	presets []Preset
}

// NewRegistry returns a registry holding presets, in that order.
func NewRegistry(presets ...Preset) (*Registry, error) {
	r := &Registry{}
	for _, p := range presets {
		if err := r.Register(p); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds p. Two presets may not share a name, nor an input that
// selects them. A nil registry or preset is an error.
func (r *Registry) Register(p Preset) error {
	switch {
	case r == nil:
		return errors.New("preset: Register on a nil *Registry: make one with NewRegistry, or use a zero Registry")
	case p == nil:
		return errors.New("preset: Register of a nil Preset: give a preset")
	}
	name := p.Name()
	if !validName(name) {
		return fmt.Errorf("preset: name %q: use lower-case letters, digits and '-', starting with a letter", name)
	}
	if r.Lookup(name) != nil {
		return fmt.Errorf("preset: %q is registered twice", name)
	}
	sel := 0
	for _, in := range p.Inputs() {
		if !validName(in.Name) {
			return fmt.Errorf("preset %s: input name %q: use lower-case letters, digits and '-'", name, in.Name)
		}
		if in.Selects {
			sel++
			for _, q := range r.presets {
				if slices.ContainsFunc(q.Inputs(), func(o Input) bool { return o.Selects && o.Name == in.Name }) {
					return fmt.Errorf("preset %s: input --%s already selects preset %s: give %s a selecting input of its own", name, in.Name, q.Name(), name)
				}
			}
		}
	}
	if sel == 0 {
		return fmt.Errorf("preset %s: no input selects it: mark at least one input Selects", name)
	}
	if c, ok := p.(Configurer); ok {
		key := c.Section().Key
		for _, q := range r.presets {
			if qc, ok := q.(Configurer); ok && qc.Section().Key == key {
				return fmt.Errorf("preset %s: section %q already belongs to preset %s: give %s a key of its own", name, key, q.Name(), name)
			}
		}
		if err := catalog.CheckSections(c.Section()); err != nil {
			return fmt.Errorf("preset %s: %w", name, err)
		}
	}
	r.presets = append(r.presets, p)
	return nil
}

// Sections returns the tessera.yaml sections of the registered presets
// that own one (Configurer), in registration order, for catalog.Open;
// none for a nil registry.
func (r *Registry) Sections() []catalog.Section {
	if r == nil {
		return nil
	}
	var out []catalog.Section
	for _, p := range r.presets {
		if c, ok := p.(Configurer); ok {
			out = append(out, c.Section())
		}
	}
	return out
}

// Presets returns the registered presets, in registration order; none
// for a nil registry.
func (r *Registry) Presets() []Preset {
	if r == nil {
		return nil
	}
	return slices.Clone(r.presets)
}

// Lookup returns the preset named name, or nil (also from a nil
// registry).
func (r *Registry) Lookup(name string) Preset {
	if r == nil {
		return nil
	}
	for _, p := range r.presets {
		if p.Name() == name {
			return p
		}
	}
	return nil
}

// Select returns the one preset whose selecting inputs appear among given
// (input names), with every selecting input present. It is an error when
// none, or more than one, is selected, or when given names an input of a
// preset not selected; the messages name the flags as "--name".
func (r *Registry) Select(given []string) (Preset, error) {
	if r == nil || len(r.presets) == 0 {
		return nil, errors.New("preset: no preset is registered to select from: register presets first")
	}
	var chosen []Preset
	for _, p := range r.presets {
		for _, in := range p.Inputs() {
			if in.Selects && slices.Contains(given, in.Name) {
				chosen = append(chosen, p)
				break
			}
		}
	}
	switch len(chosen) {
	case 0:
		alts := make([]string, len(r.presets))
		for i, p := range r.presets {
			alts[i] = selectors(p)
		}
		return nil, fmt.Errorf("assemble needs %s", strings.Join(alts, ", or "))
	case 1:
	default:
		alts := make([]string, len(chosen))
		for i, p := range chosen {
			alts[i] = selectors(p)
		}
		return nil, fmt.Errorf("use either %s, not both", strings.Join(alts, " or "))
	}
	p := chosen[0]
	var missing, foreign []string
	for _, in := range p.Inputs() {
		if in.Selects && !slices.Contains(given, in.Name) {
			missing = append(missing, "--"+in.Name)
		}
	}
	if len(missing) > 0 {
		alts := make([]string, len(r.presets))
		for i, q := range r.presets {
			alts[i] = selectors(q)
		}
		return nil, fmt.Errorf("assemble needs %s", strings.Join(alts, ", or "))
	}
	var owner Preset
	for _, g := range given {
		if slices.ContainsFunc(p.Inputs(), func(in Input) bool { return in.Name == g }) {
			continue
		}
		foreign = append(foreign, "--"+g)
		if owner == nil {
			owner = r.owner(g)
		}
	}
	if len(foreign) > 0 {
		verb := "applies"
		if len(foreign) > 1 {
			verb = "apply"
		}
		if owner == nil {
			return nil, fmt.Errorf("%s %s to no preset", wordlist.And(foreign), verb)
		}
		return nil, fmt.Errorf("%s %s to %s", wordlist.And(foreign), verb, selectors(owner))
	}
	return p, nil
}

// owner returns the preset with the input name, or nil.
func (r *Registry) owner(name string) Preset {
	for _, p := range r.presets {
		if slices.ContainsFunc(p.Inputs(), func(in Input) bool { return in.Name == name }) {
			return p
		}
	}
	return nil
}

// selectors lists p's selecting inputs as flags: "--workflow and --node".
func selectors(p Preset) string {
	var s []string
	for _, in := range p.Inputs() {
		if in.Selects {
			s = append(s, "--"+in.Name)
		}
	}
	return wordlist.And(s)
}

func validName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
