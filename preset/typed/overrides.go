package typed

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
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
}

// Descriptor returns t's descriptor.
func (t *Template) Descriptor() Descriptor {
	if t == nil {
		return Descriptor{}
	}
	d := *t.descriptor()
	d.Sections, d.Tools = maps.Clone(d.Sections), maps.Clone(d.Tools)
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
		for _, tl := range s.Tools {
			d.Tools[tl.Name] = toolHash(tl)
		}
	})
	return d
}

func toolHash(t Tool) string { return prompt.Hash(t.Name + "\n" + string(t.Parameters)) }

// Overrides are replacements for section bodies and tool descriptions,
// checked against a template's descriptor.
type Overrides struct {
	// Notes say which overrides were left out as stale.
	Notes []string

	sections map[string]override // by section path
	tools    map[string]override // by tool name
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
	Sections []sectionOverrideDoc `yaml:"sections"`
	Tools    []toolOverrideDoc    `yaml:"tools"`
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
//	    hash: 9ab2...
//	    description: New description.
//
// An override for another template, for a section or tool t does not
// have, or for a section that does not accept overrides, and a body whose
// placeholders t does not declare, are errors. An override whose hash is
// not t's is stale: it is left out, with a note that gives the hash now.
func (t *Template) ParseOverrides(path string, data []byte) (*Overrides, error) {
	if t == nil {
		return nil, errNilTemplate
	}
	text, top, err := parseDoc(path, data)
	if err != nil {
		return nil, err
	}
	ov := &Overrides{sections: map[string]override{}, tools: map[string]override{}}
	if top == nil {
		return ov, nil
	}
	if top.Kind != yaml.MappingNode {
		return nil, diag.List{diag.ErrorfAt(path, top.Line, top.Column, "want a mapping with ns, key and sections or tools")}
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
	b := builder{path: path, text: text, d: d}
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
		txt := b.parseText(t, sat+".body", so.Body.n)
		if now := desc.Sections[so.Path]; so.Hash != now {
			ov.Notes = append(ov.Notes, fmt.Sprintf("note: %s: the override of section %q is stale and left out: it was written for hash %s, and the section's template now hashes to %s; review it against the template and update its hash", path, so.Path, short(so.Hash), now))
			continue
		}
		if txt != nil {
			ov.sections[so.Path] = override{body: so.Body.n.Value, text: txt}
		}
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
		if to.Hash != now {
			ov.Notes = append(ov.Notes, fmt.Sprintf("note: %s: the override of tool %q is stale and left out: it was written for hash %s, and the tool's contract now hashes to %s; review it against the template and update its hash", path, to.Name, short(to.Hash), now))
			continue
		}
		ov.tools[to.Name] = override{body: to.Description}
	}
	errs = append(errs, b.errs...)
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return ov, nil
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
