package output

import (
	"regexp"
	"strings"
)

// orderNode is what a schema says about the shape of a value, as far as
// key order and extra keys go: an object's properties in the order the
// schema writes them, whether other keys are extra, and the same for the
// values below.
type orderNode struct {
	props    []prop
	closed   bool // keys not in props nor matching patterns are extra
	patterns []*regexp.Regexp
	patSub   []*orderNode
	addl     *orderNode // additionalProperties, when a schema
	items    *orderNode
	prefix   []*orderNode
}

type prop struct {
	name string
	sub  *orderNode
}

// prop returns the shape of the member key (nil when unknown); o may be
// nil.
func (o *orderNode) prop(key string) *orderNode {
	if o == nil {
		return nil
	}
	for i := range o.props {
		if o.props[i].name == key {
			return o.props[i].sub
		}
	}
	for i, re := range o.patterns {
		if re.MatchString(key) {
			return o.patSub[i]
		}
	}
	return o.addl
}

// declares reports whether key is a property of o or matches one of its
// patterns.
func (o *orderNode) declares(key string) bool {
	for i := range o.props {
		if o.props[i].name == key {
			return true
		}
	}
	for _, re := range o.patterns {
		if re.MatchString(key) {
			return true
		}
	}
	return false
}

// item returns the shape of element i of an array; o may be nil.
func (o *orderNode) item(i int) *orderNode {
	if o == nil {
		return nil
	}
	if i < len(o.prefix) {
		return o.prefix[i]
	}
	return o.items
}

// shapeBuilder builds orderNodes from a schema document, resolving local
// references; each schema node is built once, so recursive schemas end.
type shapeBuilder struct {
	root *value
	memo map[*value]*orderNode
}

// shapeOf builds the shape of the schema document doc (nil when doc is
// not a JSON object).
func shapeOf(doc *value) *orderNode {
	if doc == nil || doc.kind != '{' {
		return nil
	}
	b := &shapeBuilder{root: doc, memo: map[*value]*orderNode{}}
	return b.build(doc, 0)
}

func (b *shapeBuilder) build(s *value, depth int) *orderNode {
	if s == nil || s.kind != '{' || depth > maxDepth {
		return nil
	}
	if o, ok := b.memo[s]; ok {
		return o
	}
	o := &orderNode{}
	b.memo[s] = o
	b.fill(o, s, depth)
	return o
}

// fill adds what schema s says to o; allOf and $ref add theirs.
func (b *shapeBuilder) fill(o *orderNode, s *value, depth int) {
	if depth > maxDepth {
		return
	}
	if ref := s.get("$ref"); ref != nil && ref.kind == '"' {
		if t := b.resolve(ref.text); t != nil && t != s {
			b.fill(o, t, depth+1)
		}
	}
	if all := s.get("allOf"); all != nil && all.kind == '[' {
		for _, e := range all.elems {
			if e.kind == '{' {
				b.fill(o, e, depth+1)
			}
		}
	}
	if p := s.get("properties"); p != nil && p.kind == '{' {
		for _, m := range p.members {
			if o.declares(m.key) {
				continue
			}
			o.props = append(o.props, prop{name: m.key, sub: b.build(m.val, depth+1)})
		}
		o.closed = true
	}
	if p := s.get("patternProperties"); p != nil && p.kind == '{' {
		for _, m := range p.members {
			re, err := regexp.Compile(m.key)
			if err != nil {
				continue
			}
			o.patterns = append(o.patterns, re)
			o.patSub = append(o.patSub, b.build(m.val, depth+1))
		}
	}
	if a := s.get("additionalProperties"); a != nil {
		switch a.kind {
		case 'f':
			o.closed = true
		case 't':
			o.closed = false
		case '{':
			o.closed = false
			o.addl = b.build(a, depth+1)
		}
	}
	if s.get("anyOf") != nil || s.get("oneOf") != nil {
		// Which branch a value takes is the validator's to say: extra
		// keys are not judged here.
		o.closed = false
	}
	if it := s.get("items"); it != nil && it.kind == '{' {
		o.items = b.build(it, depth+1)
	}
	if pi := s.get("prefixItems"); pi != nil && pi.kind == '[' {
		for _, e := range pi.elems {
			o.prefix = append(o.prefix, b.build(e, depth+1))
		}
	}
}

// resolve returns the schema a local reference ("#", "#/$defs/name")
// names, or nil.
func (b *shapeBuilder) resolve(ref string) *value {
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	v := b.root
	if ref == "#" {
		return v
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if v == nil || v.kind != '{' {
			return nil
		}
		v = v.get(tok)
	}
	return v
}
