package typed

import (
	"encoding/json"
	"fmt"
	"github.com/tessera-dev/tessera/schema"
	"maps"
	"slices"
	"strings"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
)

// The progressive-disclosure tools, as design 003 names them. A
// summarized section that carries tools (itself or below it) is opened
// with OpenSectionsTool: the caller lays the prompt out again with it
// expanded (Template.Expansion), and its tools come with it. A summarized
// section without tools is read with ReadSectionTool: the caller answers
// the call with Template.ReadSection, and the prompt stays as it is.
const (
	OpenSectionsTool = "open_sections"
	ReadSectionTool  = "read_section"
)

// style is how typed prompts are written: "## 1. Title" at the top,
// "### 1.1. Child" below it, sections joined by a blank line.
var style = render.Style{Heading: render.Heading{Level: 2, Deeper: true, Numbered: true}}

// Options are the choices of one layout beyond the parameters' values.
type Options struct {
	// Expand lists the paths of summarized sections to render in full.
	Expand []string
	// Overrides replace section bodies and tool descriptions; nil means
	// none.
	Overrides *Overrides
	// Redactor, when set, redacts secrets from text and list values
	// before they are substituted (and recorded).
	Redactor *guard.Redactor
}

// Layout lays out t with vals (completed with the defaults) for the
// engine: its enabled sections in order, numbered, with summaries where a
// section is summarized and not expanded, and the output schema. A
// required parameter without a value, or an expansion of a section that
// is not summarized, is an error.
func (t *Template) Layout(vals Values, opts Options) (*preset.Layout, error) {
	if t == nil {
		return nil, errNilTemplate
	}
	if err := t.Check(); err != nil {
		return nil, err
	}
	vals, err := t.resolve(vals)
	if err != nil {
		return nil, err
	}
	var counts guard.Counts
	if opts.Redactor != nil {
		for _, p := range t.Params {
			v := vals[p.Name]
			if p.Type != String && p.Type != List {
				continue
			}
			red, c := opts.Redactor.RedactSecrets(v.Text)
			if len(c) == 0 {
				continue
			}
			for _, x := range c {
				counts.Add(x.Label, x.N)
			}
			if p.Type == String {
				vals[p.Name] = stringValue(red)
			} else {
				vals[p.Name] = listValue(redactItems(opts.Redactor, v))
			}
		}
	}
	expand := map[string]bool{}
	for _, path := range opts.Expand {
		s := t.Section(path)
		switch {
		case s == nil:
			return nil, &preset.InputError{Input: inputExpand, Err: fmt.Errorf("%q: template %s/%s has no section %q: the summarized sections are %s", strings.Join(opts.Expand, ","), t.NS, t.Key, path, t.summarized())}
		case !s.Summarized:
			return nil, &preset.InputError{Input: inputExpand, Err: fmt.Errorf("section %q is not summarized: it is always rendered in full; the summarized sections are %s", path, t.summarized())}
		}
		expand[path] = true
	}
	ov := opts.Overrides
	if ov == nil {
		ov = &Overrides{}
	}
	b := layoutBuilder{t: t, vals: vals, expand: expand, ov: ov, system: map[string]bool{}}
	secs := b.sections("", t.Sections)
	b.attachDisclosure(secs)
	l := &preset.Layout{
		Sections:   secs,
		Style:      style,
		Messages:   1,
		Label:      t.NS + "/" + t.Key,
		Redactions: counts,
		At:         preset.Location{Path: t.path},
		Notes:      slices.Clone(ov.Notes),
	}
	if len(b.system) > 0 {
		l.Messages = 2
	}
	if o := t.Output; o != nil {
		l.Output = &preset.Output{Name: o.Name, Schema: o.requestSchema()}
	}
	rec := record{Template: t.text, Path: t.path, Values: map[string]json.RawMessage{}, Expand: slices.Sorted(maps.Keys(expand)), Sections: ov.applied(ov.sections), Tools: ov.applied(ov.tools), Params: ov.applied(ov.params), Examples: appliedExamples(ov.examples), Descriptor: t.descriptor()}
	for name, v := range vals {
		rec.Values[name] = v.JSON
	}
	l.Record = func(r *audit.Record) error {
		data, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("typed: recording the inputs: %w", err)
		}
		r.Inputs = data
		return nil
	}
	return l, nil
}

func redactItems(r *guard.Redactor, v Value) []string {
	items := slices.Clone(v.items)
	for i, it := range items {
		items[i], _ = r.RedactSecrets(it)
	}
	return items
}

// summarized lists the paths of t's summarized sections, for messages.
func (t *Template) summarized() string {
	var paths []string
	t.Walk(func(path string, s *SectionSpec) {
		if s.Summarized {
			paths = append(paths, path)
		}
	})
	if len(paths) == 0 {
		return "none"
	}
	return strings.Join(paths, ", ")
}

// requestSchema is the schema a request asks for: the object's, or for
// an array {"items": [...]} around the item's.
func (o *Output) requestSchema() json.RawMessage {
	if !o.Array {
		return o.Schema
	}
	b := []byte(`{"type":"object","properties":{"items":{"type":"array","items":`)
	b = append(b, o.Schema...)
	b = append(b, `}},"required":["items"],"additionalProperties":false}`...)
	return b
}

type layoutBuilder struct {
	t      *Template
	vals   Values
	expand map[string]bool
	ov     *Overrides
	opened []string        // summarized sections with tools: open_sections
	read   []string        // summarized sections without tools: read_section
	system map[string]bool // paths of the sections sent as system instructions
}

func (b *layoutBuilder) sections(parent string, specs []*SectionSpec) []prompt.Section {
	var out []prompt.Section
	for _, s := range specs {
		if s.Enabled != "" && b.vals[s.Enabled].Bool == s.Negate {
			continue
		}
		path := prompt.JoinKey(parent, s.Key)
		sec := prompt.Section{
			Key:      s.Key,
			Title:    s.Title,
			Priority: s.Priority,
			Trim:     s.Trim,
			Source:   b.t.path,
		}
		if s.Untrusted {
			sec.Trust = prompt.Untrusted
		}
		if s.System || parent != "" && b.system[parent] {
			sec.Role = prompt.RoleSystem
			b.system[path] = true
		}
		body := s.Body
		if o, ok := b.ov.sections[path]; ok && o.text != nil {
			body = o.text
		}
		if body != nil {
			sec.Body = body.render(b.vals)
		}
		if len(s.Examples) > 0 {
			ex := b.examples("task:"+path, s.Examples)
			if sec.Body != "" {
				sec.Body += "\n\n"
			}
			sec.Body += ex
		}
		if s.Summarized && !b.expand[path] {
			sec.Visibility = prompt.Summary
			note := fmt.Sprintf("(This is a summary. Call %s with %q for the full section.)", ReadSectionTool, path)
			if s.hasTools() {
				note = fmt.Sprintf("(This is a summary. Call %s with %q to open the full section and its tools.)", OpenSectionsTool, path)
				b.opened = append(b.opened, path)
			} else {
				b.read = append(b.read, path)
			}
			sec.Summary = s.Summary.render(b.vals) + "\n\n" + note
			// A summarized section's tools come when it is opened.
			out = append(out, sec)
			continue
		}
		for _, tl := range s.Tools {
			desc := tl.Description
			if o, ok := b.ov.tools[tl.Name]; ok {
				desc = o.body
			}
			if len(tl.Examples) > 0 {
				desc += "\n\n" + b.examples("tool:"+tl.Name, tl.Examples)
			}
			params := tl.Parameters
			for key, o := range b.ov.params {
				if name, param, _ := strings.Cut(key, "."); name == tl.Name {
					params = withParamDescription(params, param, o.body)
				}
			}
			sec.Tools = append(sec.Tools, prompt.Tool{Name: tl.Name, Description: desc, Parameters: params})
		}
		sec.Children = b.sections(path, s.Children)
		out = append(out, sec)
	}
	return out
}

// examples writes a list of examples, each overridden when the
// overrides have one for id#index:
//
//	Example 1:
//	Input: ...
//	Output: ...
func (b *layoutBuilder) examples(id string, list []Example) string {
	var w strings.Builder
	for i, e := range list {
		if o, ok := b.ov.examples[fmt.Sprintf("%s#%d", id, i)]; ok {
			e = o
		}
		if i > 0 {
			w.WriteString("\n\n")
		}
		fmt.Fprintf(&w, "Example %d:\nInput: %s\nOutput: %s", i+1, strings.TrimSpace(e.Input), strings.TrimSpace(e.Output))
	}
	return w.String()
}

// attachDisclosure offers open_sections with the first summarized
// section that has tools, naming every such section, and read_section
// with the first summarized section without, naming every such one.
func (b *layoutBuilder) attachDisclosure(secs []prompt.Section) {
	if len(b.opened) > 0 {
		params := `{"type":"object","properties":{"section_keys":{"type":"array","items":{"type":"string","enum":` + enumOf(b.opened) + `},"description":"The sections to open in full, with their tools."},"reason":{"type":"string","description":"Why they are needed."}},"required":["section_keys","reason"],"additionalProperties":false}`
		attachAt(secs, b.opened[0], prompt.Tool{Name: OpenSectionsTool, Description: "Open summarized sections of the instructions in full, with the tools they bring. Call it when a section's summary is not enough for the task.", Parameters: json.RawMessage(params)})
	}
	if len(b.read) > 0 {
		params := `{"type":"object","properties":{"section_key":{"type":"string","enum":` + enumOf(b.read) + `,"description":"The section to read."}},"required":["section_key"],"additionalProperties":false}`
		attachAt(secs, b.read[0], prompt.Tool{Name: ReadSectionTool, Description: "Read a summarized section of the instructions in full. Call it when the section's summary is not enough for the task.", Parameters: json.RawMessage(params)})
	}
}

func enumOf(paths []string) string {
	enum := []byte{'['}
	for i, p := range paths {
		if i > 0 {
			enum = append(enum, ',')
		}
		enum = schema.AppendString(enum, p)
	}
	return string(append(enum, ']'))
}

// attachAt adds tool to the section at path.
func attachAt(secs []prompt.Section, path string, tool prompt.Tool) {
	var attach func(parent string, secs []prompt.Section) bool
	attach = func(parent string, secs []prompt.Section) bool {
		for i := range secs {
			p := prompt.JoinKey(parent, secs[i].Key)
			if p == path {
				secs[i].Tools = append(secs[i].Tools, tool)
				return true
			}
			if attach(p, secs[i].Children) {
				return true
			}
		}
		return false
	}
	attach("", secs)
}

// record is what an audit record keeps to lay the prompt out again: the
// template's text, the values (redacted), the expansions, and the
// overrides that were applied.
type record struct {
	Template string                     `json:"template"`
	Path     string                     `json:"path"`
	Values   map[string]json.RawMessage `json:"values"`
	Expand   []string                   `json:"expand,omitempty"`
	Sections map[string]string          `json:"override_sections,omitempty"`
	Tools    map[string]string          `json:"override_tools,omitempty"`
	Params   map[string]string          `json:"override_params,omitempty"`
	Examples map[string][2]string       `json:"override_examples,omitempty"`
	// Descriptor is the template's, for writing overrides; Rebuild
	// does not read it.
	Descriptor *Descriptor `json:"descriptor,omitempty"`
}

// appliedExamples returns the example overrides for the record, as
// [input, output] by "task:path#i" or "tool:name#i".
func appliedExamples(m map[string]Example) map[string][2]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string][2]string, len(m))
	for k, e := range m {
		out[k] = [2]string{e.Input, e.Output}
	}
	return out
}
