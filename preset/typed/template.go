package typed

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/output"
	"github.com/tessera-dev/tessera/prompt"
)

// Template is a parsed typed prompt template. It is immutable once
// parsed and safe to render from many goroutines.
type Template struct {
	// NS and Key name the template ("review", "code-review"); overrides
	// and compile's output are found by them.
	NS, Key string
	// Name is a display name; it may be empty.
	Name string
	// Params are the declared parameters, in the order written.
	Params []Param
	// Sections are the top-level sections, in order.
	Sections []*SectionSpec
	// Output is the declared reply, or nil.
	Output *Output
	// Fixtures are named sets of values compile builds the template with.
	Fixtures []Fixture

	path string // the file, for diagnostics
	text string // the file's normalised text, for positions and records

	descOnce sync.Once
	desc     Descriptor // see descriptor
}

// errNilTemplate is the error of a method called on a nil *Template.
var errNilTemplate = errors.New("typed: no template (nil *Template): parse one with Parse")

// Path returns the path the template was parsed from; "" for a nil
// template.
func (t *Template) Path() string {
	if t == nil {
		return ""
	}
	return t.path
}

// Text returns the template file's normalised text; "" for a nil
// template.
func (t *Template) Text() string {
	if t == nil {
		return ""
	}
	return t.text
}

// Param returns the parameter named name, or nil (also for a nil
// template).
func (t *Template) Param(name string) *Param {
	if t == nil {
		return nil
	}
	for i := range t.Params {
		if t.Params[i].Name == name {
			return &t.Params[i]
		}
	}
	return nil
}

// Section returns the section at path (keys joined by '/'), or nil (also
// for a nil template).
func (t *Template) Section(path string) *SectionSpec {
	if t == nil {
		return nil
	}
	secs := t.Sections
	var found *SectionSpec
	for _, key := range strings.Split(path, "/") {
		found = nil
		for _, s := range secs {
			if s != nil && s.Key == key {
				found = s
				break
			}
		}
		if found == nil {
			return nil
		}
		secs = found.Children
	}
	return found
}

// Walk calls f for every section, parents before children, with its path.
func (t *Template) Walk(f func(path string, s *SectionSpec)) {
	if t == nil || f == nil {
		return
	}
	var walk func(parent string, secs []*SectionSpec)
	walk = func(parent string, secs []*SectionSpec) {
		for _, s := range secs {
			if s == nil {
				continue
			}
			p := prompt.JoinKey(parent, s.Key)
			f(p, s)
			walk(p, s.Children)
		}
	}
	walk("", t.Sections)
}

// Type is a parameter's type.
type Type uint8

const (
	// String is text.
	String Type = iota + 1
	// Integer is a whole number.
	Integer
	// Number is any JSON number.
	Number
	// Boolean is true or false; only booleans may enable sections.
	Boolean
	// List is a list of strings, substituted one per line as "- item".
	List
)

var typeNames = []string{"", "string", "integer", "number", "boolean", "list"}

// String returns the type's name as templates write it ("string", "list").
func (t Type) String() string {
	if int(t) < len(typeNames) && t != 0 {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", t)
}

// Param is a declared parameter.
type Param struct {
	// Name is how templates name it: $name.
	Name string
	// Type is its type.
	Type Type
	// Description says what it is, for people.
	Description string
	// Default is its value when none is bound; nil means it is required.
	Default *Value

	line, col int
}

// Required reports whether the parameter has no default.
func (p *Param) Required() bool { return p != nil && p.Default == nil }

// SectionSpec is one section of a template.
type SectionSpec struct {
	// Key names the section among its siblings; see prompt.ValidKey.
	Key string
	// Title is its heading.
	Title string
	// Body and Summary are its template and its summary's, parsed.
	Body, Summary *Text
	// Summarized marks a section rendered as its summary until expanded.
	Summarized bool
	// Enabled names the boolean parameter that enables the section; with
	// Negate, the section is enabled when it is false. Empty: always.
	Enabled string
	Negate  bool
	// Overridable is whether overrides may replace its body.
	Overridable bool
	// Untrusted fences its text as reference material.
	Untrusted bool
	// System sends the section (a top-level one, with its children) as
	// system instructions rather than user content.
	System bool
	// Priority and Trim are for the budget (lower priority is kept
	// longer).
	Priority int
	Trim     prompt.TrimRule
	// Tools are offered to the model while the section is kept.
	Tools []Tool
	// Examples are worked examples of the task, written after the body.
	Examples []Example
	// Workspace is a directory (relative to the template's file) that
	// the section gives the tools as a Workspace resource (package
	// preset/typed/tools), confined to it; empty: none.
	Workspace string
	// Children are its subsections.
	Children []*SectionSpec

	line, col int
}

// hasTools reports whether the section or one below it carries tools.
func (s *SectionSpec) hasTools() bool {
	if s == nil {
		return false
	}
	if len(s.Tools) > 0 {
		return true
	}
	for _, c := range s.Children {
		if c.hasTools() {
			return true
		}
	}
	return false
}

// Tool is a tool attached to a section.
type Tool struct {
	// Name is how the model calls it.
	Name string
	// Description says what it does, for the model.
	Description string
	// Parameters is the JSON Schema of its arguments.
	Parameters json.RawMessage
	// Result is the JSON Schema of what it returns, or nil; a handler's
	// result is checked against it.
	Result json.RawMessage
	// Examples are example calls, written after the description.
	Examples []Example
}

// Example is a worked example: an input and the output wanted for it.
// A section's are written after its body; a tool's (Input being the
// call's arguments) after its description. Examples are literal text:
// no placeholders.
type Example struct {
	// Input is the example's input (for a tool, its arguments); Output
	// is what is wanted for it.
	Input, Output string
}

// Output is the declared reply: a JSON object, or an array of objects,
// matching Schema.
type Output struct {
	// Name names the schema for providers.
	Name string
	// Array is whether the reply is an array of Schema's objects; the
	// request then asks for {"items": [...]}, since providers want an
	// object at the top, and ParseReply unwraps it.
	Array bool
	// Schema is the JSON Schema of the object (of one item for Array).
	// It is compiled when a reply is first parsed, and again when it has
	// changed since.
	Schema json.RawMessage
	// Extra is what ParseReply does with keys the schema does not
	// declare, unless a call says otherwise: output.Forbid (the default)
	// or output.Ignore.
	Extra output.Extra

	check atomic.Pointer[compiled] // Schema compiled, and the bytes it came from
}

// compiled is an output schema compiled, with the bytes it came from.
type compiled struct {
	src    string
	schema *output.Schema
}

// compiled returns o's schema compiled, compiling it when it is not yet,
// or when Schema has changed since.
func (o *Output) compiled() (*output.Schema, error) {
	if c := o.check.Load(); c != nil && c.src == string(o.Schema) {
		return c.schema, nil
	}
	name := o.Name
	if name == "" {
		name = "reply"
	}
	if len(o.Schema) == 0 {
		return nil, fmt.Errorf("output %s has no schema: set Output.Schema to the JSON Schema of the reply (of one item, for an array)", name)
	}
	s, err := output.Compile(name, o.Schema)
	if err != nil {
		return nil, err
	}
	o.check.Store(&compiled{src: string(o.Schema), schema: s})
	return s, nil
}

// Fixture is a named set of values the template is compiled with.
type Fixture struct {
	// Name names it, and the file compile writes it to.
	Name string
	// Params are its values, as written in the template.
	Params *yaml.Node
	// Expand lists the summarized sections it renders in full.
	Expand []string

	line, col int
}

// The file as written.
type fileDoc struct {
	NS       string       `yaml:"ns"`
	Key      string       `yaml:"key"`
	Name     string       `yaml:"name"`
	Params   []paramDoc   `yaml:"params"`
	Output   *outputDoc   `yaml:"output"`
	Sections sectionList  `yaml:"sections"`
	Fixtures []fixtureDoc `yaml:"fixtures"`
}

type paramDoc struct {
	Name        string `yaml:"name"`
	Type        string `yaml:"type"`
	Description string `yaml:"description"`
	Default     nodeOf `yaml:"default"`
}

type sectionDoc struct {
	Key         string       `yaml:"key"`
	Title       string       `yaml:"title"`
	Template    nodeOf       `yaml:"template"`
	Summary     nodeOf       `yaml:"summary"`
	Visibility  string       `yaml:"visibility"`
	Enabled     string       `yaml:"enabled"`
	Overridable *bool        `yaml:"overridable"`
	Trust       string       `yaml:"trust"`
	Role        string       `yaml:"role"`
	Priority    int          `yaml:"priority"`
	Trim        string       `yaml:"trim"`
	Tools       []toolDoc    `yaml:"tools"`
	Workspace   string       `yaml:"workspace"`
	Examples    []exampleDoc `yaml:"examples"`
	Children    sectionList  `yaml:"children"`
}

type toolDoc struct {
	Name        string       `yaml:"name"`
	Description string       `yaml:"description"`
	Parameters  jsonValue    `yaml:"parameters"`
	Result      jsonValue    `yaml:"result"`
	Examples    []exampleDoc `yaml:"examples"`
}

type exampleDoc struct {
	Input  string `yaml:"input"`
	Output string `yaml:"output"`
}

type outputDoc struct {
	Name      string    `yaml:"name"`
	Container string    `yaml:"container"`
	Extra     string    `yaml:"extra"`
	Schema    jsonValue `yaml:"schema"`
}

type fixtureDoc struct {
	Name   string   `yaml:"name"`
	Params nodeOf   `yaml:"params"`
	Expand []string `yaml:"expand"`
}

// nodeOf keeps a value as its node, to be read later with its place.
type nodeOf struct{ n *yaml.Node }

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (v *nodeOf) UnmarshalYAMLNode(_ *yamldoc.Decoder, n *yaml.Node, _ string) { v.n = n }

// sectionList is a list of sections; a hook, so that the section type
// can hold itself.
type sectionList struct {
	items []sectionDoc
	nodes []*yaml.Node
}

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (l *sectionList) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	if n.Kind != yaml.SequenceNode {
		d.Wrong(n, at, "a list of sections")
		return
	}
	l.items = make([]sectionDoc, len(n.Content))
	l.nodes = n.Content
	for i, c := range n.Content {
		d.Decode(c, fmt.Sprintf("%s[%d]", at, i), &l.items[i])
	}
}

// jsonValue is any value, kept as compact JSON in its written order.
type jsonValue json.RawMessage

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (v *jsonValue) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	if raw, ok := d.JSON(n, at); ok {
		*v = jsonValue(raw)
	}
}

var (
	parser     = yamldoc.Parser{Columns: true}
	fileSchema = yamldoc.NewSchema[fileDoc](yamldoc.Options{Doc: "a typed template", Columns: true})
	nsPattern  = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	namePat    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// Parse parses a typed template file; path names it in diagnostics.
// Every problem is reported at once, each at its line and column: unknown
// keys, wrong types, invalid names, repeated keys or parameters, a
// placeholder or an enabling parameter that is not declared, a lone '$'.
func Parse(path string, data []byte) (*Template, error) {
	text, top, err := parseDoc(path, data)
	if err != nil {
		return nil, err
	}
	if top == nil {
		return nil, diag.List{diag.ErrorfAt(path, 1, 1, "the file is empty: write ns, key, params and sections (see docs/typed.md)")}
	}
	if top.Kind != yaml.MappingNode {
		return nil, diag.List{diag.ErrorfAt(path, top.Line, top.Column, "want a mapping with ns, key, params and sections at the top level")}
	}
	var doc fileDoc
	d := fileSchema.Decode(path, top, &doc)
	b := builder{path: path, text: text, top: top, d: d, errs: d.Errors()}
	t := b.build(&doc)
	if len(b.errs) > 0 {
		b.errs.Sort()
		return nil, b.errs
	}
	return t, nil
}

// parseDoc normalises data, the file path, and parses it into its top
// node (nil for an empty document); every file of the preset is read so.
func parseDoc(path string, data []byte) (string, *yaml.Node, error) {
	text, err := prompt.Normalize(data)
	if err != nil {
		return "", nil, yamldoc.EncodingError(path, err)
	}
	top, err := parser.ParseFileText(path, text)
	return text, top, err
}

// builder checks a decoded file and builds its Template.
type builder struct {
	path  string
	text  string
	top   *yaml.Node
	d     *yamldoc.Decoder
	errs  diag.List
	tools map[string]toolAt // the tools defined so far, by name
}

// toolAt is a tool and where it was first defined.
type toolAt struct {
	tool Tool
	path string
	line int
}

func (b *builder) errorf(line, col int, format string, args ...any) {
	b.errs = append(b.errs, diag.ErrorfAt(b.path, line, col, format, args...))
}

func (b *builder) at(key string, format string, args ...any) {
	line, col := b.d.Pos(key)
	b.errorf(line, col, format, args...)
}

func (b *builder) build(doc *fileDoc) *Template {
	t := &Template{NS: doc.NS, Key: doc.Key, Name: doc.Name, path: b.path, text: b.text}
	for _, k := range []struct{ key, v string }{{"ns", doc.NS}, {"key", doc.Key}} {
		switch {
		case b.d.Failed(k.key):
		case k.v == "":
			line, col := b.d.Pos(k.key)
			if line == 0 {
				line, col = 1, 1
			}
			b.errorf(line, col, "%s is required: name the template with lower-case letters, digits, '.', '_' and '-'", k.key)
		case !nsPattern.MatchString(k.v):
			b.at(k.key, "%s %q: use 1 to 64 lower-case letters, digits, '.', '_' and '-', starting with a letter or digit", k.key, k.v)
		}
	}
	b.params(t, doc.Params)
	if doc.Output != nil {
		t.Output = b.output(doc.Output)
	}
	if len(doc.Sections.items) == 0 && !b.d.Failed("sections") {
		line, col := b.d.Pos("sections")
		if line == 0 {
			line, col = 1, 1
		}
		b.errorf(line, col, "sections: write at least one section (key, title, template)")
	}
	t.Sections = b.sections(t, "sections", "", &doc.Sections, 1)
	b.fixtures(t, doc.Fixtures)
	return t
}

func (b *builder) params(t *Template, docs []paramDoc) {
	for i, pd := range docs {
		at := fmt.Sprintf("params[%d]", i)
		if b.d.Failed(at) {
			continue
		}
		line, col := b.d.Pos(at)
		p := Param{Name: pd.Name, Description: pd.Description, line: line, col: col}
		switch {
		case pd.Name == "":
			b.errorf(line, col, "param %d has no name: add name: and a name of letters, digits and '_'", i+1)
			continue
		case !namePat.MatchString(pd.Name):
			b.at(at+".name", "param %q: a name is letters, digits and '_', not starting with a digit, so that $%s can name it", pd.Name, pd.Name)
			continue
		case t.Param(pd.Name) != nil:
			prev := t.Param(pd.Name)
			b.at(at+".name", "param %q is declared twice (first at line %d): give each parameter one entry", pd.Name, prev.line)
			continue
		}
		typ := slices.Index(typeNames, pd.Type)
		if typ <= 0 {
			hint := "use string, integer, number, boolean or list"
			if pd.Type == "" {
				b.errorf(line, col, "param %q has no type: %s", pd.Name, hint)
			} else {
				b.at(at+".type", "param %q: unknown type %q: %s", pd.Name, pd.Type, hint)
			}
			continue
		}
		p.Type = Type(typ)
		if n := pd.Default.n; n != nil {
			v, err := valueOf(b.path, &p, n)
			if err != nil {
				b.errs = append(b.errs, err)
			} else {
				p.Default = &v
			}
		}
		t.Params = append(t.Params, p)
	}
}

func (b *builder) output(o *outputDoc) *Output {
	out := &Output{Name: o.Name, Schema: json.RawMessage(o.Schema)}
	switch o.Container {
	case "", "object":
	case "array":
		out.Array = true
	default:
		b.at("output.container", "output container %q: use object (the reply is one JSON object) or array (a JSON array of them)", o.Container)
	}
	if x, err := output.ParseExtra(o.Extra); err != nil {
		b.at("output.extra", "output %v", err)
	} else {
		out.Extra = x
	}
	if out.Name == "" {
		out.Name = "reply"
	}
	if !namePat.MatchString(out.Name) {
		b.at("output.name", "output name %q: use letters, digits and '_'", out.Name)
	}
	if len(out.Schema) == 0 {
		if !b.d.Failed("output.schema") {
			b.at("output", "output: add schema:, the JSON Schema of the reply (of each item, for an array)")
		}
		return out
	}
	if errs := yamldoc.SchemaErrors(b.path, b.top, "/output/schema", out.Schema, "output schema"); len(errs) > 0 {
		b.errs = append(b.errs, errs...)
		return out
	}
	var probe struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(out.Schema, &probe); err != nil || probe.Type != "object" {
		b.at("output.schema", "output schema: want a JSON Schema with \"type\": \"object\" (for an array, the schema of one item)")
		return out
	}
	if _, err := out.compiled(); err != nil {
		b.at("output.schema", "%v", err)
	}
	return out
}

func (b *builder) sections(t *Template, at, parent string, list *sectionList, depth int) []*SectionSpec {
	var out []*SectionSpec
	seen := map[string]int{}
	for i := range list.items {
		sd := &list.items[i]
		n := list.nodes[i]
		sat := fmt.Sprintf("%s[%d]", at, i)
		if depth > maxDepth {
			b.errorf(n.Line, n.Column, "section %q is nested %d deep: sections nest at most %d deep (a top-level section is \"## 1.\", and \"######\" is Markdown's deepest heading); move it up a level", prompt.JoinKey(parent, sd.Key), depth, maxDepth)
			continue
		}
		s := &SectionSpec{Key: sd.Key, Title: sd.Title, Priority: sd.Priority, line: n.Line, col: n.Column, Overridable: true}
		path := prompt.JoinKey(parent, sd.Key)
		switch {
		case b.d.Failed(sat + ".key"):
		case sd.Key == "":
			b.errorf(n.Line, n.Column, "a section has no key: add key: with lower-case letters, digits, '.', '_' and '-'")
		case !prompt.ValidKey(sd.Key):
			b.at(sat+".key", "section key %q: use 1 to 64 lower-case letters, digits, '.', '_' and '-', starting with a letter or digit", sd.Key)
		case seen[sd.Key] > 0:
			b.at(sat+".key", "section %q is repeated (first at line %d): keys are unique among siblings", path, seen[sd.Key])
		default:
			seen[sd.Key] = n.Line
		}
		if sd.Overridable != nil {
			s.Overridable = *sd.Overridable
		}
		s.Workspace = sd.Workspace
		s.Examples = b.examples(sat+".examples", fmt.Sprintf("section %q", path), sd.Examples)
		if tn := sd.Template.n; tn != nil {
			s.Body = b.parseText(t, sat+".template", tn)
		}
		if sn := sd.Summary.n; sn != nil {
			s.Summary = b.parseText(t, sat+".summary", sn)
		}
		switch sd.Visibility {
		case "", "full":
		case "summary":
			s.Summarized = true
			if s.Summary == nil {
				b.at(sat+".visibility", "section %q: visibility summary needs a summary: to show until it is expanded", path)
			}
		default:
			b.at(sat+".visibility", "section %q: visibility %q: use full or summary", path, sd.Visibility)
		}
		switch sd.Trust {
		case "", "trusted":
		case "untrusted":
			s.Untrusted = true
		default:
			b.at(sat+".trust", "section %q: trust %q: use trusted or untrusted", path, sd.Trust)
		}
		switch sd.Role {
		case "", "user":
		case "system":
			if parent != "" {
				b.at(sat+".role", "section %q: role is set on top-level sections only; a child goes where its parent goes", path)
			}
			s.System = true
		default:
			b.at(sat+".role", "section %q: role %q: use system or user", path, sd.Role)
		}
		if sd.Trim != "" {
			r, err := prompt.ParseTrimRule(sd.Trim)
			switch {
			case err != nil:
				b.at(sat+".trim", "section %q: %v", path, err)
			case r == prompt.TrimLowestRelevance || r == prompt.TrimOldest:
				b.at(sat+".trim", "section %q: trim %s works on items, and a typed section has a body: use never, drop or truncate", path, sd.Trim)
			default:
				s.Trim = r
			}
		}
		if sd.Enabled != "" {
			name := strings.TrimPrefix(sd.Enabled, "!")
			s.Enabled, s.Negate = name, name != sd.Enabled
			switch p := t.Param(name); {
			case p == nil:
				b.at(sat+".enabled", "section %q: enabled names %q, which is not a declared parameter: declare it as a boolean, or fix the name", path, name)
			case p.Type != Boolean:
				b.at(sat+".enabled", "section %q: enabled names %q, a %s: only a boolean parameter may enable a section", path, name, p.Type)
			}
		}
		for j, td := range sd.Tools {
			tat := fmt.Sprintf("%s.tools[%d]", sat, j)
			if b.d.Failed(tat) {
				continue
			}
			if td.Name == "" || !namePat.MatchString(td.Name) {
				b.at(tat, "section %q: tool %d: name %q: use letters, digits and '_'", path, j+1, td.Name)
				continue
			}
			tp := fmt.Sprintf("/tools/%d", j)
			if e := yamldoc.ToolNameError(b.path, n, tp+"/name", td.Name, fmt.Sprintf("section %q: tool %d", path, j+1)); e != nil {
				b.errs = append(b.errs, e)
				continue
			}
			if td.Name == OpenSectionsTool || td.Name == ReadSectionTool {
				b.at(tat+".name", "section %q: tool %q: the name is the preset's own disclosure tool, offered when a section is summarized: give yours another name", path, td.Name)
				continue
			}
			params := json.RawMessage(td.Parameters)
			if len(params) > 0 {
				if errs := yamldoc.SchemaErrors(b.path, n, tp+"/parameters", params, fmt.Sprintf("section %q: tool %q: parameters", path, td.Name)); len(errs) > 0 {
					b.errs = append(b.errs, errs...)
					continue
				}
			}
			if len(params) == 0 {
				params = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			result := json.RawMessage(td.Result)
			if len(result) > 0 {
				if errs := yamldoc.SchemaErrors(b.path, n, tp+"/result", result, fmt.Sprintf("section %q: tool %q: result", path, td.Name)); len(errs) > 0 {
					b.errs = append(b.errs, errs...)
					continue
				}
			}
			tl := Tool{Name: td.Name, Description: td.Description, Parameters: params, Result: result, Examples: b.examples(tat+".examples", fmt.Sprintf("section %q: tool %q", path, td.Name), td.Examples)}
			line, col := b.d.Pos(tat + ".name")
			if prev, ok := b.tools[tl.Name]; ok {
				if !sameTool(prev.tool, tl) {
					b.errorf(line, col, "section %q: tool %q is defined differently by section %q at line %d: a tool has one definition; give one of them another name, or make them the same", path, tl.Name, prev.path, prev.line)
				}
			} else {
				if b.tools == nil {
					b.tools = map[string]toolAt{}
				}
				b.tools[tl.Name] = toolAt{tool: tl, path: path, line: line}
			}
			s.Tools = append(s.Tools, tl)
		}
		s.Children = b.sections(t, sat+".children", path, &sd.Children, depth+1)
		switch {
		case b.d.Failed(sat + ".title"):
		case sd.Title == "":
			b.errorf(n.Line, n.Column, "section %q has no title: add title:, its heading", path)
		case titleProblem(sd.Title) != "":
			b.at(sat+".title", "section %q: the title %s", path, titleProblem(sd.Title))
		}
		if s.Body == nil && len(s.Children) == 0 && !b.d.Failed(sat) {
			b.errorf(n.Line, n.Column, "section %q has neither a template nor children: write its template: or remove it", path)
		}
		out = append(out, s)
	}
	return out
}

// text parses the template text of node n (the value at at), checking
// that every placeholder names a declared parameter.
func (b *builder) parseText(t *Template, at string, n *yaml.Node) *Text {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		b.errorf(n.Line, n.Column, "%s: want text (a literal block, \"%s: |\", keeps the lines as written)", at, at[strings.LastIndexByte(at, '.')+1:])
		return nil
	}
	txt, perrs := parseText(n.Value)
	for _, e := range perrs {
		line, col := yamldoc.ValuePos(b.text, n, e.off)
		b.errorf(line, col, "%s", e.msg)
	}
	for _, s := range txt.segs {
		if s.param == "" || t.Param(s.param) != nil {
			continue
		}
		line, col := yamldoc.ValuePos(b.text, n, s.off)
		hint := ""
		if len(t.Params) > 0 {
			names := make([]string, len(t.Params))
			for i, p := range t.Params {
				names[i] = p.Name
			}
			hint = ": the parameters are " + strings.Join(names, ", ")
		}
		b.errorf(line, col, "$%s is not a declared parameter: declare it under params, or write $$ for a dollar sign%s", s.param, hint)
	}
	return txt
}

func (b *builder) fixtures(t *Template, docs []fixtureDoc) {
	seen := map[string]bool{}
	for i, fd := range docs {
		at := fmt.Sprintf("fixtures[%d]", i)
		if b.d.Failed(at) {
			continue
		}
		line, col := b.d.Pos(at)
		if !prompt.ValidKey(fd.Name) {
			b.errorf(line, col, "fixture %d: name %q: use lower-case letters, digits, '.', '_' and '-' (it names the compiled file)", i+1, fd.Name)
			continue
		}
		if seen[fd.Name] {
			b.errorf(line, col, "fixture %q is repeated: give each fixture its own name", fd.Name)
			continue
		}
		seen[fd.Name] = true
		t.Fixtures = append(t.Fixtures, Fixture{Name: fd.Name, Params: fd.Params.n, Expand: fd.Expand, line: line, col: col})
	}
}

// examples checks a list of examples: each has an input and an output.
func (b *builder) examples(at, what string, docs []exampleDoc) []Example {
	var out []Example
	for i, e := range docs {
		eat := fmt.Sprintf("%s[%d]", at, i)
		if b.d.Failed(eat) {
			continue
		}
		if strings.TrimSpace(e.Input) == "" || strings.TrimSpace(e.Output) == "" {
			b.at(eat, "%s: example %d needs an input and an output", what, i+1)
			continue
		}
		out = append(out, Example(e))
	}
	return out
}

// JSONSchema returns the JSON Schema of a typed template file,
// generated from the decoder that reads it (see yamldoc.Schema.JSONSchema).
func JSONSchema() []byte {
	return fileSchema.JSONSchema("https://tessera.dev/schemas/typed-template.schema.json", "a typed template")
}
