package catalog

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/include"
	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/schema"
	"github.com/tessera-dev/tessera/tokenizer"
)

// ConfigFile is the name of the file that marks a catalog's root.
const ConfigFile = "tessera.yaml"

// Config is a catalog's tessera.yaml. Paths are slash-separated and
// relative to the catalog root.
type Config struct {
	// Version is the config format version; 1 is the only one so far.
	Version int
	// Tasks is the directory of task templates (key "tasks", required
	// unless the catalog names a layered setup and no workflows).
	Tasks string
	// Workflows is the directory of workflow JSON files (key "workflows",
	// required as tasks is).
	Workflows string
	// TemplateExtensions are the file extensions a task_ref may omit, tried
	// in order (key "template_extensions"; default .txt, .md, .prompt).
	TemplateExtensions []string
	// Log is the audit log every assembly appends to (key "log"); empty
	// means no log unless the caller names one.
	Log string
	// LogKeyEnv names the environment variable that holds the audit log's
	// HMAC key (key "log_key_env"); empty means records are chained but
	// not signed. See Catalog.LogKey.
	LogKeyEnv string
	// Out is where compile writes (key "out"; default build/prompts).
	Out string
	// Budget, when set (key "budget"), is the token budget every prompt
	// must fit: compile fails on a node that does not, and assemble
	// applies it unless told otherwise.
	Budget *BudgetConfig
	// Redaction (key "redaction") configures what is redacted from
	// canonical specs before rendering and logging; nil means the
	// built-in patterns.
	Redaction *RedactionConfig
	// Limits (key "limits") caps what Tessera reads and produces; unset
	// fields hold the defaults.
	Limits Limits
	// Models (key "models") corrects rows of the model capability table
	// or adds rows for models Tessera does not know; nil when the key is
	// absent, and the built-in table (provider.BuiltinModels) applies.
	// See ModelsConfig.
	Models *provider.ModelTable
	// Tokenizers (key "tokenizers") maps models to their tokenizer
	// files, which count them exactly. See TokenizerConfig.
	Tokenizers []TokenizerConfig
	// Serve (key "serve") holds settings of tessera serve; nil when the
	// key is absent. See ServeConfig.
	Serve *ServeConfig

	// sections holds the directory each preset section names, by key
	// (see Section).
	sections map[string]string
	// lines and cols hold the line and column of each key, for
	// diagnostics.
	lines, cols map[string]int
}

// A Section is a top-level key of tessera.yaml that a preset owns, not
// the catalog: its value is the directory of that preset's files,
// relative to the catalog root ("specs: canonical"). Presets declare
// theirs (preset.Configurer), and whoever opens a catalog passes them to
// Open, so that the catalog reads a key it does not know itself by asking
// the presets, and refuses any other.
type Section struct {
	// Key is the key in tessera.yaml, such as "specs": lower-case
	// letters, digits and '_', starting with a letter, and none of the
	// catalog's own keys (see CheckSections).
	Key string
	// Doc says what the directory holds, as a noun phrase ("a directory
	// of canonical prompt specs"), for the JSON Schema and messages.
	Doc string
}

// Section returns the directory tessera.yaml gives the preset section
// key (slash-separated, relative to the root), or "" when it gives none.
func (c Config) Section(key string) string { return c.sections[key] }

// configKeys are configDoc's keys, in declaration order.
var configKeys = func() []string {
	t := reflect.TypeFor[configDoc]()
	keys := make([]string, t.NumField())
	for i := range keys {
		keys[i], _, _ = strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
	}
	return keys
}()

// CheckSections returns an error for a section whose key is malformed,
// one of the catalog's own (version, tasks, budget...) or given twice: a mistake in the
// program that declares them. Open and ParseConfig check their sections
// with it.
func CheckSections(sections ...Section) error {
	for i, s := range sections {
		ok := s.Key != "" && 'a' <= s.Key[0] && s.Key[0] <= 'z'
		for _, c := range s.Key {
			ok = ok && (c == '_' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9')
		}
		switch {
		case !ok:
			return fmt.Errorf("catalog: section key %q: use lower-case letters, digits and '_', starting with a letter", s.Key)
		case slices.Contains(configKeys, s.Key):
			return fmt.Errorf("catalog: section key %q is one of tessera.yaml's own keys: give the section another key", s.Key)
		case slices.ContainsFunc(sections[:i], func(o Section) bool { return o.Key == s.Key }):
			return fmt.Errorf("catalog: section key %q is given twice", s.Key)
		}
	}
	return nil
}

// Line returns the line of the top-level key in tessera.yaml, or 0 when
// the key is not there.
func (c Config) Line(key string) int { return c.lines[key] }

// Col returns the column of the key in tessera.yaml (a dotted path such
// as "budget.model" for a nested one), or 0 when the key is not there.
func (c Config) Col(key string) int { return c.cols[key] }

// Limits is tessera.yaml's "limits" key. Sizes are whole numbers of bytes,
// or numbers with a unit (KiB, MiB, GiB, KB, MB, GB):
//
//	limits:
//	  max_file_bytes: 16MiB    # the largest file Tessera reads
//	  max_output_bytes: 8MiB   # the largest prompt an assembly produces
type Limits struct {
	// MaxFileBytes caps every file read: templates, includes, workflows,
	// specs, and the files named on the command line.
	MaxFileBytes int64
	// MaxOutputBytes caps an assembled prompt; a template's includes are
	// counted as they are loaded, so a catalog over the cap fails before
	// the prompt is built.
	MaxOutputBytes int64
}

// The default limits.
const (
	DefaultMaxFileBytes   int64 = fileread.DefaultMaxBytes
	DefaultMaxOutputBytes int64 = 8 << 20
)

// DefaultLimits returns the limits in force when tessera.yaml sets none.
func DefaultLimits() Limits {
	return Limits{MaxFileBytes: DefaultMaxFileBytes, MaxOutputBytes: DefaultMaxOutputBytes}
}

// DefaultTemplateExtensions are the extensions tried when tessera.yaml
// names none.
var DefaultTemplateExtensions = []string{".txt", ".md", ".prompt"}

// BudgetConfig is tessera.yaml's "budget" key:
//
//	budget:
//	  model: gpt-4o      # whose tokenizer counts (see tokenizer.ForModel)
//	  context: 8000      # the model's context window, in tokens
//	  reserve: 1000      # kept for the reply
type BudgetConfig struct {
	Model   string
	Context int
	Reserve int
	// Line and Col are the line and column of the "budget" key, for
	// diagnostics.
	Line, Col int
}

// RedactionConfig is tessera.yaml's "redaction" key:
//
//	redaction:
//	  defaults: true            # keep the built-in patterns (default true)
//	  patterns:
//	    - label: employee-id
//	      regexp: 'EMP-[0-9]{6}'
//	      personal: true        # only in conversation state, like e-mail
type RedactionConfig struct {
	Defaults bool
	Patterns []guard.Pattern
	// Allow (key "redaction.allow") lists the fingerprints
	// (guard.Fingerprint, "sha256:" and 64 hex digits) of texts that
	// match a secret pattern but are known not to be secrets: compile
	// does not fail on them, and assembly does not redact them.
	Allow []string
	// Line is the line of the "redaction" key, for diagnostics.
	Line int
}

// Redactor returns the redactor the config describes.
func (r *RedactionConfig) Redactor() (*guard.Redactor, error) {
	if r == nil || r.Defaults && len(r.Patterns) == 0 {
		return guard.Default(), nil // compiled once, shared
	}
	return guard.NewRedactor(r.Patterns, r.Defaults)
}

// ModelsConfig documents tessera.yaml's "models" key, a mapping of model
// names (or patterns, '*' standing for any run of characters) to what the
// models accept, for the provider request bodies Tessera checks against
// its capability table (docs/PROVIDERS.md):
//
//	models:
//	  gpt-4o-2024-05-13:          # correct a row: only the fields given change
//	    max_output_tokens: 4096
//	  acme-llm:                   # a model Tessera does not know
//	    provider: openai          # openai, anthropic or gemini (required here)
//	    tools: true
//	    structured_output: true
//	    strict_tools: false
//	    tools_with_json_output: true
//	    unsupported_keywords: []  # e.g. [minimum, "minItems>1"]
//	    min_cache_tokens: 0
//	    context_window: 32768
//	    max_output_tokens: 4096
//	    note: served by our gateway
//
// An entry for a name the table knows starts from that name's row; one
// for a new name starts from nothing (false, 0, no keywords) and must give
// its provider. An entry wins over the built-in rows for the names it
// matches.
type ModelsConfig struct{}

// DefaultOut is the compile output directory when tessera.yaml names none.
const DefaultOut = "build/prompts"

// configSchema decodes tessera.yaml into a configDoc. Its messages are
// worded as tessera.yaml's have always been: "budget: unknown key ..."
// without a hint.
var configSchema = yamldoc.NewSchema[configDoc](yamldoc.Options{
	Doc:     ConfigFile,
	Columns: true,
	Rules: map[string]yamldoc.Rule{
		"version":        yamldoc.Int(1, 1, "1, the only config version so far"),
		"budget":         yamldoc.Want("a mapping with model, context and reserve"),
		"budget.context": yamldoc.Int(1, math.MaxInt, "a whole number of tokens above 0"),
		"budget.reserve": yamldoc.Int(0, math.MaxInt, "a whole number of tokens"),
		"redaction":      yamldoc.Want("a mapping with defaults, patterns and allow"),
		"limits":         yamldoc.Want("a mapping with max_file_bytes and max_output_bytes"),
		"models":         yamldoc.Want("a mapping of model names to what they accept"),
		"tokenizers":     yamldoc.Want("a mapping of model names to tokenizer files"),
	},
	UnknownKey: func(at, key, _ string, keys []string) string {
		msg := fmt.Sprintf("unknown key %q: the keys are %s", key, strings.Join(keys, ", "))
		if at != "" {
			msg = at + ": " + msg
		}
		return msg
	},
})

// configParser reads tessera.yaml, placing every problem at its line and
// column.
var configParser = yamldoc.Parser{Columns: true}

// configDoc is tessera.yaml as written: its keys, in the order
// diagnostics list them, and the checks of each value (by type). An
// absent or null key leaves the zero value; ParseConfig supplies the
// defaults.
type configDoc struct {
	Version            int           `yaml:"version"`
	Tasks              relPath       `yaml:"tasks"`
	Workflows          relPath       `yaml:"workflows"`
	TemplateExtensions extensions    `yaml:"template_extensions"`
	Log                relPath       `yaml:"log"`
	LogKeyEnv          envName       `yaml:"log_key_env"`
	Out                relPath       `yaml:"out"`
	Budget             *budgetDoc    `yaml:"budget"`
	Redaction          *redactionDoc `yaml:"redaction"`
	Limits             *limitsDoc    `yaml:"limits"`
	Models             modelsDoc     `yaml:"models"`
	Tokenizers         tokenizersDoc `yaml:"tokenizers"`
	Serve              *serveDoc     `yaml:"serve"`
}

type budgetDoc struct {
	Model   modelName `yaml:"model"`
	Context int       `yaml:"context"`
	Reserve int       `yaml:"reserve"`
}

type redactionDoc struct {
	Defaults *bool        `yaml:"defaults"`
	Patterns patternList  `yaml:"patterns"`
	Allow    fingerprints `yaml:"allow"`
}

type limitsDoc struct {
	MaxFileBytes   byteSize `yaml:"max_file_bytes"`
	MaxOutputBytes byteSize `yaml:"max_output_bytes"`
}

// ParseConfig parses the tessera.yaml file content data, normalised first
// (see prompt.Normalize); name is used in diagnostics. sections are the
// preset sections it reads beside its own keys (see Section). Unknown
// keys, wrong types, missing required keys and paths that leave the root
// are errors naming the key and its line; every problem is reported, as a
// diag.List.
func ParseConfig(name string, data []byte, sections ...Section) (*Config, error) {
	if err := CheckSections(sections...); err != nil {
		return nil, err
	}
	top, err := configParser.Parse(name, data)
	if err != nil {
		return nil, err
	}
	if top == nil {
		return nil, diag.List{diag.Errorf(name, 0, "empty: name the task and workflow directories, for example\n  tasks: prompts/tasks\n  workflows: workflows")}
	}
	if top.Kind != yaml.MappingNode {
		return nil, diag.List{diag.ErrorfAt(name, top.Line, top.Column, "want a mapping of keys to values at the top level")}
	}
	own, theirs, unknown := splitKeys(top, sections)
	var doc configDoc
	d := configSchema.Decode(name, own, &doc)
	dirs := make(map[string]string, len(theirs))
	for _, kv := range theirs {
		var p relPath
		if d.Decode(kv[1], kv[0].Value, &p) && p != "" {
			dirs[kv[0].Value] = string(p) // null, as every key, is absent
		}
	}
	errs := d.Errors()
	for _, k := range unknown {
		msg := fmt.Sprintf("unknown key %q: the keys are %s", k.Value, strings.Join(allKeys(sections), ", "))
		if len(sections) == 0 {
			msg += "; a key a preset owns is read only when the catalog is opened with the presets' sections (engine.Engine.Open, or catalog.Open with preset.Registry.Sections)"
		}
		errs = append(errs, diag.ErrorfAt(name, k.Line, k.Column, "%s", msg))
	}
	lines := d.Lines()
	for _, kv := range theirs {
		lines[kv[0].Value] = kv[0].Line
	}
	at := func(key, format string, args ...any) *diag.Error {
		line, col := d.Pos(key)
		return diag.ErrorfAt(name, line, col, format, args...)
	}
	cfg := &Config{
		Version:            1,
		Tasks:              string(doc.Tasks),
		Workflows:          string(doc.Workflows),
		TemplateExtensions: doc.TemplateExtensions,
		Log:                string(doc.Log),
		LogKeyEnv:          string(doc.LogKeyEnv),
		Out:                string(doc.Out),
		Limits:             DefaultLimits(),
		Tokenizers:         doc.Tokenizers,
		sections:           dirs,
		lines:              lines,
		cols:               make(map[string]int, len(lines)),
	}
	for key := range lines {
		_, cfg.cols[key] = d.Pos(key)
	}
	for _, kv := range theirs {
		cfg.cols[kv[0].Value] = kv[0].Column
	}
	// A catalog of a preset's files alone (a layered setup, a directory
	// of specs) needs no templates or workflows; with one, it needs both.
	given := len(dirs) > 0 // a preset's key with a value, or with a wrong one
	for _, kv := range theirs {
		given = given || d.Bad(kv[0].Value)
	}
	templates := !given || cfg.Tasks != "" || cfg.Workflows != ""
	if templates && cfg.Tasks == "" && !d.Bad("tasks") {
		errs = append(errs, diag.Errorf(name, 0, "missing key \"tasks\": name the directory of task templates, relative to the catalog root"))
	}
	if templates && cfg.Workflows == "" && !d.Bad("workflows") {
		errs = append(errs, diag.Errorf(name, 0, "missing key \"workflows\": name the directory of workflow JSON files, relative to the catalog root"))
	}
	if cfg.TemplateExtensions == nil {
		cfg.TemplateExtensions = slices.Clone(DefaultTemplateExtensions)
	}
	if cfg.Out == "" {
		cfg.Out = DefaultOut
	}
	if b := doc.Budget; b != nil {
		cfg.Budget = &BudgetConfig{Model: b.Model.name, Context: b.Context, Reserve: b.Reserve, Line: lines["budget"]}
		cfg.Budget.Col = cfg.Col("budget")
		if cfg.Budget.Model == "" {
			cfg.Budget.Model = "gpt-4o"
		}
		if _, err := tokenizer.ForModel(cfg.Budget.Model); err != nil && !cfg.hasTokenizer(cfg.Budget.Model) && b.Model.line > 0 {
			errs = append(errs, diag.ErrorfAt(name, b.Model.line, b.Model.col, "budget.model: %v", err))
		}
		if b.Context == 0 && !d.Failed("budget") {
			errs = append(errs, at("budget", "budget: missing key \"context\": give the model's context window in tokens"))
		}
		if b.Context > 0 && b.Reserve >= b.Context {
			errs = append(errs, at("budget.reserve", "budget: reserve %d leaves nothing of the %d-token context", b.Reserve, b.Context))
		}
	}
	if r := doc.Redaction; r != nil {
		cfg.Redaction = &RedactionConfig{Defaults: r.Defaults == nil || *r.Defaults, Patterns: r.Patterns, Allow: r.Allow, Line: lines["redaction"]}
		if !d.Failed("redaction") {
			if _, err := cfg.Redaction.Redactor(); err != nil {
				errs = append(errs, at("redaction", "redaction: %v", err))
			}
		}
	}
	if l := doc.Limits; l != nil {
		if l.MaxFileBytes > 0 {
			cfg.Limits.MaxFileBytes = int64(l.MaxFileBytes)
		}
		if l.MaxOutputBytes > 0 {
			cfg.Limits.MaxOutputBytes = int64(l.MaxOutputBytes)
		}
	}
	if doc.Serve != nil {
		cfg.Serve = doc.Serve.config(lines["serve"])
	}
	if len(doc.Models) > 0 && !d.Failed("models") {
		overrides := make([]provider.ModelOverride, len(doc.Models))
		for i, e := range doc.Models {
			overrides[i] = e.o
			overrides[i].Source = fmt.Sprintf("%s:%d", name, e.line)
		}
		t, err := provider.BuiltinModels().With(overrides...)
		if err != nil {
			errs = append(errs, at("models", "models: %v", err))
		}
		cfg.Models = t
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return cfg, nil
}

// splitKeys sorts the key-value pairs of top, a mapping, into the
// catalog's own (as a mapping for configSchema), the preset sections'
// and the keys neither knows.
func splitKeys(top *yaml.Node, sections []Section) (own *yaml.Node, theirs [][2]*yaml.Node, unknown []*yaml.Node) {
	own = &yaml.Node{}
	*own = *top
	own.Content = nil
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		switch {
		case k.Kind == yaml.ScalarNode && slices.ContainsFunc(sections, func(s Section) bool { return s.Key == k.Value }):
			theirs = append(theirs, [2]*yaml.Node{k, v})
		case k.Kind == yaml.ScalarNode && !slices.Contains(configKeys, k.Value):
			unknown = append(unknown, k)
		default:
			own.Content = append(own.Content, k, v)
		}
	}
	return own, theirs, unknown
}

// allKeys lists the catalog's keys with the preset sections' after
// "out", where tessera.yaml's messages have always listed them.
func allKeys(sections []Section) []string {
	at := slices.Index(configKeys, "out") + 1
	keys := slices.Clone(configKeys[:at])
	for _, s := range sections {
		keys = append(keys, s.Key)
	}
	return append(keys, configKeys[at:]...)
}

// relPath is a path relative to the catalog root that stays inside it;
// "." is the root itself.
type relPath string

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (p *relPath) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		d.Wrong(n, at, "a path string relative to the catalog root")
		return
	}
	if n.Value == "." {
		*p = "."
		return
	}
	c, err := include.CleanPath(n.Value)
	if err != nil {
		d.Errorf(n, at, "%v", err)
		return
	}
	*p = relPath(c)
}

// envName is the name of an environment variable: a letter or '_', then
// letters, digits and '_'.
type envName string

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (e *envName) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	ok := n.Kind == yaml.ScalarNode && n.Tag == "!!str" && n.Value != ""
	for i, c := range n.Value {
		if !(c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || i > 0 && '0' <= c && c <= '9') {
			ok = false
		}
	}
	if !ok {
		d.Wrong(n, at, "the name of an environment variable, such as TESSERA_LOG_KEY")
		return
	}
	*e = envName(n.Value)
}

// fingerprints is redaction.allow: a list of "sha256:" and 64 lowercase
// hex digits, as compile's message about a secret gives them.
type fingerprints []string

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (f *fingerprints) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	const want = "a list of fingerprints such as sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08, as compile gives them"
	if n.Kind != yaml.SequenceNode {
		d.Wrong(n, at, want)
		return
	}
	out := fingerprints{}
	for _, x := range n.Content {
		h, ok := strings.CutPrefix(x.Value, "sha256:")
		if x.Kind != yaml.ScalarNode || !ok || len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
			d.Errorf(x, at, "%q is not a fingerprint: want sha256: and 64 lowercase hex digits, as compile's message about the secret gives it", x.Value)
			return
		}
		out = append(out, x.Value)
	}
	*f = out
}

// extensions is a non-empty list of file extensions, each starting with a
// dot.
type extensions []string

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (e *extensions) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	if n.Kind != yaml.SequenceNode {
		d.Errorf(n, at, "want a list such as [.txt, .md]")
		return
	}
	exts := extensions{}
	for _, x := range n.Content {
		if x.Kind != yaml.ScalarNode || !strings.HasPrefix(x.Value, ".") || len(x.Value) < 2 || strings.ContainsAny(x.Value, "/\\") {
			d.Errorf(n, at, "line %d: want an extension starting with a dot, such as .txt", x.Line)
			return
		}
		exts = append(exts, x.Value)
	}
	if len(exts) == 0 {
		d.Errorf(n, at, "the list is empty: name at least one extension, such as .txt")
		return
	}
	*e = exts
}

// modelName is a model tokenizer.ForModel knows, or one that tokenizers:
// maps to a tokenizer file; ParseConfig checks which, at the value's
// line and column.
type modelName struct {
	name      string
	line, col int
}

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (m *modelName) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		d.Wrong(n, at, "a model name such as gpt-4o")
		return
	}
	// A model tokenizer.ForModel does not know needs an entry under
	// tokenizers:, which ParseConfig checks once it has read them.
	*m = modelName{n.Value, n.Line, n.Column}
}

// patternList is redaction.patterns: each item a guard.Pattern that
// compiles on its own. Problems are reported at "redaction.patterns",
// without the item's index.
type patternList []guard.Pattern

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (l *patternList) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	const want = "{label, regexp, personal}"
	if n.Kind != yaml.SequenceNode {
		d.Wrong(n, at, "a list of "+want)
		return
	}
	for _, item := range n.Content {
		if item.Kind != yaml.MappingNode {
			d.Wrong(item, at, want)
			continue
		}
		var p guard.Pattern
		if !d.Decode(item, at, &p) {
			continue
		}
		if _, err := guard.NewRedactor([]guard.Pattern{p}, false); err != nil {
			d.Errorf(item, at, "%v", err)
			continue
		}
		*l = append(*l, p)
	}
}

// maxLimit is the largest size a limit may be set to (1 GiB).
const maxLimit = 1 << 30

// byteSize is a size: a whole number of bytes, or a number with a unit
// (KiB, MiB, GiB, KB, MB, GB, B), from 1 byte to maxLimit.
type byteSize int64

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (b *byteSize) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	n64, ok := parseSize(n)
	if !ok {
		d.Wrong(n, at, "a size in bytes, such as 16777216 or 16MiB, from 1 byte to 1GiB")
		return
	}
	*b = byteSize(n64)
}

// parseSize reads a size: a whole number of bytes, or a number with a
// unit.
func parseSize(v *yaml.Node) (int64, bool) {
	if v.Kind != yaml.ScalarNode {
		return 0, false
	}
	return ParseSize(v.Value)
}

// ParseSize reads a size as tessera.yaml's limits write it: a whole
// number of bytes, or a number with a unit (KiB, MiB, GiB, KB, MB, GB,
// B), from 1 byte to 1 GiB. It reports whether s is such a size.
func ParseSize(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > maxLimit/mult {
		return 0, false
	}
	return n * mult, true
}

// modelsDoc is tessera.yaml's "models" key: each entry a correction or
// addition to the model capability table (see ModelsConfig).
type modelsDoc []modelEntry

// modelEntry is one models: entry and the line of its name.
type modelEntry struct {
	o    provider.ModelOverride
	line int
}

// modelDoc is one models: entry as written.
type modelDoc struct {
	Provider            *providerName `yaml:"provider"`
	Tools               *bool         `yaml:"tools"`
	StructuredOutput    *bool         `yaml:"structured_output"`
	StrictTools         *bool         `yaml:"strict_tools"`
	ToolsWithJSONOutput *bool         `yaml:"tools_with_json_output"`
	UnsupportedKeywords *keywordList  `yaml:"unsupported_keywords"`
	MinCacheTokens      *tokenCount   `yaml:"min_cache_tokens"`
	ContextWindow       *tokenCount   `yaml:"context_window"`
	MaxOutputTokens     *tokenCount   `yaml:"max_output_tokens"`
	Note                *string       `yaml:"note"`
}

// UnmarshalYAMLNode implements yamldoc.Unmarshaler. Each entry is checked
// on its own against the built-in table, so a problem is reported at its
// line.
func (l *modelsDoc) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	if n.Kind != yaml.MappingNode {
		d.Wrong(n, at, "a mapping of model names to what they accept")
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" {
			d.Errorf(k, at, "a model name must be text, such as gpt-4o, found %s", k.Value)
			continue
		}
		key := at + "." + k.Value
		if err := provider.CheckModelPattern(k.Value); err != nil {
			d.Errorf(k, at, "%v", err)
			continue
		}
		var m modelDoc
		if v.Kind != yaml.MappingNode {
			d.Wrong(v, key, "a mapping of what the model accepts, such as {max_output_tokens: 4096}")
			continue
		}
		if !d.Decode(v, key, &m) {
			continue
		}
		o := provider.ModelOverride{
			Name:                k.Value,
			Provider:            (*string)(m.Provider),
			Tools:               m.Tools,
			StructuredOutput:    m.StructuredOutput,
			StrictTools:         m.StrictTools,
			ToolsWithJSONOutput: m.ToolsWithJSONOutput,
			MinCacheTokens:      (*int)(m.MinCacheTokens),
			ContextWindow:       (*int)(m.ContextWindow),
			MaxOutputTokens:     (*int)(m.MaxOutputTokens),
			Note:                m.Note,
		}
		if m.UnsupportedKeywords != nil {
			kw := []string(*m.UnsupportedKeywords)
			o.UnsupportedKeywords = &kw
		}
		if _, err := provider.BuiltinModels().With(o); err != nil {
			d.Errorf(k, key, "%v", err)
			continue
		}
		*l = append(*l, modelEntry{o, k.Line})
	}
}

// providerName is one of provider.Providers.
type providerName string

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (p *providerName) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	want := strings.Join(provider.Providers, ", ")
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" || !slices.Contains(provider.Providers, n.Value) {
		d.Wrong(n, at, "one of "+want)
		return
	}
	*p = providerName(n.Value)
}

// tokenCount is a whole number of tokens, 0 or more.
type tokenCount int

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (c *tokenCount) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	i, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || err != nil || i < 0 {
		d.Wrong(n, at, "a whole number of tokens, or 0 for not recorded")
		return
	}
	*c = tokenCount(i)
}

// keywordList is a list of JSON Schema keywords a provider refuses, as
// schema.ParseKeywordRules reads them; an empty list is kept as given.
type keywordList []string

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (l *keywordList) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	const want = "a list of JSON Schema keywords, such as [minimum, maxLength, \"minItems>1\"]"
	if n.Kind != yaml.SequenceNode {
		d.Wrong(n, at, want)
		return
	}
	out := keywordList{}
	for _, it := range n.Content {
		if it.Kind != yaml.ScalarNode || it.Tag != "!!str" {
			d.Wrong(it, at, want)
			return
		}
		out = append(out, it.Value)
	}
	if _, err := schema.ParseKeywordRules(out); err != nil {
		d.Errorf(n, at, "%v", err)
		return
	}
	*l = out
}

// JSONSchema returns the JSON Schema of tessera.yaml, generated from
// the decoder that reads it (see yamldoc.Schema.JSONSchema): an editor
// that takes a "# yaml-language-server: $schema=" line checks keys and
// types as Tessera will.
func JSONSchema(sections ...Section) []byte {
	props := make(map[string]map[string]any, len(sections))
	for _, s := range sections {
		props[s.Key] = map[string]any{"type": "string", "description": s.Doc + ", relative to the catalog root"}
	}
	return configSchema.JSONSchema("https://tessera.dev/schemas/tessera.schema.json", ConfigFile, props)
}
