// Package yamldoc reads one YAML (or JSON) document into a node tree that
// keeps every key's position, and decodes that tree into Go structs. It is
// the one YAML layer Tessera's file formats share (tessera.yaml, canonical
// specs), so that they agree on what a line is, which characters are
// refused, how a syntax error is located, that a repeated key is an error
// naming both of its lines, and how an unknown key or a value of the wrong
// type is reported.
//
// Parse and ParseText read the text; a Schema, built once from a struct
// type's yaml tags and a few rules, decodes the tree, collecting every
// problem as a diagnostic at its line and recording the line of each
// field, so that later checks can place their own diagnostics:
//
//	var schema = yamldoc.NewSchema[Spec](yamldoc.Options{
//		Rules: map[string]yamldoc.Rule{
//			"task[].priority": yamldoc.Int(1, 5, "a whole number from 1 to 5"),
//		},
//	})
//
//	top, err := yamldoc.Parse(path, data)
//	...
//	var s Spec
//	d := schema.Decode(path, top, &s)
//	errs, lines := d.Errors(), d.Lines()
package yamldoc

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/prompt"
)

// Parse normalises data (see prompt.Normalize) and parses it with
// ParseText.
func Parse(path string, data []byte) (*yaml.Node, error) {
	text, err := prompt.Normalize(data)
	if err != nil {
		return nil, diag.List{EncodingError(path, err)}
	}
	return ParseText(path, text)
}

// EncodingError turns an error of prompt.Normalize into a diagnostic at
// the line it names.
func EncodingError(path string, err error) *diag.Error {
	var ee *prompt.EncodingError
	if errors.As(err, &ee) {
		return diag.Wrap(path, ee.Line, err, "%v", ee)
	}
	return diag.Wrap(path, 0, err, "%v", err)
}

// ParseText parses the normalised text of the file path (used in
// diagnostics only) as one YAML document and returns its top node, or nil
// when the document is empty (only comments or nothing). Every problem is
// a diag.List entry with its line:
//   - NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR, which YAML reads as
//     line breaks while editors do not, are refused, so that every line
//     number counts '\n' as an editor does;
//   - a syntax error is placed at the line and column where the parser
//     found it;
//   - a second document ("---") is an error;
//   - a key repeated in any mapping, at any depth, is an error naming the
//     line of each occurrence.
func ParseText(path, text string) (*yaml.Node, error) {
	if i := strings.IndexAny(text, "\u0085\u2028\u2029"); i >= 0 {
		line := 1 + strings.Count(text[:i], "\n")
		r := []rune(text[i:])[0]
		return nil, diag.List{diag.Errorf(path, line, "holds the character %U, which YAML reads as a line break: remove it, or write it as \\u%04X inside a double-quoted string", r, r)}
	}
	dec := yaml.NewDecoder(strings.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return nil, diag.List{syntaxError(path, text, err)}
	}
	var more yaml.Node
	if err := dec.Decode(&more); err != io.EOF {
		if err != nil {
			return nil, diag.List{syntaxError(path, text, err)}
		}
		return nil, diag.List{diag.Errorf(path, more.Line, "a second YAML document starts here: the file holds one document; remove the \"---\" line or split the file")}
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	top := doc.Content[0]
	var errs diag.List
	repeatedKeys(path, "", top, &errs)
	if len(errs) > 0 {
		return nil, errs
	}
	return top, nil
}

// syntaxError places a parser error at its line and column, kept within
// the text (the end of the stream is reported at the last line).
func syntaxError(path, text string, err error) *diag.Error {
	lines := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") || lines == 0 {
		lines++
	}
	var le *yaml.LoadError
	if errors.As(err, &le) {
		line, col := le.Mark.Line, le.Mark.Column
		if line > lines {
			line, col = lines, 0
		}
		e := diag.Wrap(path, line, err, "not valid YAML: %s", le.Message)
		e.Col = col
		return e
	}
	return diag.Wrap(path, 0, err, "not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
}

// repeatedKeys reports every key that appears twice in one mapping of the
// tree at n, named by its dotted path from the top (at is n's). Keys are
// compared by their value, so "a" and 'a' are the same key.
func repeatedKeys(path, at string, n *yaml.Node, errs *diag.List) {
	switch n.Kind {
	case yaml.MappingNode:
		var first map[string]int
		if len(n.Content) > 2 {
			first = make(map[string]int, len(n.Content)/2)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			p := at
			if k.Kind == yaml.ScalarNode {
				p = join(at, k.Value)
				if first != nil {
					if line, ok := first[k.Value]; ok {
						*errs = append(*errs, diag.Errorf(path, k.Line, "key %q is repeated (first at line %d): keep one", p, line))
					} else {
						first[k.Value] = k.Line
					}
				}
			}
			repeatedKeys(path, p, n.Content[i+1], errs)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			repeatedKeys(path, at+"["+strconv.Itoa(i)+"]", c, errs)
		}
	}
}

func join(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}
