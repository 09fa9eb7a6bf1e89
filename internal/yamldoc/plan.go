package yamldoc

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// kind is how a plan decodes a value.
type kind uint8

const (
	kindString kind = iota + 1
	kindBool
	kindInt
	kindFloat
	kindRaw    // json.RawMessage: a mapping converted to JSON
	kindHook   // a type implementing Unmarshaler
	kindPtr    // a pointer: the target is decoded, allocated when nil
	kindSlice  // a list
	kindStruct // a mapping whose keys are the fields' yaml names
)

// plan is how to decode one Go type where it is used: its kind, what a
// value must be (for "want X, found Y"), an int's range, and its items
// or fields. Plans are built once per type, shared, and never changed;
// a Schema's rules make copies along the paths they name.
type plan struct {
	kind     kind
	typ      reflect.Type
	want     string
	ranged   bool
	min, max int64
	elem     *plan          // kindPtr: the target; kindSlice: the items
	fields   []field        // kindStruct, in declaration order
	keys     []string       // kindStruct: the fields' keys, in order
	byKey    map[string]int // kindStruct with many fields: key -> index in fields
}

// field is one decoded field of a struct.
type field struct {
	key   string
	index int // the struct field's index, for reflect.Value.Field
	plan  *plan
}

// manyFields is the number of fields from which a struct's keys are
// looked up in a map rather than by a scan.
const manyFields = 12

// find returns the index in p.fields of the field named key, or -1.
func (p *plan) find(key string) int {
	if p.byKey != nil {
		if i, ok := p.byKey[key]; ok {
			return i
		}
		return -1
	}
	for i := range p.fields {
		if p.fields[i].key == key {
			return i
		}
	}
	return -1
}

var (
	rawType         = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[Unmarshaler]()
)

// plans memoises the plan of each type decoded (reflect.Type -> *plan).
// A plan depends only on its type, so the cache is never invalidated.
var plans sync.Map

// planOf returns the plan of t, building it on first use. It panics when
// t holds a kind the decoder does not support (a map, an interface...):
// that is a mistake in the program, not in the document.
func planOf(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	building := map[reflect.Type]*plan{}
	p := build(t, building)
	for bt, bp := range building {
		plans.LoadOrStore(bt, bp)
	}
	return p
}

// build makes the plan of t; building holds the plans under way, so that
// a recursive type refers to its own plan.
func build(t reflect.Type, building map[reflect.Type]*plan) *plan {
	if p, ok := building[t]; ok {
		return p
	}
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	p := &plan{typ: t}
	building[t] = p
	switch {
	case reflect.PointerTo(t).Implements(unmarshalerType):
		p.kind, p.want = kindHook, "a value"
	case t == rawType:
		p.kind, p.want = kindRaw, "a JSON object"
	default:
		switch t.Kind() {
		case reflect.String:
			p.kind, p.want = kindString, "text"
		case reflect.Bool:
			p.kind, p.want = kindBool, "true or false"
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			p.kind, p.want = kindInt, "a whole number"
		case reflect.Float32, reflect.Float64:
			p.kind, p.want = kindFloat, "a number"
		case reflect.Pointer:
			p.kind, p.elem = kindPtr, build(t.Elem(), building)
			p.want = p.elem.want
		case reflect.Slice:
			p.kind, p.elem = kindSlice, build(t.Elem(), building)
			p.want = "a list"
			if p.elem.kind == kindString {
				p.want = "a list of text"
			}
		case reflect.Struct:
			p.kind, p.want = kindStruct, "a mapping of keys to values"
			buildFields(p, building)
		default:
			panic(fmt.Sprintf("yamldoc: cannot decode into %s (a %s)", t, t.Kind()))
		}
	}
	return p
}

// buildFields lists the exported fields of the struct of p. A field's key
// is the name of its yaml tag, or its Go name in lower case; a field
// tagged "-" is skipped. Tag options (omitempty, flow) do not change
// decoding.
func buildFields(p *plan, building map[reflect.Type]*plan) {
	t := p.typ
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if key == "-" {
			continue
		}
		if key == "" {
			key = strings.ToLower(f.Name)
		}
		if slices.Contains(p.keys, key) {
			panic(fmt.Sprintf("yamldoc: %s has two fields with the key %q", t, key))
		}
		p.fields = append(p.fields, field{key: key, index: i, plan: build(f.Type, building)})
		p.keys = append(p.keys, key)
	}
	if len(p.fields) >= manyFields {
		p.byKey = make(map[string]int, len(p.fields))
		for i, f := range p.fields {
			p.byKey[f.key] = i
		}
	}
}

// ruleTree is Options.Rules by path segment: a key, or "[]" for the items
// of a list.
type ruleTree struct {
	rule *Rule
	sub  map[string]*ruleTree
}

// compileRules turns the paths of rules into a tree.
func compileRules(rules map[string]Rule) *ruleTree {
	root := &ruleTree{}
	for path, r := range rules {
		t := root
		for _, seg := range segments(path) {
			if t.sub == nil {
				t.sub = map[string]*ruleTree{}
			}
			next, ok := t.sub[seg]
			if !ok {
				next = &ruleTree{}
				t.sub[seg] = next
			}
			t = next
		}
		t.rule = &r
	}
	return root
}

// segments splits a rule path such as "task[].outputFormat.type" into
// "task", "[]", "outputFormat", "type". It panics on a malformed path.
func segments(path string) []string {
	if path == "" {
		return nil
	}
	var segs []string
	for i, part := range strings.Split(path, ".") {
		name, rest := part, ""
		if j := strings.IndexByte(part, '['); j >= 0 {
			name, rest = part[:j], part[j:]
		}
		if name == "" && (i > 0 || rest == "") || rest != strings.Repeat("[]", len(rest)/2) {
			panic(fmt.Sprintf("yamldoc: rule path %q is not of the form key.key[].key", path))
		}
		if name != "" {
			segs = append(segs, name)
		}
		for range len(rest) / 2 {
			segs = append(segs, "[]")
		}
	}
	return segs
}

// apply returns p with the rules of t applied, copying every plan on the
// way to a rule and sharing the rest. It panics when a rule names no
// field, or sets a range on a value that is not a whole number.
func apply(p *plan, t *ruleTree, at string) *plan {
	q := *p
	if p.kind == kindPtr {
		// A rule for a pointer is a rule for what it points to.
		q.elem = apply(p.elem, t, at)
		q.want = q.elem.want
		return &q
	}
	if r := t.rule; r != nil {
		if r.want != "" {
			q.want = r.want
		}
		if r.ranged {
			if p.kind != kindInt {
				panic(fmt.Sprintf("yamldoc: rule %q sets a range on %s, which is not a whole number", at, p.typ))
			}
			q.ranged, q.min, q.max = true, r.min, r.max
		}
	}
	for seg, sub := range t.sub {
		switch {
		case p.kind == kindSlice && seg == "[]":
			q.elem = apply(p.elem, sub, at+"[]")
		case p.kind == kindStruct && seg != "[]":
			i := p.find(seg)
			if i < 0 {
				panic(fmt.Sprintf("yamldoc: rule %q names no field of %s (its keys are %s)", join(at, seg), p.typ, strings.Join(p.keys, ", ")))
			}
			if q.fields == nil || &q.fields[0] == &p.fields[0] {
				q.fields = slices.Clone(p.fields)
			}
			q.fields[i].plan = apply(p.fields[i].plan, sub, join(at, seg))
		default:
			panic(fmt.Sprintf("yamldoc: rule path %q does not fit %s", join(at, seg), p.typ))
		}
	}
	return &q
}
