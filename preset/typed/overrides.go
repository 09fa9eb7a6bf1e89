package typed

import (
	"encoding/json"
	"fmt"
	"github.com/tessera-dev/tessera/schema"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/jcs"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/prompt"
)

// Descriptor is what overrides are checked against: the hash of each
// overridable section's template as written, and of each tool's contract
// (its name and parameters). An override carries the hash it was written
// for; when the template's hash differs, the override is stale.
type Descriptor struct {
	// NS and Key name the template.
	NS  string `json:"ns"`
	Key string `json:"key"`
	// Sections maps each overridable section's path to its hash.
	Sections map[string]string `json:"sections"`
	// Tools maps each tool's name to its contract's hash.
	Tools map[string]string `json:"tools"`
	// TaskExamples maps each section example, "path#index" (from 0), to
	// its hash: the SHA-256 of the RFC 8785 form of [input, output].
	TaskExamples map[string]string `json:"task_examples,omitempty"`
	// ToolExamples maps each tool example, "tool#index", to its hash,
	// made the same way.
	ToolExamples map[string]string `json:"tool_examples,omitempty"`
}

// Descriptor returns t's descriptor.
func (t *Template) Descriptor() Descriptor {
	if t == nil {
		return Descriptor{}
	}
	d := *t.descriptor()
	d.Sections, d.Tools = maps.Clone(d.Sections), maps.Clone(d.Tools)
	d.TaskExamples, d.ToolExamples = maps.Clone(d.TaskExamples), maps.Clone(d.ToolExamples)
	return d
}

// descriptor returns t's descriptor, hashed on first use and kept: the
// template does not change, and every layout records it. Read it, never
// change it.
func (t *Template) descriptor() *Descriptor {
	t.descOnce.Do(func() { t.desc = t.hashDescriptor() })
	return &t.desc
}

func (t *Template) hashDescriptor() Descriptor {
	d := Descriptor{NS: t.NS, Key: t.Key, Sections: map[string]string{}, Tools: map[string]string{}}
	t.Walk(func(path string, s *SectionSpec) {
		if s.Overridable && s.Body != nil {
			d.Sections[path] = prompt.Hash(s.Body.Source)
		}
		for i, e := range s.Examples {
			if d.TaskExamples == nil {
				d.TaskExamples = map[string]string{}
			}
			d.TaskExamples[fmt.Sprintf("%s#%d", path, i)] = exampleHash(e)
		}
		for _, tl := range s.Tools {
			d.Tools[tl.Name] = toolHash(tl)
			for i, e := range tl.Examples {
				if d.ToolExamples == nil {
					d.ToolExamples = map[string]string{}
				}
				d.ToolExamples[fmt.Sprintf("%s#%d", tl.Name, i)] = exampleHash(e)
			}
		}
	})
	return d
}

// exampleHash is the SHA-256 of the RFC 8785 form of [input, output].
func exampleHash(e Example) string {
	b := schema.AppendString([]byte{'['}, e.Input)
	b = append(b, ',')
	b = schema.AppendString(b, e.Output)
	b = append(b, ']')
	if canon, err := jcs.Transform(b); err == nil {
		b = canon
	}
	return prompt.Hash(string(b))
}

// toolHash is a tool's contract hash: the SHA-256, as 64 lower-case hex
// digits, of the RFC 8785 canonical form of the JSON array
// [description, parameters, result], where description is the tool's
// description as a JSON string and parameters and result are its
// parameter and result schemas (null when it declares no result). Key
// order and spacing in the schemas do not change it; a new description,
// a parameter or a result type does.
func toolHash(t Tool) string {
	h, err := ContractHash(t.Description, t.Parameters, t.Result)
	if err != nil {
		// The schemas were checked when the template was parsed; a
		// hand-built tool with invalid JSON hashes its bytes instead.
		return prompt.Hash(t.Description + "\n" + string(t.Parameters) + "\n" + string(t.Result))
	}
	return h
}

// ContractHash returns the contract hash of a tool with this
// description, parameter schema and result schema (nil: none): the
// SHA-256 of the RFC 8785 form of [description, parameters, result], as
// 64 lower-case hex digits. Schemas that are not JSON are an error.
func ContractHash(description string, parameters, result json.RawMessage) (string, error) {
	b := []byte{'['}
	b = schema.AppendString(b, description)
	b = append(b, ',')
	if len(parameters) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, parameters...)
	}
	b = append(b, ',')
	if len(result) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, result...)
	}
	b = append(b, ']')
	canon, err := jcs.Transform(b)
	if err != nil {
		return "", fmt.Errorf("tool contract: %w", err)
	}
	return prompt.Hash(string(canon)), nil
}

// Overrides are replacements for section bodies and tool descriptions,
// checked against a template's descriptor.
type Overrides struct {
	// Notes say which overrides were left out as stale.
	Notes []string

	sections map[string]override // by section path
	tools    map[string]override // by tool name
	params   map[string]override // by "tool.param"
	examples map[string]Example  // by "task:path#i" or "tool:name#i"
}

type override struct {
	body string
	text *Text // a section's, parsed
}

// applied returns the bodies of the overrides in m, by path or name.
func (o *Overrides) applied(m map[string]override) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v.body
	}
	return out
}

type overridesDoc struct {
	NS       string               `yaml:"ns"`
	Key      string               `yaml:"key"`
	Sections []sectionOverrideDoc `yaml:"sections,omitempty"`
	Tools    []toolOverrideDoc    `yaml:"tools,omitempty"`
	Params   []paramOverrideDoc   `yaml:"params,omitempty"`
	TaskEx   []taskExampleDoc     `yaml:"task_examples,omitempty"`
	ToolEx   []toolExampleDoc     `yaml:"tool_examples,omitempty"`
}

type taskExampleDoc struct {
	Path   string `yaml:"path"`
	Index  int    `yaml:"index"`
	Hash   string `yaml:"hash"`
	Input  string `yaml:"input"`
	Output string `yaml:"output"`
}

type toolExampleDoc struct {
	Tool   string `yaml:"tool"`
	Index  int    `yaml:"index"`
	Hash   string `yaml:"hash"`
	Input  string `yaml:"input"`
	Output string `yaml:"output"`
}

type paramOverrideDoc struct {
	Tool        string `yaml:"tool"`
	Param       string `yaml:"param"`
	Hash        string `yaml:"hash"`
	Description string `yaml:"description"`
}

type sectionOverrideDoc struct {
	Path string `yaml:"path"`
	Hash string `yaml:"hash"`
	Body nodeOf `yaml:"body"`
}

type toolOverrideDoc struct {
	Name        string `yaml:"name"`
	Hash        string `yaml:"hash"`
	Description string `yaml:"description"`
}

var overridesSchema = yamldoc.NewSchema[overridesDoc](yamldoc.Options{Doc: "an overrides file", Columns: true})

// ParseOverrides reads an overrides file (path names it in diagnostics)
// for t:
//
//	ns: review
//	key: code-review
//	sections:
//	  - path: rules
//	    hash: 3f1c...   # the section's hash in t.Descriptor()
//	    body: |
//	      New text, with $placeholders as in the template.
//	tools:
//	  - name: lookup_order
//	    hash: 9ab2...   # the tool's contract hash
//	    description: New description.
//	params:
//	  - tool: lookup_order
//	    param: order_id
//	    hash: 9ab2...   # the tool's contract hash too
//	    description: New description of the parameter.
//
// An override for another template, for a section, tool or parameter t
// does not have, or for a section that does not accept overrides, a hash
// that is not 64 lower-case hex digits, and two entries for one target
// are errors, each at its line. An override whose hash is not t's, or
// whose body names a parameter t no longer declares, is stale: it is
// left out, with a note that says why; it never fails an assembly.
func (t *Template) ParseOverrides(path string, data []byte) (*Overrides, error) {
	if t == nil {
		return nil, errNilTemplate
	}
	text, top, err := parseDoc(path, data)
	if err != nil {
		return nil, err
	}
	ov := newOverrides()
	if top == nil {
		return ov, nil
	}
	if top.Kind != yaml.MappingNode {
		return nil, diag.List{diag.ErrorfAt(path, top.Line, top.Column, "want a mapping with ns, key and sections, tools or params")}
	}
	var doc overridesDoc
	d := overridesSchema.Decode(path, top, &doc)
	errs := d.Errors()
	at := func(key, format string, args ...any) {
		line, col := d.Pos(key)
		errs = append(errs, diag.ErrorfAt(path, line, col, format, args...))
	}
	if doc.NS != t.NS || doc.Key != t.Key {
		at("ns", "overrides for %s/%s, but the template is %s/%s: set ns and key to the template's", doc.NS, doc.Key, t.NS, t.Key)
	}
	desc := t.descriptor()
	seen := map[string]int{} // target -> line of its first entry
	once := func(key, target, what string) bool {
		line, _ := d.Pos(key)
		if first, ok := seen[target]; ok {
			at(key, "%s is overridden twice, at lines %d and %d: keep one entry", what, first, line)
			return false
		}
		seen[target] = line
		return true
	}
	hashOK := func(key, h string) bool {
		if validHash(h) {
			return true
		}
		shown := h
		if shown == "" {
			shown = "(none)"
		}
		at(key, "hash %q: want the 64 lower-case hex digits of the target's hash (tessera overrides seed writes them; t.Descriptor() has them)", shown)
		return false
	}
	for i, so := range doc.Sections {
		sat := fmt.Sprintf("sections[%d]", i)
		if d.Failed(sat) {
			continue
		}
		s := t.Section(so.Path)
		switch {
		case s == nil:
			at(sat+".path", "template %s/%s has no section %q: the overridable sections are %s", t.NS, t.Key, so.Path, keyList(desc.Sections))
			continue
		case !s.Overridable:
			at(sat+".path", "section %q does not accept overrides (overridable: false in %s)", so.Path, t.path)
			continue
		case s.Body == nil:
			at(sat+".path", "section %q has no template to override", so.Path)
			continue
		case so.Body.n == nil:
			at(sat, "override of section %q has no body: write body: with its new text", so.Path)
			continue
		}
		if !once(sat+".path", "section "+so.Path, fmt.Sprintf("section %q", so.Path)) || !hashOK(sat+".hash", so.Hash) {
			continue
		}
		n := so.Body.n
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
			at(sat+".body", "override of section %q: body: want text", so.Path)
			continue
		}
		txt, perrs := parseText(n.Value)
		for _, e := range perrs {
			line, col := yamldoc.ValuePos(text, n, e.off)
			errs = append(errs, diag.ErrorfAt(path, line, col, "%s", e.msg))
		}
		if len(perrs) > 0 {
			continue
		}
		if now := desc.Sections[so.Path]; so.Hash != now {
			ov.Notes = append(ov.Notes, fmt.Sprintf("note: %s: the override of section %q is stale and left out: it was written for hash %s, and the section's template now hashes to %s; review it against the template and update its hash", path, so.Path, short(so.Hash), now))
			continue
		}
		if missing := undeclared(t, txt); missing != "" {
			line, _ := d.Pos(sat)
			ov.Notes = append(ov.Notes, fmt.Sprintf("note: %s: the override of section %q is stale and left out (line %d): its body names $%s, which the template no longer declares; review it against the template", path, so.Path, line, missing))
			continue
		}
		ov.sections[so.Path] = override{body: n.Value, text: txt}
	}
	for i, to := range doc.Tools {
		tat := fmt.Sprintf("tools[%d]", i)
		if d.Failed(tat) {
			continue
		}
		now, ok := desc.Tools[to.Name]
		if !ok {
			at(tat+".name", "template %s/%s has no tool %q: its tools are %s", t.NS, t.Key, to.Name, keyList(desc.Tools))
			continue
		}
		if !once(tat+".name", "tool "+to.Name, fmt.Sprintf("the description of tool %q", to.Name)) || !hashOK(tat+".hash", to.Hash) {
			continue
		}
		if to.Hash != now {
			ov.Notes = append(ov.Notes, fmt.Sprintf("note: %s: the override of tool %q is stale and left out: it was written for hash %s, and the tool's contract now hashes to %s; review it against the template and update its hash", path, to.Name, short(to.Hash), now))
			continue
		}
		ov.tools[to.Name] = override{body: to.Description}
	}
	for i, po := range doc.Params {
		pat := fmt.Sprintf("params[%d]", i)
		if d.Failed(pat) {
			continue
		}
		now, ok := desc.Tools[po.Tool]
		if !ok {
			at(pat+".tool", "template %s/%s has no tool %q: its tools are %s", t.NS, t.Key, po.Tool, keyList(desc.Tools))
			continue
		}
		tl := t.tool(po.Tool)
		if names := paramNames(tl.Parameters); !slices.Contains(names, po.Param) {
			at(pat+".param", "tool %q has no parameter %q: its parameters are %s", po.Tool, po.Param, strings.Join(names, ", "))
			continue
		}
		target := po.Tool + "." + po.Param
		if !once(pat+".param", "param "+target, fmt.Sprintf("the description of %s", target)) || !hashOK(pat+".hash", po.Hash) {
			continue
		}
		if po.Hash != now {
			ov.Notes = append(ov.Notes, fmt.Sprintf("note: %s: the override of %s is stale and left out: it was written for hash %s, and the tool's contract now hashes to %s; review it against the template and update its hash", path, target, short(po.Hash), now))
			continue
		}
		ov.params[target] = override{body: po.Description}
	}
	example := func(xat, kind, target string, index int, hash string, now map[string]string, e Example) {
		id := fmt.Sprintf("%s#%d", target, index)
		h, ok := now[id]
		switch {
		case !ok:
			at(xat+".index", "%s %q has no example %d: its examples are %s", kind, target, index, keyList(now))
			return
		case strings.TrimSpace(e.Input) == "" || strings.TrimSpace(e.Output) == "":
			at(xat, "override of %s example %s needs an input and an output", kind, id)
			return
		}
		if !once(xat+".index", kind+" example "+id, fmt.Sprintf("%s example %s", kind, id)) || !hashOK(xat+".hash", hash) {
			return
		}
		if hash != h {
			ov.Notes = append(ov.Notes, fmt.Sprintf("note: %s: the override of %s example %s is stale and left out: it was written for hash %s, and the example now hashes to %s; review it against the template and update its hash", path, kind, id, short(hash), h))
			return
		}
		ov.examples[kind+":"+id] = e
	}
	for i, x := range doc.TaskEx {
		if xat := fmt.Sprintf("task_examples[%d]", i); !d.Failed(xat) {
			example(xat, "task", x.Path, x.Index, x.Hash, desc.TaskExamples, Example{Input: x.Input, Output: x.Output})
		}
	}
	for i, x := range doc.ToolEx {
		if xat := fmt.Sprintf("tool_examples[%d]", i); !d.Failed(xat) {
			example(xat, "tool", x.Tool, x.Index, x.Hash, desc.ToolExamples, Example{Input: x.Input, Output: x.Output})
		}
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return ov, nil
}

func newOverrides() *Overrides {
	return &Overrides{sections: map[string]override{}, tools: map[string]override{}, params: map[string]override{}, examples: map[string]Example{}}
}

// validHash reports whether h is 64 lower-case hex digits.
func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// undeclared returns the first parameter txt names that t does not
// declare, or "".
func undeclared(t *Template, txt *Text) string {
	for _, name := range txt.Params() {
		if t.Param(name) == nil {
			return name
		}
	}
	return ""
}

// tool returns the tool named name, or nil.
func (t *Template) tool(name string) *Tool {
	var found *Tool
	t.Walk(func(_ string, s *SectionSpec) {
		for i := range s.Tools {
			if found == nil && s.Tools[i].Name == name {
				found = &s.Tools[i]
			}
		}
	})
	return found
}

// paramNames returns the names of a parameter schema's properties, in
// the order written.
func paramNames(schema json.RawMessage) []string {
	var names []string
	_ = walkProperties(schema, func(name string, _, _ int) { names = append(names, name) })
	return names
}

func short(h string) string {
	if h == "" {
		return "(none)"
	}
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

func keyList(m map[string]string) string {
	if len(m) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

// OverridesJSONSchema returns the JSON Schema of an overrides file,
// generated from the decoder that reads it (see yamldoc.Schema.JSONSchema).
func OverridesJSONSchema() []byte {
	return overridesSchema.JSONSchema("https://tessera.dev/schemas/typed-overrides.schema.json", "a typed template's overrides")
}
