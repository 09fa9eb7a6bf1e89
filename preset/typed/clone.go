package typed

import (
	"slices"

	"go.yaml.in/yaml/v4"
)

// Clone returns a copy of s that shares nothing with it: its tools,
// texts and children, all the way down, are copied, so the copy can be
// changed and put into another template (design 003's Section.clone).
// A nil section clones to nil.
func (s *SectionSpec) Clone() *SectionSpec {
	if s == nil {
		return nil
	}
	c := *s
	c.Body, c.Summary = s.Body.clone(), s.Summary.clone()
	c.Tools = make([]Tool, len(s.Tools))
	for i, tl := range s.Tools {
		c.Tools[i] = Tool{Name: tl.Name, Description: tl.Description, Parameters: slices.Clone(tl.Parameters), Result: slices.Clone(tl.Result), Examples: slices.Clone(tl.Examples)}
	}
	if s.Tools == nil {
		c.Tools = nil
	}
	c.Examples = slices.Clone(s.Examples)
	c.Children = cloneSections(s.Children)
	return &c
}

func cloneSections(secs []*SectionSpec) []*SectionSpec {
	if secs == nil {
		return nil
	}
	out := make([]*SectionSpec, len(secs))
	for i, s := range secs {
		out[i] = s.Clone()
	}
	return out
}

func (t *Text) clone() *Text {
	if t == nil {
		return nil
	}
	return &Text{Source: t.Source, segs: slices.Clone(t.segs), out: slices.Clone(t.out)}
}

// Clone returns a copy of t that shares nothing with it: parameters and
// their defaults, sections (see SectionSpec.Clone), the output and its
// schema, fixtures. Its descriptor is hashed afresh from the copy when
// first used. A nil template clones to nil.
func (t *Template) Clone() *Template {
	if t == nil {
		return nil
	}
	c := &Template{NS: t.NS, Key: t.Key, Name: t.Name, path: t.path, text: t.text}
	c.Params = make([]Param, len(t.Params))
	for i, p := range t.Params {
		c.Params[i] = p
		if p.Default != nil {
			d := *p.Default
			d.JSON, d.items = slices.Clone(d.JSON), slices.Clone(d.items)
			c.Params[i].Default = &d
		}
	}
	c.Sections = cloneSections(t.Sections)
	if o := t.Output; o != nil {
		c.Output = &Output{Name: o.Name, Array: o.Array, Schema: slices.Clone(o.Schema), Extra: o.Extra}
	}
	for _, f := range t.Fixtures {
		f.Params = cloneNode(f.Params)
		f.Expand = slices.Clone(f.Expand)
		c.Fixtures = append(c.Fixtures, f)
	}
	return c
}

func cloneNode(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = cloneNode(k)
	}
	// An alias keeps pointing at its anchor's node, which may be an
	// ancestor: copying it would not end.
	return &c
}
