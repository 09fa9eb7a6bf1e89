package schema

import (
	"fmt"
	"slices"
)

// Strictify returns schema changed so that it passes strict mode where it
// can be made to without guessing, and the violations that remain. It
// fixes two things, keeping every member's order:
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
// back as violations of the result. The error is non-nil only when schema
// is not valid JSON; the output is compact.
func Strictify(schema []byte) ([]byte, []Violation, error) {
	v, err := Parse(schema)
	if err != nil {
		return nil, nil, fmt.Errorf("strictify: %w", err)
	}
	strictify(&v)
	return v.Append(make([]byte, 0, len(schema)+64)), checkValue(&v), nil
}

// strictify applies Strictify's fixes to v and every schema inside it.
func strictify(v *Value) {
	if v.Kind != Object {
		return
	}
	isObj := isObjectSchema(v)
	props := v.Get("properties")
	for i := range v.Members {
		m := &v.Members[i]
		if _, bad := unsupported[m.Key]; bad {
			continue
		}
		switch m.Key {
		case "properties":
			if m.Value.Kind == Object {
				for j := range m.Value.Members {
					strictify(&m.Value.Members[j].Value)
				}
			}
		case "items":
			strictify(&m.Value)
		case "anyOf", "oneOf", "prefixItems":
			if m.Value.Kind == Array {
				for j := range m.Value.Items {
					strictify(&m.Value.Items[j])
				}
			}
		case "$defs", "definitions":
			if m.Value.Kind == Object {
				for j := range m.Value.Members {
					strictify(&m.Value.Members[j].Value)
				}
			}
		}
	}
	if !isObj || props == nil || props.Kind != Object {
		return
	}
	req := v.Get("required")
	if req != nil && req.Kind != Array {
		return // malformed; CheckStrict reports it
	}
	var missing []int
	for j := range props.Members {
		if !requires(req, props.Members[j].Key) {
			missing = append(missing, j)
		}
	}
	for _, j := range missing {
		makeNullable(&props.Members[j].Value)
	}
	if len(missing) > 0 {
		if req == nil {
			at := slices.IndexFunc(v.Members, func(m Member) bool { return m.Key == "properties" })
			v.Members = slices.Insert(v.Members, at+1, Member{Key: "required", Value: Value{Kind: Array}})
			req = &v.Members[at+1].Value
			// props may have moved with the insert.
			props = v.Get("properties")
		}
		for _, j := range missing {
			req.Items = append(req.Items, Value{Kind: String, Str: props.Members[j].Key})
		}
	}
	if v.Get("additionalProperties") == nil {
		v.Members = append(v.Members, Member{Key: "additionalProperties", Value: Value{Kind: Bool}})
	}
}

var nullType = Value{Kind: Object, Members: []Member{{Key: "type", Value: Value{Kind: String, Str: "null"}}}}

// makeNullable changes the schema v so that it also accepts null.
func makeNullable(v *Value) {
	if v.Kind != Object {
		return
	}
	if acceptsNull(v) {
		return
	}
	t, enum := v.Get("type"), v.Get("enum")
	switch {
	case v.Get("const") != nil:
		// const allows one value; only a union can add null.
	case t != nil && t.Kind == String:
		*t = Value{Kind: Array, Items: []Value{*t, {Kind: String, Str: "null"}}}
		addNullTo(enum)
		return
	case t != nil && t.Kind == Array:
		if !slices.ContainsFunc(t.Items, isNullName) {
			t.Items = append(t.Items, Value{Kind: String, Str: "null"})
		}
		addNullTo(enum)
		return
	case t == nil && enum != nil && enum.Kind == Array && v.Get("anyOf") == nil && v.Get("$ref") == nil:
		addNullTo(enum)
		return
	case t == nil && enum == nil && v.Get("$ref") == nil:
		if union := v.Get("anyOf"); union != nil && union.Kind == Array {
			union.Items = append(union.Items, nullType)
			return
		}
	}
	*v = Value{Kind: Object, Members: []Member{{Key: "anyOf", Value: Value{Kind: Array, Items: []Value{*v, nullType}}}}}
}

func isNullName(v Value) bool { return v.Kind == String && v.Str == "null" }

func addNullTo(enum *Value) {
	if enum != nil && enum.Kind == Array && !slices.ContainsFunc(enum.Items, func(v Value) bool { return v.Kind == Null }) {
		enum.Items = append(enum.Items, Value{})
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
