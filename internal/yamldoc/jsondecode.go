package yamldoc

import (
	"path/filepath"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/prompt"
)

// DecodeFile reads data, the file path, with p and decodes it into v: as
// JSON with DecodeJSON when IsJSON says it is JSON (falling back to YAML
// as Parser.ParseFile does), and as YAML with Parse and Decode
// otherwise. It returns the top node (nil for an empty document) and the
// decoder, or the problems of the text, when v is left as it was.
func (s *Schema[T]) DecodeFile(p Parser, path string, data []byte, v *T) (*yaml.Node, *Decoder, error) {
	text, err := prompt.Normalize(data)
	if err != nil {
		return nil, nil, diag.List{p.EncodingError(path, err)}
	}
	if IsJSON(path, data) {
		top, d, jerr := s.DecodeJSON(p, path, text, v)
		if jerr == nil || strings.EqualFold(filepath.Ext(path), ".json") || !isSyntaxError(jerr) {
			return top, d, jerr
		}
		// Taken for JSON by its first byte only: YAML may read it.
		top, err := p.ParseText(path, text)
		if err != nil {
			return nil, nil, jerr
		}
		return top, s.Decode(path, top, v), nil
	}
	top, err := p.ParseText(path, text)
	if err != nil {
		return nil, nil, err
	}
	return top, s.Decode(path, top, v), nil
}

// DecodeJSON reads the normalised JSON text of the file path with p (see
// Parser.ParseJSONText) and decodes it into v as Decode decodes the tree.
// It returns the top node (nil for an empty text) and the decoder, or the
// problems of the text, when v is left as it was.
//
// When T is a slice and the text an array, the array is read one item at
// a time: each item's nodes are read, decoded into the slice and used
// again for the next item, so that the tree of the whole document never
// exists at once and a large file costs little more than its text and
// the values decoded. The top node returned then holds in its Content a
// stub of each item: its node's Kind, Tag, Style, Line and Column,
// without its value or content.
func (s *Schema[T]) DecodeJSON(p Parser, path, text string, v *T) (*yaml.Node, *Decoder, error) {
	r := newJSONReader(path, text, p.Columns)
	r.space()
	if r.off == len(r.text) {
		return nil, s.decoder(path), nil
	}
	if s.plan.kind != kindSlice || r.text[r.off] != '[' {
		top := r.value()
		r.end()
		if err := r.result(); err != nil {
			return nil, nil, err
		}
		return top, s.Decode(path, top, v), nil
	}
	d := s.decoder(path)
	items := reflect.New(s.plan.typ).Elem()
	items.Grow(countItems(text, r.off))
	elem := s.plan.elem
	top := r.array(func(i int, n *yaml.Node) {
		if i == items.Cap() {
			items.Grow(1)
		}
		items.SetLen(i + 1)
		d.value(elem, yamlNode(n), d.record(loc{}, "", true, i, yamlNode(n)), items.Index(i))
	})
	r.end()
	if err := r.result(); err != nil {
		return nil, nil, err
	}
	if items.Len() > 0 {
		reflect.ValueOf(v).Elem().Set(items)
	}
	return top, d, nil
}

// countItems returns the number of items of the array that opens at
// text[off], when the text is valid JSON, so that the slice they are
// decoded into is made once at its size (growing it would allocate it
// several times over). It is a quick scan, capped at one item per two
// bytes of text, and it counts no further than the array's end.
func countItems(text string, off int) int {
	depth, n, empty := 0, 0, true
	for i := off; i < len(text); i++ {
		switch c := text[i]; c {
		case '"':
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
			empty = false
		case '[', '{':
			depth++
			if depth > 1 {
				empty = false
			}
		case ']', '}':
			depth--
			if depth == 0 {
				if !empty {
					n++
				}
				return min(n, (len(text)-off)/2)
			}
		case ',':
			if depth == 1 {
				n++
			}
		case ' ', '\t', '\n', '\r':
		default:
			empty = false
		}
	}
	return 0
}
