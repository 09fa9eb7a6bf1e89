package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"go.yaml.in/yaml/v4"
)

// nodeDecoder decodes the nodes of one YAML or JSON file an operator
// wrote, collecting every problem with its line. Unknown keys are errors.
type nodeDecoder struct {
	path string
	errs diag.List
}

func (d *nodeDecoder) errorf(line int, format string, args ...any) {
	d.errs = append(d.errs, diag.Errorf(d.path, line, format, args...))
}

// parse parses the file's data into its top node; nil (with the error
// recorded) when it does not parse or is empty.
func (d *nodeDecoder) parse(data []byte, what string) *yaml.Node {
	top, err := yamldoc.Parse(d.path, data)
	if err != nil {
		d.errs.Add(err)
		return nil
	}
	if top == nil {
		d.errorf(1, "the file is empty: write %s", what)
	}
	return top
}

// fields calls f for each key of mapping n, reporting keys not in known.
func (d *nodeDecoder) fields(n *yaml.Node, what string, known []string, f func(key string, k, v *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n.Line, "%s: write a mapping (an object) with the keys %s", what, andList(known))
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(known, k.Value) {
			d.errorf(k.Line, "%s: unknown key %q: use %s", what, k.Value, andList(known))
			continue
		}
		f(k.Value, k, v)
	}
}

func (d *nodeDecoder) str(v *yaml.Node, what string) string {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		d.errorf(v.Line, "%s: write text", what)
		return ""
	}
	return v.Value
}

func (d *nodeDecoder) int(v *yaml.Node, what string) int {
	n, err := strconv.Atoi(v.Value)
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil {
		d.errorf(v.Line, "%s: write a whole number", what)
		return 0
	}
	return n
}

func (d *nodeDecoder) bool(v *yaml.Node, what string) bool {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
		d.errorf(v.Line, "%s: write true or false", what)
		return false
	}
	return v.Value == "true"
}

func (d *nodeDecoder) float(v *yaml.Node, what string) *float64 {
	f, err := strconv.ParseFloat(v.Value, 64)
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float") || err != nil {
		d.errorf(v.Line, "%s: write a number", what)
		return nil
	}
	return &f
}

// list decodes a list of words: a sequence of text, or one
// comma-separated string; items are trimmed and empty ones left out.
func (d *nodeDecoder) list(v *yaml.Node, what string) []string {
	switch {
	case v.Kind == yaml.SequenceNode:
		var out []string
		for _, c := range v.Content {
			if s := strings.TrimSpace(d.str(c, what)); s != "" {
				out = append(out, s)
			}
		}
		return out
	case v.Kind == yaml.ScalarNode && v.Tag != "!!null":
		return SplitList(v.Value)
	}
	d.errorf(v.Line, "%s: write a list, or one comma-separated string", what)
	return nil
}

// json returns v as compact JSON, keys in their written order.
func (d *nodeDecoder) json(v *yaml.Node, what string) json.RawMessage {
	var b bytes.Buffer
	if err := nodeJSON(&b, v, 0); err != nil {
		d.errorf(v.Line, "%s: %v", what, err)
		return nil
	}
	return b.Bytes()
}

// nodeJSON writes n as compact JSON.
func nodeJSON(b *bytes.Buffer, n *yaml.Node, depth int) error {
	if depth > 100 {
		return fmt.Errorf("nested over 100 levels deep")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return nodeJSON(b, n.Content[0], depth)
		}
	case yaml.AliasNode:
		if n.Alias != nil {
			return nodeJSON(b, n.Alias, depth+1)
		}
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, n.Content[i].Value)
			b.WriteByte(':')
			if err := nodeJSON(b, n.Content[i+1], depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := nodeJSON(b, c, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			b.WriteString("null")
			return nil
		case "!!bool":
			b.WriteString(n.Value)
			return nil
		case "!!int", "!!float":
			if json.Valid([]byte(n.Value)) {
				b.WriteString(n.Value)
				return nil
			}
		}
		writeJSONString(b, n.Value)
		return nil
	}
	return fmt.Errorf("a value that JSON cannot hold")
}

func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Truncate(b.Len() - 1)
}

// parseList parses data as a YAML or JSON list (what names it when it is
// missing or invalid; want says what to write when it is not a list) and
// returns the list's node.
func (d *nodeDecoder) parseList(data []byte, what, want string) (*yaml.Node, error) {
	top := d.parse(data, what)
	if top == nil {
		return nil, d.errs
	}
	if top.Kind != yaml.SequenceNode {
		return nil, diag.List{diag.Errorf(d.path, top.Line, "%s", want)}
	}
	return top, nil
}

// done returns out, or every problem d found, sorted.
func done[T any](d *nodeDecoder, out []T) ([]T, error) {
	if len(d.errs) > 0 {
		d.errs.Sort()
		return nil, d.errs
	}
	return out, nil
}
