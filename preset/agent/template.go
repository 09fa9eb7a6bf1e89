package agent

import (
	"cmp"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/internal/wordlist"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/prompt"
)

//go:embed defaults/*.yaml
var defaultFiles embed.FS

// libraryFile is the file name of the constraint library, beside the
// role templates (planner.yaml, executor.yaml, ...).
const libraryFile = "constraints.yaml"

// catalogDir is the directory of a catalog that holds its replacements for
// the default templates, relative to the catalog root.
const catalogDir = "agent/templates"

// fileName returns the file name of r's template: "planner.yaml", ...
func fileName(r Role) string { return string(r) + ".yaml" }

// Template is one role's prompt template, parsed: for each of its keys,
// the literal text and the placeholders in order. A Template is
// immutable and safe for concurrent use.
type Template struct {
	role Role
	path string
	text string
	keys []templateKey // in section order
}

type templateKey struct {
	key       string
	line, col int
	segs      []segment
}

// Role returns the role the template is for; "" for a nil template.
func (t *Template) Role() Role {
	if t == nil {
		return ""
	}
	return t.role
}

// Path returns the file the template was read from, as given to
// ParseTemplate; "" for a nil template.
func (t *Template) Path() string {
	if t == nil {
		return ""
	}
	return t.path
}

// Keys returns the template's keys in the order their sections are
// written; none for a nil template.
func (t *Template) Keys() []string {
	if t == nil {
		return nil
	}
	keys := make([]string, len(t.keys))
	for i, k := range t.keys {
		keys[i] = k.key
	}
	return keys
}

// ParseTemplate parses the template of role r from data, the text of the
// file path (used in messages). The top level is a mapping from the
// role's keys (role, instructions or the executor's task_state, subtask,
// memory and tools, output_format, constraints) to text. It is an error,
// reported at its line and column, when a key is unknown or
// repeated, a required key is missing or a value is not text; when a
// placeholder is not one the role provides; when a '{' or '}' is neither
// doubled nor part of a placeholder; and when a value that is fenced as
// data ({workspace_listing}, {memory_entries_formatted}, ...) does not
// stand alone on its line, appears twice, or stands in a key it does not
// belong to. Every problem is returned, as a diag.List.
func ParseTemplate(r Role, path string, data []byte) (*Template, error) {
	if _, err := ParseRole(string(r)); err != nil {
		return nil, err
	}
	text, err := prompt.Normalize(data)
	if err != nil {
		return nil, diag.List{parser.EncodingError(path, err)}
	}
	top, err := parser.ParseText(path, text)
	if err != nil {
		return nil, err
	}
	specs := keysOf(r)
	if top == nil || top.Kind != yaml.MappingNode {
		line, col := 1, 1
		if top != nil {
			line, col = top.Line, top.Column
		}
		names := make([]string, len(specs))
		for i, s := range specs {
			names[i] = s.key
		}
		return nil, diag.List{diag.ErrorfAt(path, line, col, "%s template is a mapping of the keys %s to text", aRole(r), wordlist.And(names))}
	}
	vals, d := decodeTemplate(r, path, top)
	errs := d.Errors()
	t := &Template{role: r, path: path, text: string(data)}
	// The keys with a value, in the order written, so that a value used
	// twice is reported at its second use.
	type written struct {
		tk  *templateKey
		v   *yaml.Node
		col int
	}
	var keys []written
	found := map[string]*templateKey{}
	for i, s := range specs {
		line, col := d.Pos(s.key)
		switch {
		case line == 0:
			if s.required {
				errs = append(errs, at(path, top, "missing key %q: %s template needs %s", s.key, aRole(r), wordlist.And(requiredKeys(r))))
			}
			continue
		case vals[i].n == nil:
			if !d.Bad(s.key) { // written with no value
				errs = append(errs, diag.ErrorfAt(path, line, col, "key %q: write %s", s.key, textWant(s.key)))
			}
			continue
		}
		tk := &templateKey{key: s.key, line: line, col: col}
		found[s.key] = tk
		keys = append(keys, written{tk, vals[i].n, col})
	}
	slices.SortFunc(keys, func(a, b written) int { return cmp.Or(a.tk.line-b.tk.line, a.col-b.col) })
	seen := map[string]int{} // block placeholders, by name: the line of their first use
	for _, k := range keys {
		tk, v := k.tk, k.v
		segs, serrs := scan(v.Value)
		for _, e := range serrs {
			line, col := yamldoc.ValuePos(text, v, e.off)
			errs = append(errs, diag.ErrorfAt(path, line, col, "key %q: %s", tk.key, e.msg))
		}
		for i := range segs {
			s := &segs[i]
			if s.name == "" {
				continue
			}
			line, col := yamldoc.ValuePos(text, v, s.off)
			problem := func(format string, args ...any) {
				errs = append(errs, diag.ErrorfAt(path, line, col, "key %q: "+format, append([]any{tk.key}, args...)...))
			}
			p := placeholderOf(r, s.name)
			s.ph = p
			switch {
			case p == nil:
				problem("{%s} is not a placeholder the %s provides: use %s (write {{ and }} for literal braces)", s.name, r, placeholderNames(r))
				continue
			case p.only != "" && p.only != tk.key:
				problem("{%s} stands only in the %q key", s.name, p.only)
				continue
			case p.kind == inline:
				continue
			}
			if !aloneOnLine(v.Value, s.off, s.off+len(s.name)+2) {
				problem("{%s} must stand alone on its line: its value is written as a fenced block of data", s.name)
			}
			if first, ok := seen[s.name]; ok {
				problem("{%s} is used twice (first at line %d): a value written as data appears once", s.name, first)
			} else {
				seen[s.name] = line
			}
		}
		tk.segs = segs
	}
	for _, s := range specs {
		if tk := found[s.key]; tk != nil {
			t.keys = append(t.keys, *tk)
		}
	}
	for _, need := range []struct{ key, name string }{{keyMemory, "memory_entries_formatted"}, {keyTools, "tools_formatted"}} {
		if tk := found[need.key]; tk != nil && r == Executor && !slices.ContainsFunc(tk.segs, func(s segment) bool { return s.name == need.name }) {
			errs = append(errs, diag.ErrorfAt(path, tk.line, tk.col, "key %q does not use {%s}: write it on a line of its own where the %s go", need.key, need.name, strings.TrimSuffix(need.name, "_formatted")))
		}
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	slices.SortStableFunc(t.keys, func(a, b templateKey) int { return orderOf(a.key) - orderOf(b.key) })
	return t, nil
}

// templateText is the value of a template's key: text, kept as its node
// so that a problem inside it can be placed at its line and column.
type templateText struct{ n *yaml.Node }

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (t *templateText) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	if n.Kind != yaml.ScalarNode || n.Value == "" {
		d.Wrong(n, at, textWant(at))
		return
	}
	t.n = n
}

// textWant says how to write the text of key.
func textWant(key string) string {
	return fmt.Sprintf("its text as a string (a literal block, \"%s: |\", keeps the lines as written)", key)
}

// roleTemplate is the template of every role but the executor, as
// written; its fields are keysOf(r) in order.
type roleTemplate struct {
	Role         templateText `yaml:"role"`
	Instructions templateText `yaml:"instructions"`
	OutputFormat templateText `yaml:"output_format"`
	Constraints  templateText `yaml:"constraints"`
}

// executorTemplate is the executor's template, as written; its fields
// are keysOf(Executor) in order.
type executorTemplate struct {
	Role         templateText `yaml:"role"`
	TaskState    templateText `yaml:"task_state"`
	Subtask      templateText `yaml:"subtask"`
	Memory       templateText `yaml:"memory"`
	Tools        templateText `yaml:"tools"`
	OutputFormat templateText `yaml:"output_format"`
	Constraints  templateText `yaml:"constraints"`
}

// templateOptions are the options of the schema of r's templates.
func templateOptions(r Role) yamldoc.Options {
	return yamldoc.Options{
		Doc:       "a template",
		Columns:   true,
		Label:     func(at string) string { return labelKey(at) },
		TypeError: func(want, _ string) string { return "write " + want },
		UnknownKey: func(_, key, hint string, keys []string) string {
			var b strings.Builder
			fmt.Fprintf(&b, "unknown key %q: ", key)
			if hint != "" {
				fmt.Fprintf(&b, "did you mean %q? ", hint)
			}
			fmt.Fprintf(&b, "%s template has the keys %s", aRole(r), wordlist.And(keys))
			return b.String()
		},
	}
}

// labelKey names a template's key in messages: key "role".
func labelKey(at string) string {
	if at == "" {
		return ""
	}
	return "key " + strconv.Quote(at)
}

var (
	executorSchema = yamldoc.NewSchema[executorTemplate](templateOptions(Executor))
	roleSchemas    = map[Role]*yamldoc.Schema[roleTemplate]{
		Planner:   yamldoc.NewSchema[roleTemplate](templateOptions(Planner)),
		Replanner: yamldoc.NewSchema[roleTemplate](templateOptions(Replanner)),
		Extractor: yamldoc.NewSchema[roleTemplate](templateOptions(Extractor)),
		Verifier:  yamldoc.NewSchema[roleTemplate](templateOptions(Verifier)),
	}
)

// decodeTemplate decodes the top node of r's template: the value of each
// of keysOf(r), in order (nil where there is none), and the decoder.
func decodeTemplate(r Role, path string, top *yaml.Node) ([]templateText, *yamldoc.Decoder) {
	if r == Executor {
		var t executorTemplate
		d := executorSchema.Decode(path, top, &t)
		return []templateText{t.Role, t.TaskState, t.Subtask, t.Memory, t.Tools, t.OutputFormat, t.Constraints}, d
	}
	var t roleTemplate
	d := roleSchemas[r].Decode(path, top, &t)
	return []templateText{t.Role, t.Instructions, t.OutputFormat, t.Constraints}, d
}

// aRole is "a planner", "an executor", ...
func aRole(r Role) string {
	if r == Executor || r == Extractor {
		return "an " + string(r)
	}
	return "a " + string(r)
}

func requiredKeys(r Role) []string {
	var out []string
	for _, s := range keysOf(r) {
		if s.required {
			out = append(out, s.key)
		}
	}
	return out
}

func orderOf(key string) int {
	order := sectionOrder()
	for i := range order {
		if order[i].key == key {
			return i
		}
	}
	return len(order)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Templates is a template for each role and the constraint library. It is
// immutable and safe for concurrent use; With and WithLibrary return
// changed copies. A nil *Templates stands for DefaultTemplates, and a
// role or library a Templates lacks (as the zero Templates lacks them
// all) is the default one.
type Templates struct {
	roles [5]*Template
	lib   *Library
}

// Template returns r's template, or nil for an unknown role.
func (t *Templates) Template(r Role) *Template {
	for i, x := range Roles() {
		if x == r {
			if t == nil || t.roles[i] == nil {
				return defaults().roles[i]
			}
			return t.roles[i]
		}
	}
	return nil
}

// Library returns the constraint library.
func (t *Templates) Library() *Library {
	if t == nil || t.lib == nil {
		return defaults().lib
	}
	return t.lib
}

// With returns a copy of t with each given template in place of its
// role's; nil templates are ignored.
func (t *Templates) With(ts ...*Template) *Templates {
	if t == nil {
		t = defaults()
	}
	return t.with(ts...)
}

// with is With for a non-nil t.
func (t *Templates) with(ts ...*Template) *Templates {
	c := *t
	for _, x := range ts {
		if x == nil {
			continue
		}
		for i, r := range Roles() {
			if x.role == r {
				c.roles[i] = x
			}
		}
	}
	return &c
}

// WithLibrary returns a copy of t with library l (nil: the default
// library).
func (t *Templates) WithLibrary(l *Library) *Templates {
	if t == nil {
		t = defaults()
	}
	c := *t
	c.lib = l
	return &c
}

var defaults = sync.OnceValue(func() *Templates {
	t, err := loadFrom(nil, func(name string) (string, []byte, error) {
		data, err := defaultFiles.ReadFile("defaults/" + name)
		return "defaults/" + name, data, err
	}, Roles())
	if err != nil {
		panic(fmt.Sprintf("agent: the default templates do not load: %v", err)) // a test keeps them valid
	}
	return t
})

// DefaultTemplates returns the templates that ship inside Tessera: the
// design's planner, executor, replanner and extractor, a verifier in
// their spirit, and the design's constraint library (common, executor,
// safety).
func DefaultTemplates() *Templates { return defaults() }

// defaultFile returns the text of the default template or library file
// name ("executor.yaml", "constraints.yaml"), to start an edited copy
// from.
func defaultFile(name string) ([]byte, error) {
	return defaultFiles.ReadFile("defaults/" + name)
}

// read reads one file of a template directory: its path for messages, its
// data, or an error wrapping fs.ErrNotExist when there is none.
type read func(name string) (string, []byte, error)

// loadFrom returns base (nil: the defaults must all be found) with the
// templates of roles, and the library, replaced by the files read finds.
// Every problem in every file is returned.
func loadFrom(base *Templates, rd read, roles []Role) (*Templates, error) {
	t := &Templates{}
	if base != nil {
		*t = *base
	}
	var errs diag.List
	for _, r := range roles {
		p, data, err := rd(fileName(r))
		if errors.Is(err, fs.ErrNotExist) && base != nil {
			continue
		}
		if err != nil {
			errs.Add(fileError(p, err))
			continue
		}
		tmpl, err := ParseTemplate(r, p, data)
		if err != nil {
			errs.Add(err)
			continue
		}
		t = t.with(tmpl)
	}
	p, data, err := rd(libraryFile)
	switch {
	case errors.Is(err, fs.ErrNotExist) && base != nil:
	case err != nil:
		errs.Add(fileError(p, err))
	default:
		l, err := ParseLibrary(p, data)
		if err != nil {
			errs.Add(err)
		} else {
			t.lib = l
		}
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return t, nil
}

// fileError places a read error at the file.
func fileError(p string, err error) error {
	var d *diag.Error
	if errors.As(err, &d) {
		return err
	}
	var r interface{ Reason() string }
	if errors.As(err, &r) {
		return diag.Wrap(p, 0, err, "%s", r.Reason())
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return diag.Wrap(p, 0, err, "cannot read it: %v", pe.Err)
	}
	return diag.Wrap(p, 0, err, "cannot read it: %v", err)
}

// LoadDir returns base with the templates and library that the directory
// dir on disk holds (planner.yaml, executor.yaml, replanner.yaml,
// extractor.yaml, verifier.yaml, constraints.yaml) in place of its own;
// files it lacks keep base's. Only roles' templates are read (all when
// roles is empty); a .yaml file in dir with another name is an error, so a
// misspelt file name is not silently ignored. Each file is read bounded by
// max bytes (0: the default cap). A nil base is DefaultTemplates.
func LoadDir(base *Templates, dir string, max int64, roles ...Role) (*Templates, error) {
	if base == nil {
		base = DefaultTemplates()
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("templates directory %s: %w", dir, err)
	}
	var errs diag.List
	for _, e := range entries {
		if e.IsDir() || !(strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
			continue
		}
		if !knownFile(e.Name()) {
			errs.Add(diag.Errorf(filepath.ToSlash(filepath.Join(dir, e.Name())), 0, "not a template file: name it after a role (%s) or %s", wordlist.And(roleFiles()), libraryFile))
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if len(roles) == 0 {
		roles = Roles()
	}
	return loadFrom(base, func(name string) (string, []byte, error) {
		p := filepath.Join(dir, name)
		data, err := fileread.File(p, max)
		return filepath.ToSlash(p), data, err
	}, roles)
}

func knownFile(name string) bool {
	return name == libraryFile || slices.Contains(roleFiles(), name)
}

func roleFiles() []string {
	var out []string
	for _, r := range Roles() {
		out = append(out, fileName(r))
	}
	return out
}

// catalogPath is the path of file name in a catalog's template directory.
func catalogPath(name string) string { return path.Join(catalogDir, name) }

// JSONSchema returns the JSON Schema of role r's template file,
// generated from the decoder that reads it (see yamldoc.Schema.JSONSchema),
// or nil for a role that is not one of the five.
func JSONSchema(r Role) []byte {
	id := "https://tessera.dev/schemas/agent-" + string(r) + ".schema.json"
	title := "the agent's " + string(r) + " template"
	if r == Executor {
		return executorSchema.JSONSchema(id, title)
	}
	if s, ok := roleSchemas[r]; ok {
		return s.JSONSchema(id, title)
	}
	return nil
}
