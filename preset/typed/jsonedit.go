package typed

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/tessera-dev/tessera/schema"
)

// members calls f with each key of the JSON object obj and the byte
// range [start, end) of its value, in the order written.
func members(obj []byte, f func(key string, start, end int)) error {
	dec := json.NewDecoder(bytes.NewReader(obj))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		start := int(dec.InputOffset())
		for start < len(obj) && (obj[start] == ' ' || obj[start] == '\t' || obj[start] == '\n' || obj[start] == '\r' || obj[start] == ':') {
			start++
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		f(key, start, int(dec.InputOffset()))
	}
	return nil
}

// walkProperties calls f with each property of the object schema's
// "properties", in the order written, and the byte range of its schema.
func walkProperties(schema []byte, f func(name string, start, end int)) error {
	var props []byte
	base := 0
	err := members(schema, func(key string, start, end int) {
		if key == "properties" {
			props, base = schema[start:end], start
		}
	})
	if err != nil || props == nil {
		return err
	}
	return members(props, func(key string, start, end int) { f(key, base+start, base+end) })
}

// withParamDescription returns the schema doc with the description of
// property param set to desc, everything else byte for byte as it was;
// doc itself when it has no such property.
func withParamDescription(doc []byte, param, desc string) []byte {
	ps, pe := -1, -1
	_ = walkProperties(doc, func(name string, start, end int) {
		if name == param {
			ps, pe = start, end
		}
	})
	if ps < 0 || doc[ps] != '{' {
		return doc
	}
	prop := doc[ps:pe]
	ds, de := -1, -1
	_ = members(prop, func(key string, start, end int) {
		if key == "description" {
			ds, de = start, end
		}
	})
	val := schema.AppendString(nil, desc)
	var out []byte
	out = append(out, doc[:ps]...)
	if ds >= 0 {
		out = append(out, prop[:ds]...)
		out = append(out, val...)
		out = append(out, prop[de:]...)
	} else {
		out = append(out, '{')
		out = append(out, `"description":`...)
		out = append(out, val...)
		if len(bytes.TrimSpace(prop[1:len(prop)-1])) > 0 {
			out = append(out, ',')
		}
		out = append(out, prop[1:]...)
	}
	return append(out, doc[pe:]...)
}
