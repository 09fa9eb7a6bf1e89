package typed

import (
	"encoding/json"
	"strings"
)

// ParamsJSONSchema returns the JSON Schema (draft 2020-12) of a
// parameters file for t, the mapping ParseValues reads: one member per
// declared parameter, of the JSON types ParseValues takes for the
// parameter's type (a string parameter takes a number as its text, a
// list takes scalars), and no other member. A parameter without a
// default must be bound when the template renders, by this file or
// another source of values (--param), so the schema does not require it
// but says so in its description. It returns nil for a nil template. An editor given it checks a
// parameters file as it is written; what ParseValues says on a bad file
// names the same problems at their lines.
func (t *Template) ParamsJSONSchema() []byte {
	if t == nil {
		return nil
	}
	props := map[string]any{}
	for _, p := range t.Params {
		var s map[string]any
		switch p.Type {
		case String:
			s = map[string]any{"type": []string{"string", "number"}}
		case Integer:
			s = map[string]any{"type": "integer"}
		case Number:
			s = map[string]any{"type": "number"}
		case Boolean:
			s = map[string]any{"type": "boolean"}
		case List:
			s = map[string]any{"type": "array", "items": map[string]any{"type": []string{"string", "number", "boolean"}}}
		default:
			s = map[string]any{}
		}
		desc := p.Description
		if p.Required() {
			desc = strings.TrimSpace(desc + " (no default: bind it when rendering)")
		}
		if desc != "" {
			s["description"] = desc
		}
		if p.Default != nil && len(p.Default.JSON) > 0 {
			s["default"] = json.RawMessage(p.Default.JSON)
		}
		props[p.Name] = s
	}
	title := "parameters of the typed template " + t.NS + "/" + t.Key
	if t.Name != "" {
		title += " (" + t.Name + ")"
	}
	s := map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"title":                title,
		"type":                 []string{"object", "null"}, // an empty file binds nothing
		"properties":           props,
		"additionalProperties": false,
	}
	out, _ := json.MarshalIndent(s, "", "  ") // maps, slices, strings and raw JSON values always marshal
	return append(out, '\n')
}
