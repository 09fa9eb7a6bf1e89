package provider

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tessera-dev/tessera/internal/jsondup"
	"github.com/tessera-dev/tessera/schema"
)

// Model is one row of the capability table: what the models whose names
// it matches accept in a request body, as their provider documents it.
type Model struct {
	// Match are the row's name patterns (see ModelTable.Lookup), in
	// lower case.
	Match []string
	// Provider is the API family that serves the models: "openai" (both
	// OpenAI formats), "anthropic" or "gemini".
	Provider string
	// Tools says whether the models accept tools (function calling).
	Tools bool
	// StructuredOutput says whether the models accept an output schema
	// (OpenAI's json_schema response format, Anthropic's output_config,
	// Gemini's responseJsonSchema).
	StructuredOutput bool
	// StrictTools says whether the models accept "strict": true on a
	// tool. Gemini has no such flag, so it is false there.
	StrictTools bool
	// ToolsWithJSONOutput says whether the models accept tools and an
	// output schema in the same request.
	ToolsWithJSONOutput bool
	// UnsupportedKeywords are the JSON Schema keywords the provider
	// refuses in a schema it constrains a reply to (an output schema, or
	// a strict tool's parameters), as schema.ParseKeywordRules reads
	// them: "minimum", or "minItems>1" for a keyword refused only above a
	// number. OpenAI's strict-mode rules are schema.CheckStrict's, not
	// listed here.
	UnsupportedKeywords []string
	// MinCacheTokens is the shortest prefix the provider caches, in
	// tokens; 0 when not recorded. Tessera uses it to leave out
	// Anthropic cache breakpoints that could not take effect.
	MinCacheTokens int
	// ContextWindow is the context window in tokens; 0 when it varies
	// within the row or is not recorded.
	ContextWindow int
	// MaxOutputTokens is the most tokens a reply may be asked for; 0
	// when not recorded.
	MaxOutputTokens int
	// Docs are the pages the row was checked against.
	Docs []string
	// Checked is the date the row was last checked, as YYYY-MM-DD.
	Checked string
	// Note says what the docs leave unclear, or what else to know.
	Note string
	// Source says where the row comes from: "built-in", or the file and
	// line of a tessera.yaml models: entry.
	Source string

	keywords schema.KeywordRules
	override bool // the row is a ModelOverride's
}

// Keywords returns UnsupportedKeywords as rules for schema.FindKeywords
// and schema.MoveKeywords.
func (m *Model) Keywords() schema.KeywordRules { return m.keywords }

// Providers are the values of Model.Provider.
var Providers = []string{"openai", "anthropic", "gemini"}

// ProviderOf returns the Model.Provider of the API family of f.
func ProviderOf(f Format) string {
	switch f {
	case Anthropic:
		return "anthropic"
	case Gemini:
		return "gemini"
	}
	return "openai"
}

// ModelTable is a capability table: rows matched by model name. A table
// is immutable once built and safe for concurrent use.
type ModelTable struct {
	rows []Model
	// pats are every pattern of every row, longest literal first, then
	// in row order, so that the first to match a name is the one Lookup
	// returns.
	pats []pattern
}

// pattern is one name pattern of a row.
type pattern struct {
	text    string
	literal string // text before its first '*', for a quick test
	wild    bool   // text has a '*'
	weight  int    // literal characters, the match's specificity
	row     int
}

//go:embed models.json
var builtinData []byte

// builtin is the embedded table, parsed once.
var builtin = sync.OnceValue(func() *ModelTable {
	t, err := ParseModels(builtinData, "built-in")
	if err != nil {
		// The embedded data is part of the program; its test keeps it
		// valid.
		panic("provider: models.json: " + err.Error())
	}
	return t
})

// BuiltinModels returns the capability table embedded in Tessera
// (provider/models.json), parsed once. docs/PROVIDERS.md lists it.
func BuiltinModels() *ModelTable { return builtin() }

// modelsFile is models.json as written.
type modelsFile struct {
	Models []modelRow `json:"models"`
}

// modelRow is one row as written: every field must be given.
type modelRow struct {
	Match               []string `json:"match"`
	Provider            *string  `json:"provider"`
	Tools               *bool    `json:"tools"`
	StructuredOutput    *bool    `json:"structured_output"`
	StrictTools         *bool    `json:"strict_tools"`
	ToolsWithJSONOutput *bool    `json:"tools_with_json_output"`
	UnsupportedKeywords []string `json:"unsupported_keywords"`
	MinCacheTokens      *int     `json:"min_cache_tokens"`
	ContextWindow       *int     `json:"context_window"`
	MaxOutputTokens     *int     `json:"max_output_tokens"`
	Docs                []string `json:"docs"`
	Checked             *string  `json:"checked"`
	Note                *string  `json:"note"`
}

// ParseModels reads a capability table in the form of models.json: an
// object whose "models" are rows with every field given and no other.
// Unknown keys, repeated keys, missing fields, a pattern written twice and
// values out of range are errors naming the row; source becomes each
// row's Source.
func ParseModels(data []byte, source string) (*ModelTable, error) {
	if reps := jsondup.Find(data); len(reps) > 0 {
		r := reps[0]
		at := r.Path
		if at == "" {
			at = "the top level"
		}
		return nil, fmt.Errorf("key %q is written twice in %s (bytes %d and %d): keep one", r.Key, at, r.First, r.Second)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f modelsFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a capability table: %w", err)
	}
	if dec.More() {
		return nil, errors.New("not a capability table: more than one JSON value")
	}
	if len(f.Models) == 0 {
		return nil, errors.New(`no rows: write {"models": [...]}`)
	}
	rows := make([]Model, len(f.Models))
	for i, r := range f.Models {
		m, err := r.model(source)
		if err != nil {
			name := fmt.Sprintf("models[%d]", i)
			if len(r.Match) > 0 {
				name += " (" + r.Match[0] + ")"
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		rows[i] = m
	}
	return newTable(rows)
}

func (r modelRow) model(source string) (Model, error) {
	var missing []string
	need := func(set bool, key string) {
		if !set {
			missing = append(missing, key)
		}
	}
	need(r.Match != nil, "match")
	need(r.Provider != nil, "provider")
	need(r.Tools != nil, "tools")
	need(r.StructuredOutput != nil, "structured_output")
	need(r.StrictTools != nil, "strict_tools")
	need(r.ToolsWithJSONOutput != nil, "tools_with_json_output")
	need(r.UnsupportedKeywords != nil, "unsupported_keywords")
	need(r.MinCacheTokens != nil, "min_cache_tokens")
	need(r.ContextWindow != nil, "context_window")
	need(r.MaxOutputTokens != nil, "max_output_tokens")
	need(r.Docs != nil, "docs")
	need(r.Checked != nil, "checked")
	need(r.Note != nil, "note")
	if len(missing) > 0 {
		return Model{}, fmt.Errorf("missing %s: every field must be given (use false, 0, [] or \"\")", strings.Join(missing, ", "))
	}
	m := Model{
		Match: r.Match, Provider: *r.Provider, Tools: *r.Tools,
		StructuredOutput: *r.StructuredOutput, StrictTools: *r.StrictTools, ToolsWithJSONOutput: *r.ToolsWithJSONOutput,
		UnsupportedKeywords: r.UnsupportedKeywords,
		MinCacheTokens:      *r.MinCacheTokens, ContextWindow: *r.ContextWindow, MaxOutputTokens: *r.MaxOutputTokens,
		Docs: r.Docs, Checked: *r.Checked, Note: *r.Note, Source: source,
	}
	if len(m.Docs) == 0 {
		return Model{}, errors.New("docs is empty: name the pages the row was checked against")
	}
	for _, d := range m.Docs {
		if !strings.HasPrefix(d, "https://") || strings.ContainsAny(d, " \t\n") {
			return Model{}, fmt.Errorf("docs: %q is not an https URL", d)
		}
	}
	if _, err := time.Parse(time.DateOnly, m.Checked); err != nil {
		return Model{}, fmt.Errorf("checked: %q is not a date: write YYYY-MM-DD", m.Checked)
	}
	return m, m.validate()
}

// validate checks what every row, built in or configured, must hold, and
// reads its keyword rules.
func (m *Model) validate() error {
	if len(m.Match) == 0 {
		return errors.New("match is empty: give at least one model name pattern")
	}
	for _, p := range m.Match {
		if err := CheckModelPattern(p); err != nil {
			return err
		}
	}
	if !slices.Contains(Providers, m.Provider) {
		return fmt.Errorf("provider %q: use one of %s", m.Provider, strings.Join(Providers, ", "))
	}
	for key, n := range map[string]int{"min_cache_tokens": m.MinCacheTokens, "context_window": m.ContextWindow, "max_output_tokens": m.MaxOutputTokens} {
		if n < 0 {
			return fmt.Errorf("%s is %d: use a whole number of tokens, or 0 for not recorded", key, n)
		}
	}
	if m.ContextWindow > 0 && m.MaxOutputTokens > m.ContextWindow {
		return fmt.Errorf("max_output_tokens %d is more than the context window %d", m.MaxOutputTokens, m.ContextWindow)
	}
	k, err := schema.ParseKeywordRules(m.UnsupportedKeywords)
	if err != nil {
		return fmt.Errorf("unsupported_keywords: %w", err)
	}
	m.keywords = k
	return nil
}

// CheckModelPattern reports whether p can be a model name pattern: 1 to
// 128 lower-case ASCII letters, digits and ".-_:@", with '*' standing for
// any run of characters (but not two in a row, and not first).
func CheckModelPattern(p string) error {
	if p == "" || len(p) > 128 {
		return fmt.Errorf("model pattern %q: use 1 to 128 characters", p)
	}
	if p[0] == '*' || strings.Contains(p, "**") {
		return fmt.Errorf("model pattern %q: start with the model's name and use one '*' at a time", p)
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte(".-_:@*", c) >= 0) {
			return fmt.Errorf("model pattern %q: use lower-case letters, digits and .-_:@, with * for any run of characters", p)
		}
	}
	return nil
}

// newTable indexes rows, refusing a pattern written twice.
func newTable(rows []Model) (*ModelTable, error) {
	t := &ModelTable{rows: rows}
	seen := map[string]int{}
	for i := range rows {
		for _, p := range rows[i].Match {
			if j, dup := seen[p]; dup {
				return nil, fmt.Errorf("model pattern %q is in two rows (%s and %s): keep it in one", p, rowName(&rows[j], j), rowName(&rows[i], i))
			}
			seen[p] = i
			lit, _, wild := strings.Cut(p, "*")
			t.pats = append(t.pats, pattern{text: p, literal: lit, wild: wild, weight: len(p) - strings.Count(p, "*"), row: i})
		}
	}
	slices.SortStableFunc(t.pats, func(a, b pattern) int { return b.weight - a.weight })
	return t, nil
}

func rowName(m *Model, i int) string {
	if m.override {
		return m.Source
	}
	return fmt.Sprintf("models[%d]", i)
}

// Rows returns a copy of the table's rows, in order.
func (t *ModelTable) Rows() []Model { return slices.Clone(t.rows) }

// NormalizeModel returns the name Lookup matches for model: the part after
// the last '/' (so "anthropic/claude-sonnet-4-5" and
// "models/gemini-2.5-pro" name their models), in lower case, without the
// "ft:" of an OpenAI fine-tuned model (which has its base model's
// capabilities: "ft:gpt-4o-mini-2024-07-18:acme::9abc" is looked up as
// "gpt-4o-mini-2024-07-18:acme::9abc", which the gpt-4o-mini row matches).
func NormalizeModel(model string) string {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	for i := 0; i < len(model); i++ {
		if c := model[i]; c >= 'A' && c <= 'Z' {
			model = strings.ToLower(model)
			break
		}
	}
	return strings.TrimPrefix(model, "ft:")
}

// Lookup returns the row for the model named model, and the pattern that
// matched; ok is false when no row matches. The name is normalised
// (NormalizeModel). A pattern matches a name that it spells out, '*'
// standing for any run of characters, and also that name followed by a
// suffix: '@' or ':' and anything ("claude-haiku-4-5@20251001"), or '-'
// and anything but a version number of one or two digits
// ("gpt-4o-2024-08-06", "gpt-5-mini" and "gemini-1.5-pro-002", but not
// "claude-opus-5-5" for "claude-opus-5"), so that a row never stands for
// a newer version it does not name. The pattern with the most literal
// characters wins; of two alike, the one of the earlier row.
func (t *ModelTable) Lookup(model string) (m Model, matched string, ok bool) {
	name := NormalizeModel(model)
	for i := range t.pats {
		p := &t.pats[i]
		if !strings.HasPrefix(name, p.literal) {
			continue
		}
		if p.wild && !globSuffix(p.text, name) || !p.wild && !suffixOK(name[len(p.literal):]) {
			continue
		}
		return t.rows[p.row], p.text, true
	}
	return Model{}, "", false
}

// suffixOK reports whether rest may follow a pattern's name: nothing, or
// a suffix Lookup accepts.
func suffixOK(rest string) bool {
	if rest == "" {
		return true
	}
	switch rest[0] {
	case '@', ':':
		return true
	case '-':
		// Not a minor version: one or two digits ending the name or
		// followed by another '-'.
		d := 1
		for d < len(rest) && d <= 3 && rest[d] >= '0' && rest[d] <= '9' {
			d++
		}
		digits := d - 1
		return !(digits >= 1 && digits <= 2 && (d == len(rest) || rest[d] == '-'))
	}
	return false
}

// globSuffix reports whether the pattern p, with '*' for any run of
// characters, spells out name or a prefix of it that suffixOK accepts
// the rest of.
func globSuffix(p, name string) bool {
	if glob(p, name) {
		return true
	}
	for k := len(name) - 1; k > 0; k-- {
		if strings.IndexByte("-@:", name[k]) >= 0 && suffixOK(name[k:]) && glob(p, name[:k]) {
			return true
		}
	}
	return false
}

// glob reports whether p, with '*' for any run of characters, spells out
// s exactly.
func glob(p, s string) bool {
	star, back := -1, 0
	i, j := 0, 0
	for j < len(s) {
		switch {
		case i < len(p) && p[i] == '*':
			star, back = i, j
			i++
		case i < len(p) && p[i] == s[j]:
			i++
			j++
		case star >= 0:
			back++
			i, j = star+1, back
		default:
			return false
		}
	}
	for i < len(p) && p[i] == '*' {
		i++
	}
	return i == len(p)
}

// ModelOverride corrects a row, or adds one, for the model names that
// Name matches: a tessera.yaml models: entry. Errors about it start with
// its Source, when it has one. Nil fields keep the value of
// the row Name matches in the table it is added to (none for a new model,
// which must then give its Provider).
type ModelOverride struct {
	// Name is the pattern the entry is written under.
	Name string
	// Source names where it was written, such as "tessera.yaml:12".
	Source                                                    string
	Provider                                                  *string
	Tools, StructuredOutput, StrictTools, ToolsWithJSONOutput *bool
	UnsupportedKeywords                                       *[]string
	MinCacheTokens, ContextWindow, MaxOutputTokens            *int
	Note                                                      *string
}

// With returns a table that holds t's rows and one more for each
// override, checked first: an override of a name t already matches starts
// from that row (its values, docs and date), and one of a name t does not
// know starts from nothing and must give its provider. An override is
// matched as a pattern like any other and, being longer or first, wins
// over the row it corrects. t is not changed.
func (t *ModelTable) With(overrides ...ModelOverride) (*ModelTable, error) {
	if len(overrides) == 0 {
		return t, nil
	}
	rows := make([]Model, 0, len(overrides)+len(t.rows))
	for _, o := range overrides {
		at := func(err error) error {
			if o.Source == "" {
				return err
			}
			return fmt.Errorf("%s: %w", o.Source, err)
		}
		if err := CheckModelPattern(o.Name); err != nil {
			return nil, at(err)
		}
		base, _, known := t.Lookup(o.Name)
		if !known && o.Provider == nil {
			return nil, at(fmt.Errorf("model %q is not in Tessera's table: give its provider (%s) and what it accepts", o.Name, strings.Join(Providers, ", ")))
		}
		m := base
		m.Match = []string{o.Name}
		m.Source, m.override = o.Source, true
		set(&m.Provider, o.Provider)
		set(&m.Tools, o.Tools)
		set(&m.StructuredOutput, o.StructuredOutput)
		set(&m.StrictTools, o.StrictTools)
		set(&m.ToolsWithJSONOutput, o.ToolsWithJSONOutput)
		set(&m.UnsupportedKeywords, o.UnsupportedKeywords)
		set(&m.MinCacheTokens, o.MinCacheTokens)
		set(&m.ContextWindow, o.ContextWindow)
		set(&m.MaxOutputTokens, o.MaxOutputTokens)
		set(&m.Note, o.Note)
		if err := m.validate(); err != nil {
			return nil, at(fmt.Errorf("%s: %w", o.Name, err))
		}
		rows = append(rows, m)
	}
	rows = append(rows, t.rows...)
	// A name written twice among the overrides is an error; one that
	// repeats a built-in pattern shadows it, so the built-in row gives
	// that pattern up.
	own := map[string]bool{}
	for _, r := range rows[:len(overrides)] {
		own[r.Match[0]] = true
	}
	for i := len(overrides); i < len(rows); i++ {
		if slices.ContainsFunc(rows[i].Match, func(p string) bool { return own[p] }) {
			rows[i].Match = slices.DeleteFunc(slices.Clone(rows[i].Match), func(p string) bool { return own[p] })
		}
	}
	return newTable(rows)
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
