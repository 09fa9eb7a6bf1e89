// Package yamldoc reads one YAML (or JSON) document into a node tree that
// keeps every key's position, and decodes that tree into Go structs. It is
// the one YAML layer Tessera's file formats share (tessera.yaml, canonical
// specs), so that they agree on what a line is, which characters are
// refused, how a syntax error is located, that a repeated key is an error
// naming both of its lines, and how an unknown key or a value of the wrong
// type is reported.
//
// Parse and ParseText read the text (a Parser with Columns places every
// problem at its column too, in bytes, and so every node); a Schema,
// built once from a struct type's yaml tags and a few rules, decodes the
// tree, collecting every problem as a diagnostic at its line (and column,
// with Options.Columns) and recording the place of each field, so that
// later checks can place their own diagnostics:
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
//
// A file that is only decoded can be read with Parser.ParseFileTree and
// decoded with Schema.DecodeTree instead: a text in the part of YAML the
// fast reader reads (fast.go) is then decoded from that reader's compact
// nodes, with no yaml.Node made, to the same value, problems and places.
package yamldoc

import (
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/prompt"
)

// Parse normalises data (see prompt.Normalize) and parses it with
// ParseText.
func Parse(path string, data []byte) (*yaml.Node, error) {
	return Parser{}.Parse(path, data)
}

// ParseText parses the normalised text of the file path (used in
// diagnostics only) as one YAML document and returns its top node, or nil
// when the document is empty (only comments or nothing). Every problem is
// a diag.List entry with its line:
//   - a carriage return (which normalised text never holds), NEL, LINE
//     SEPARATOR and PARAGRAPH SEPARATOR, which YAML reads as line breaks
//     while editors do not, are refused, so that every line number counts
//     '\n' as an editor does;
//   - a syntax error is placed at the line and column where the parser
//     found it;
//   - a second document ("---") is an error;
//   - a key repeated in any mapping, at any depth, is an error naming the
//     line of each occurrence;
//   - a document of more values than MaxNodes allows for its size, or
//     nested more than MaxDepth deep, is an error at the line where the
//     limit is passed; the number of values is checked before the parser
//     runs.
//
// A text in the common part of YAML most files are written in (block
// mappings and lists, scalars on one line, block scalars, flow lists and
// mappings on one line) is read without the YAML parser, several times
// faster, to the same tree but for comments, which are not kept; anything
// else, and every problem, is left to the parser (see fast.go).
func ParseText(path, text string) (*yaml.Node, error) {
	return Parser{}.ParseText(path, text)
}

// Parser reads documents as Parse and ParseText do, with options. The
// zero Parser is what Parse and ParseText use.
type Parser struct {
	// Columns places every problem at its column as well as its line
	// (path:line:col: message): an invalid byte, a refused line break, a
	// syntax error (at the end of the file: just past the last line's
	// text), a second document and a repeated key. It also makes the
	// Column of every node of the tree returned a count of bytes from the
	// start of its line, as diag.Error's Col is, where the YAML parser
	// counts characters; a Schema with Options.Columns then reports byte
	// columns too.
	Columns bool
}

// Parse normalises data (see prompt.Normalize) and parses it with
// p.ParseText.
func (p Parser) Parse(path string, data []byte) (*yaml.Node, error) {
	text, err := prompt.Normalize(data)
	if err != nil {
		return nil, diag.List{p.EncodingError(path, err)}
	}
	return p.ParseText(path, text)
}

// EncodingError turns an error of prompt.Normalize into a diagnostic at
// the line it names.
func EncodingError(path string, err error) *diag.Error {
	return Parser{}.EncodingError(path, err)
}

// EncodingError turns an error of prompt.Normalize into a diagnostic at
// the line it names, and at its column when p.Columns is set.
func (p Parser) EncodingError(path string, err error) *diag.Error {
	var ee *prompt.EncodingError
	if errors.As(err, &ee) {
		e := diag.Wrap(path, ee.Line, err, "%v", ee)
		if p.Columns {
			e.Col = ee.Col
		}
		return e
	}
	return diag.Wrap(path, 0, err, "%v", err)
}

// ParseText parses text as the package's ParseText does, with p's
// options.
func (p Parser) ParseText(path, text string) (*yaml.Node, error) {
	if top, ok := fastParse(text, p.Columns); ok {
		// The common part of YAML, read without the parser (fast.go).
		return top, nil
	}
	return p.parseText(path, text)
}

// parseText parses text with the YAML parser, and checks what it built.
func (p Parser) parseText(path, text string) (*yaml.Node, error) {
	if i := strings.IndexAny(text, "\r\u0085\u2028\u2029"); i >= 0 {
		line := 1 + strings.Count(text[:i], "\n")
		r, _ := utf8.DecodeRuneInString(text[i:])
		e := diag.Errorf(path, line, "holds the character %U, which YAML reads as a line break: remove it, or write it as \\u%04X inside a double-quoted string", r, r)
		if p.Columns {
			e.Col = i - strings.LastIndexByte(text[:i], '\n')
		}
		return nil, diag.List{e}
	}
	// The parser's work is bounded before it starts: the number of values
	// and (coarsely) the depth; the tree is then checked exactly.
	maxNodes := MaxNodes(len(text))
	if _, e := prescan(path, text, maxNodes); e != nil {
		if !p.Columns {
			e.Col = 0
		}
		return nil, diag.List{e}
	}
	dec := yaml.NewDecoder(strings.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return nil, diag.List{p.syntaxError(path, text, err)}
	}
	var more yaml.Node
	if err := dec.Decode(&more); err != io.EOF {
		if err != nil {
			return nil, diag.List{p.syntaxError(path, text, err)}
		}
		e := diag.Errorf(path, more.Line, "a second YAML document starts here: the file holds one document; remove the \"---\" line or split the file")
		if p.Columns {
			e.Col = newColumns(text).byteCol(more.Line, more.Column)
		}
		return nil, diag.List{e}
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	top := doc.Content[0]
	if p.Columns && !isASCII(text) {
		byteColumns(newColumns(text), top)
	}
	w := walker{path: path, cols: p.Columns, maxNodes: maxNodes}
	w.walk(top, 0)
	if len(w.errs) > 0 {
		return nil, w.errs
	}
	return top, nil
}

// syntaxError places a parser error at its line and column (in bytes),
// kept within the text: the end of the stream is reported at the last
// line, with no column, or just past its text when p.Columns is set; a
// character the reader refuses at its line, and its column when
// p.Columns is set.
func (p Parser) syntaxError(path, text string, err error) *diag.Error {
	lines := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") || lines == 0 {
		lines++
	}
	var le *yaml.LoadError
	if errors.As(err, &le) {
		line, col := le.Mark.Line, le.Mark.Column
		c := newColumns(text)
		switch {
		case line == 0 && le.Stage == yaml.ReaderStage && le.Mark.Index >= 0 && le.Mark.Index <= len(text):
			// The reader (a control character) gives a byte offset only.
			line, col = diag.Position([]byte(text), le.Mark.Index)
			if !p.Columns {
				col = 0
			}
		case line > lines && p.Columns:
			line, col = lines, c.lineEnd(lines)
		case line > lines:
			line, col = lines, 0
		default:
			col = c.byteCol(line, col)
		}
		e := diag.Wrap(path, line, err, "not valid YAML: %s", le.Message)
		e.Col = col
		return e
	}
	return diag.Wrap(path, 0, err, "not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
}

// walker checks a tree the YAML parser built: the keys repeated in its
// mappings, its depth and its number of nodes. The dotted path of a key
// is built only for a message, from the steps down to it, so that the
// walk is linear in the size of the tree.
type walker struct {
	path     string
	cols     bool
	errs     diag.List
	steps    []pathSegment
	nodes    int
	maxNodes int
}

// walk checks the tree at n, a collection at depth collections deep when
// it is one, and reports false when it stops at a limit.
func (w *walker) walk(n *yaml.Node, depth int) bool {
	if w.nodes++; w.nodes > w.maxNodes {
		w.errs = append(w.errs, w.at(errTooManyNodes(w.path, n.Line, w.maxNodes), n))
		return false
	}
	switch n.Kind {
	case yaml.MappingNode:
		if depth++; depth > MaxDepth {
			w.errs = append(w.errs, w.at(errTooDeep(w.path, n.Line), n))
			return false
		}
		var first map[string]int
		if len(n.Content) > 2 {
			first = make(map[string]int, len(n.Content)/2)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if w.nodes++; w.nodes > w.maxNodes {
				w.errs = append(w.errs, w.at(errTooManyNodes(w.path, k.Line, w.maxNodes), k))
				return false
			}
			scalar := k.Kind == yaml.ScalarNode
			if scalar && first != nil {
				if line, ok := first[k.Value]; ok {
					e := diag.Errorf(w.path, k.Line, "key %q is repeated (first at line %d): keep one", w.dotted(k.Value), line)
					if w.cols {
						e.Col = k.Column
					}
					w.errs = append(w.errs, e)
				} else {
					first[k.Value] = k.Line
				}
			}
			if scalar {
				w.steps = append(w.steps, pathSegment{key: k.Value, isKey: true})
			}
			ok := w.walk(n.Content[i+1], depth)
			if scalar {
				w.steps = w.steps[:len(w.steps)-1]
			}
			if !ok {
				return false
			}
		}
	case yaml.SequenceNode:
		if depth++; depth > MaxDepth {
			w.errs = append(w.errs, w.at(errTooDeep(w.path, n.Line), n))
			return false
		}
		w.steps = append(w.steps, pathSegment{})
		for i, c := range n.Content {
			w.steps[len(w.steps)-1].index = i
			if !w.walk(c, depth) {
				return false
			}
		}
		w.steps = w.steps[:len(w.steps)-1]
	}
	return true
}

// at places e at n's column when the walk places problems at columns.
func (w *walker) at(e *diag.Error, n *yaml.Node) *diag.Error {
	if w.cols {
		e.Col = n.Column
	}
	return e
}

// dotted returns the path of key in the mapping the walk is in: the keys
// down to it joined by ".", with "[i]" for an item of a list.
func (w *walker) dotted(key string) string {
	return join(dottedPath(w.steps), key)
}

func join(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}
