package yamldoc

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/internal/jsonesc"
)

// JSON returns the YAML (or JSON) value n, of any kind, as compact JSON
// in document order, for an Unmarshaler whose value is free-form JSON
// (a tool's arguments, say); see toJSON. Problems are reported at the
// field at, and ok is false.
func (d *Decoder) JSON(n *yaml.Node, at string) (raw json.RawMessage, ok bool) {
	return d.toJSON(yamlNode(n), loc{at: at})
}

// toJSON converts the YAML (or JSON) value n to JSON in document order:
// the keys of a mapping stay in the order they are written, which a trip
// through a Go map would lose. Numbers keep their written form where JSON
// has it; problems are reported at l (the field the value is in), and
// the first ends the conversion.
func (d *Decoder) toJSON(n node, l loc) (json.RawMessage, bool) {
	var b bytes.Buffer
	if n.y == nil {
		b.Grow(n.t.jsonSize(n.i))
	}
	if !d.writeJSON(&b, n, l) {
		return nil, false
	}
	return json.RawMessage(b.Bytes()), true
}

func (d *Decoder) writeJSON(b *bytes.Buffer, n node, l loc) bool {
	switch n.kind() {
	case yaml.MappingNode:
		b.WriteByte('{')
		var seen map[string]bool
		if n.len() > 2 {
			seen = make(map[string]bool, n.len()/2)
		}
		for i := 0; i+1 < n.len(); i += 2 {
			k, v := n.child(i), n.child(i+1)
			if k.kind() != yaml.ScalarNode || k.tag() == "!!null" {
				d.errorf(k, d.at(l), "a JSON object key must be text, found %s", describe(k))
				return false
			}
			key := k.value()
			if seen != nil {
				if seen[key] {
					d.errorf(k, d.at(l), "the key %q is repeated: keep one", key)
					return false
				}
				seen[key] = true
			}
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, key)
			b.WriteByte(':')
			if !d.writeJSON(b, v, l) {
				return false
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i := range n.len() {
			if i > 0 {
				b.WriteByte(',')
			}
			if !d.writeJSON(b, n.child(i), l) {
				return false
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		return d.writeJSONScalar(b, n, l)
	default:
		d.wrong(n, d.at(l), "a JSON value")
		return false
	}
	return true
}

func (d *Decoder) writeJSONScalar(b *bytes.Buffer, n node, l loc) bool {
	switch val := n.value(); n.tag() {
	case "!!str", "!!timestamp":
		writeJSONString(b, val)
	case "!!null":
		b.WriteString("null")
	case "!!bool":
		v, ok := boolOf(n)
		if !ok {
			d.wrong(n, d.at(l), "a JSON value")
			return false
		}
		b.WriteString(strconv.FormatBool(v))
	case "!!int":
		if plainDecimal(val) {
			b.WriteString(val)
			break
		}
		var v int64
		if n.yaml().Decode(&v) != nil {
			d.errorf(n, d.at(l), "the number %s cannot be written in JSON: write it in decimal", val)
			return false
		}
		b.WriteString(strconv.FormatInt(v, 10))
	case "!!float":
		if JSONNumber(val) {
			b.WriteString(val)
			break
		}
		var v float64
		if n.yaml().Decode(&v) != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			d.errorf(n, d.at(l), "the number %s cannot be written in JSON", val)
			return false
		}
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	default:
		d.errorf(n, d.at(l), "the tag %s has no JSON form: write plain JSON values", n.tag())
		return false
	}
	return true
}

// JSONNumber reports whether s is a number as JSON writes it:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func JSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	start := i
	if n := digits(); n == 0 || n > 1 && s[start] == '0' {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// writeJSONString writes s as a JSON string (see jsonesc.AppendString,
// the one JSON string writer).
func writeJSONString(b *bytes.Buffer, s string) {
	b.Write(jsonesc.AppendString(b.AvailableBuffer(), s, false))
}
