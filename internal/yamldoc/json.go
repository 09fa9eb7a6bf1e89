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
	return d.toJSON(n, loc{at: at})
}

// toJSON converts the YAML (or JSON) value n to JSON in document order:
// the keys of a mapping stay in the order they are written, which a trip
// through a Go map would lose. Numbers keep their written form where JSON
// has it; problems are reported at l (the field the value is in), and
// the first ends the conversion.
func (d *Decoder) toJSON(n *yaml.Node, l loc) (json.RawMessage, bool) {
	var b bytes.Buffer
	if !d.writeJSON(&b, n, l) {
		return nil, false
	}
	return json.RawMessage(b.Bytes()), true
}

func (d *Decoder) writeJSON(b *bytes.Buffer, n *yaml.Node, l loc) bool {
	switch n.Kind {
	case yaml.MappingNode:
		b.WriteByte('{')
		var seen map[string]bool
		if len(n.Content) > 2 {
			seen = make(map[string]bool, len(n.Content)/2)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!null" {
				d.Errorf(k, d.at(l), "a JSON object key must be text, found %s", Describe(k))
				return false
			}
			if seen != nil {
				if seen[k.Value] {
					d.Errorf(k, d.at(l), "the key %q is repeated: keep one", k.Value)
					return false
				}
				seen[k.Value] = true
			}
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, k.Value)
			b.WriteByte(':')
			if !d.writeJSON(b, v, l) {
				return false
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, v := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if !d.writeJSON(b, v, l) {
				return false
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		return d.writeJSONScalar(b, n, l)
	default:
		d.Wrong(n, d.at(l), "a JSON value")
		return false
	}
	return true
}

func (d *Decoder) writeJSONScalar(b *bytes.Buffer, n *yaml.Node, l loc) bool {
	switch n.Tag {
	case "!!str", "!!timestamp":
		writeJSONString(b, n.Value)
	case "!!null":
		b.WriteString("null")
	case "!!bool":
		v, ok := boolOf(n)
		if !ok {
			d.Wrong(n, d.at(l), "a JSON value")
			return false
		}
		b.WriteString(strconv.FormatBool(v))
	case "!!int":
		if plainDecimal(n.Value) {
			b.WriteString(n.Value)
			break
		}
		var v int64
		if n.Decode(&v) != nil {
			d.Errorf(n, d.at(l), "the number %s cannot be written in JSON: write it in decimal", n.Value)
			return false
		}
		b.WriteString(strconv.FormatInt(v, 10))
	case "!!float":
		if JSONNumber(n.Value) {
			b.WriteString(n.Value)
			break
		}
		var v float64
		if n.Decode(&v) != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			d.Errorf(n, d.at(l), "the number %s cannot be written in JSON", n.Value)
			return false
		}
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	default:
		d.Errorf(n, d.at(l), "the tag %s has no JSON form: write plain JSON values", n.Tag)
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
