package yamldoc

import (
	"encoding/json"
	"reflect"
)

// JSONSchema returns the JSON Schema (draft 2020-12) of the documents s
// decodes, made from the plan its decoder follows, so that it cannot
// drift from it: every key (and no other: a mapping takes no key it does
// not know), the type of each value, the range of a rule's whole numbers
// and the words of its "want". A value of a type that decodes itself (an
// Unmarshaler) is described by its want alone and may be of any JSON
// type: the type checks it when the document is decoded. A struct inside
// itself is an object at its second level. id is the schema's $id and
// title its title; the output is indented JSON, keys in order. extra
// adds top-level properties the plan does not hold (keys a document's
// reader takes from elsewhere), each described by its schema.
func (s *Schema[T]) JSONSchema(id, title string, extra ...map[string]map[string]any) []byte {
	out := planSchema(s.plan, map[reflect.Type]bool{})
	if props, ok := out["properties"].(map[string]any); ok {
		for _, e := range extra {
			for k, v := range e {
				props[k] = v
			}
		}
	}
	out["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	out["$id"] = id
	out["title"] = title
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		panic(err) // maps of strings, numbers and bools always marshal
	}
	return append(b, '\n')
}

// planSchema returns the schema of p; open holds the structs being
// described, so that a recursive one stops.
func planSchema(p *plan, open map[reflect.Type]bool) map[string]any {
	s := map[string]any{}
	switch p.kind {
	case kindString:
		s["type"] = "string"
	case kindBool:
		s["type"] = "boolean"
	case kindInt:
		s["type"] = "integer"
		if p.ranged {
			s["minimum"], s["maximum"] = p.min, p.max
		}
	case kindFloat:
		s["type"] = "number"
	case kindRaw:
		s["type"] = "object"
	case kindHook:
		// Any JSON value: the type decodes and checks it itself.
	case kindPtr:
		return planSchema(p.elem, open)
	case kindSlice:
		s["type"] = "array"
		s["items"] = planSchema(p.elem, open)
	case kindStruct:
		s["type"] = "object"
		if open[p.typ] {
			break
		}
		open[p.typ] = true
		props := make(map[string]any, len(p.fields))
		for _, f := range p.fields {
			props[f.key] = planSchema(f.plan, open)
		}
		delete(open, p.typ)
		s["properties"] = props
		s["additionalProperties"] = false
	}
	if p.want != "" && p.kind != kindPtr {
		s["description"] = "want " + p.want
	}
	return s
}

// ToJSON reads the YAML or JSON document data (from path, for messages)
// and returns it as JSON, for checking it against a JSON Schema.
func ToJSON(path string, data []byte) (json.RawMessage, error) {
	top, err := ParseText(path, string(data))
	if err != nil {
		return nil, err
	}
	if top == nil {
		return json.RawMessage("null"), nil
	}
	d := anySchema.Decode(path, nil, &struct{}{})
	raw, ok := d.JSON(top, "")
	if !ok {
		return nil, d.Errors()
	}
	return raw, nil
}

// anySchema gives ToJSON a decoder.
var anySchema = NewSchema[struct{}](Options{})
