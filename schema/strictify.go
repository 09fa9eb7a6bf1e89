package schema

import (
	"fmt"
	"slices"
)

// Strictify reads schema with Parse, fixes it as Value.Strictify does and
// returns the result as Value.Append writes it (compact, strings escaped
// as AppendString does), with the violations that remain. The error is
// non-nil only when schema is not valid JSON.
func Strictify(schema []byte) ([]byte, []Violation, error) {
	v, err := Parse(schema)
	if err != nil {
		return nil, nil, fmt.Errorf("strictify: %w", err)
	}
	fixed, left := v.Strictify()
	return fixed.Append(make([]byte, 0, len(schema)+64)), left, nil
}

// Strictify returns the schema v changed so that it passes strict mode
// where it can be made to without guessing, and the violations that
// remain. It fixes two things, keeping every member's order:
//
//   - an object schema with "properties" but no "additionalProperties"
//     gets "additionalProperties": false as its last member;
//   - a property missing from "required" is appended to it (in property
//     order; "required" is created after "properties" if absent) and its
//     schema is made to accept null: "type": "T" becomes ["T", "null"],
//     a type list gains "null", an "enum" gains null, an "anyOf" gains
//     {"type": "null"}, and any other schema (a "$ref", a "const") is
//     wrapped as {"anyOf": [schema, {"type": "null"}]}.
//
// What it leaves (unsupported keywords, "additionalProperties" set to
// anything but false, objects without properties, the size limits) comes
// back as violations of the result, as its CheckStrict reports them.
//
// v is not changed. The result is a new Value that shares with v every
// part it leaves as it was, and is v itself when nothing needs fixing.
func (v Value) Strictify() (Value, []Violation) {
	fixed, _ := strictified(v)
	return fixed, fixed.CheckStrict()
}

// strictified returns v with Strictify's fixes made to it and to every
// schema inside it, and whether it made any. It changes nothing it is
// given: an object it fixes gets new Members, as does every object on
// the way to it, and everything else is shared with v.
func strictified(v Value) (Value, bool) {
	if v.Kind != Object {
		return v, false
	}
	isObj := isObjectSchema(&v)
	members, owned := v.Members, false
	// own gives members a backing array of its own before the first change,
	// with room for the two members a fix may add.
	own := func() {
		if !owned {
			members = append(make([]Member, 0, len(members)+2), members...)
			owned = true
		}
	}
	done := func() (Value, bool) {
		v.Members = members
		return v, owned
	}
	freshProps := -1 // the index of a "properties" whose Members are a new copy
	for i := range v.Members {
		m := &v.Members[i]
		if _, bad := unsupported[m.Key]; bad {
			continue
		}
		var sub Value
		var changed bool
		switch m.Key {
		case "properties", "$defs", "definitions":
			sub, changed = strictifiedMembers(m.Value)
		case "items":
			sub, changed = strictified(m.Value)
		case "anyOf", "oneOf", "prefixItems":
			sub, changed = strictifiedItems(m.Value)
		}
		if changed {
			own()
			members[i].Value = sub
			if m.Key == "properties" {
				freshProps = i
			}
		}
	}
	if !isObj {
		return done()
	}
	pi := memberIndex(members, "properties")
	if pi < 0 || members[pi].Value.Kind != Object {
		return done()
	}
	ri := memberIndex(members, "required")
	if ri >= 0 && members[ri].Value.Kind != Array {
		return done() // malformed; CheckStrict reports it
	}
	var req *Value
	if ri >= 0 {
		req = &members[ri].Value
	}
	props := members[pi].Value.Members
	listed := requiredSet(req)
	missing := 0
	for j := range props {
		if !listed.has(props[j].Key) {
			missing++
		}
	}
	if missing > 0 {
		fixedProps := props
		if pi != freshProps {
			fixedProps = slices.Clone(props)
		}
		var names []Value
		if req != nil {
			names = make([]Value, len(req.Items), len(req.Items)+missing)
			copy(names, req.Items)
		} else {
			names = make([]Value, 0, missing)
		}
		for j := range fixedProps {
			if !listed.has(fixedProps[j].Key) {
				fixedProps[j].Value = nullable(fixedProps[j].Value)
				names = append(names, Value{Kind: String, Str: fixedProps[j].Key})
			}
		}
		own()
		members[pi].Value.Members = fixedProps
		if ri >= 0 {
			members[ri].Value.Items = names
		} else {
			members = slices.Insert(members, pi+1, Member{Key: "required", Value: Value{Kind: Array, Items: names}})
		}
	}
	if memberIndex(members, "additionalProperties") < 0 {
		own()
		members = append(members, Member{Key: "additionalProperties", Value: Value{Kind: Bool}})
	}
	return done()
}

// strictifiedMembers applies strictified to the value of each member of
// v, an object of schemas, sharing what does not change.
func strictifiedMembers(v Value) (Value, bool) {
	if v.Kind != Object {
		return v, false
	}
	var out []Member
	for i := range v.Members {
		if sub, changed := strictified(v.Members[i].Value); changed {
			if out == nil {
				out = slices.Clone(v.Members)
			}
			out[i].Value = sub
		}
	}
	if out == nil {
		return v, false
	}
	v.Members = out
	return v, true
}

// strictifiedItems applies strictified to each item of v, an array of
// schemas, sharing what does not change.
func strictifiedItems(v Value) (Value, bool) {
	if v.Kind != Array {
		return v, false
	}
	var out []Value
	for i := range v.Items {
		if sub, changed := strictified(v.Items[i]); changed {
			if out == nil {
				out = slices.Clone(v.Items)
			}
			out[i] = sub
		}
	}
	if out == nil {
		return v, false
	}
	v.Items = out
	return v, true
}

// memberIndex returns the index of the first member named key, or -1.
func memberIndex(members []Member, key string) int {
	for i := range members {
		if members[i].Key == key {
			return i
		}
	}
	return -1
}

// nullable returns the schema v changed so that it also accepts null,
// without changing v.
func nullable(v Value) Value {
	if v.Kind != Object || acceptsNull(&v) {
		return v
	}
	ms := v.Members
	ti, ei := memberIndex(ms, "type"), memberIndex(ms, "enum")
	switch {
	case memberIndex(ms, "const") >= 0:
		// const allows one value; only a union can add null.
	case ti >= 0 && ms[ti].Value.Kind == String:
		ms = slices.Clone(ms)
		ms[ti].Value = Value{Kind: Array, Items: []Value{ms[ti].Value, nullName}}
		addNullTo(ms, ei)
		v.Members = ms
		return v
	case ti >= 0 && ms[ti].Value.Kind == Array:
		ms = slices.Clone(ms)
		if t := &ms[ti].Value; !slices.ContainsFunc(t.Items, isNullName) {
			t.Items = appendNew(t.Items, nullName)
		}
		addNullTo(ms, ei)
		v.Members = ms
		return v
	case ti < 0 && ei >= 0 && ms[ei].Value.Kind == Array && memberIndex(ms, "anyOf") < 0 && memberIndex(ms, "$ref") < 0:
		ms = slices.Clone(ms)
		addNullTo(ms, ei)
		v.Members = ms
		return v
	case ti < 0 && ei < 0 && memberIndex(ms, "$ref") < 0:
		if ai := memberIndex(ms, "anyOf"); ai >= 0 && ms[ai].Value.Kind == Array {
			ms = slices.Clone(ms)
			ms[ai].Value.Items = appendNew(ms[ai].Value.Items, nullType())
			v.Members = ms
			return v
		}
	}
	return Value{Kind: Object, Members: []Member{{Key: "anyOf", Value: Value{Kind: Array, Items: []Value{v, nullType()}}}}}
}

// nullName is the type name "null".
var nullName = Value{Kind: String, Str: "null"}

// nullType returns a new schema {"type": "null"}.
func nullType() Value {
	return Value{Kind: Object, Members: []Member{{Key: "type", Value: nullName}}}
}

func isNullName(v Value) bool { return v.Kind == String && v.Str == "null" }

// appendNew returns items with x after them, in a new array: the one
// items is in may be shared.
func appendNew(items []Value, x Value) []Value {
	return append(items[:len(items):len(items)], x)
}

// addNullTo adds null to the "enum" at members[i], a copy of its own,
// when it is an array without null; i < 0 means there is no enum.
func addNullTo(members []Member, i int) {
	if i < 0 {
		return
	}
	if e := &members[i].Value; e.Kind == Array && !slices.ContainsFunc(e.Items, func(v Value) bool { return v.Kind == Null }) {
		e.Items = appendNew(e.Items, Value{})
	}
}

// acceptsNull reports whether the schema v already allows null: its type
// is or includes "null" (and any enum or const allows it), or one of its
// anyOf members does.
func acceptsNull(v *Value) bool {
	if c := v.Get("const"); c != nil {
		return c.Kind == Null
	}
	if e := v.Get("enum"); e != nil && e.Kind == Array && !slices.ContainsFunc(e.Items, func(v Value) bool { return v.Kind == Null }) {
		return false
	}
	if t := v.Get("type"); t != nil {
		if t.Kind == String {
			return t.Str == "null"
		}
		return t.Kind == Array && slices.ContainsFunc(t.Items, isNullName)
	}
	if a := v.Get("anyOf"); a != nil && a.Kind == Array {
		for i := range a.Items {
			if a.Items[i].Kind == Object && acceptsNull(&a.Items[i]) {
				return true
			}
		}
		return false
	}
	if v.Get("$ref") != nil {
		return false
	}
	// enum with null and no type
	return v.Get("enum") != nil
}
