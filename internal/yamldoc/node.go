package yamldoc

import (
	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
)

// A node is a value the decoder reads: a yaml.Node (y), or the node i of
// a document the fast reader read (t), read as it is, so that decoding
// such a document makes no yaml.Node but for the values an Unmarshaler
// is given (yaml). The zero node is no node.
type node struct {
	y *yaml.Node
	t *ftree
	i int32
}

// yamlNode returns the node of y.
func yamlNode(y *yaml.Node) node { return node{y: y} }

// ok reports whether n is a node.
func (n node) ok() bool { return n.y != nil || n.t != nil }

func (n node) f() *fnode { return &n.t.nodes[n.i] }

func (n node) kind() yaml.Kind {
	if n.y != nil {
		return n.y.Kind
	}
	return yaml.Kind(n.f().kind)
}

func (n node) tag() string {
	if n.y != nil {
		return n.y.Tag
	}
	return tags[n.f().tag]
}

// value is the value of a scalar (and the name of an alias).
func (n node) value() string {
	if n.y != nil {
		return n.y.Value
	}
	return n.t.str(n.i)
}

func (n node) line() int {
	if n.y != nil {
		return n.y.Line
	}
	return int(n.f().line)
}

func (n node) col() int {
	if n.y != nil {
		return n.y.Column
	}
	return int(n.f().col)
}

// len is the number of children of a collection (keys and values, for
// a mapping).
func (n node) len() int {
	if n.y != nil {
		return len(n.y.Content)
	}
	if f := n.f(); f.kind != uint8(yaml.ScalarNode) {
		return int(f.b)
	}
	return 0
}

// child is the child i of a collection.
func (n node) child(i int) node {
	if n.y != nil {
		return node{y: n.y.Content[i]}
	}
	return node{t: n.t, i: n.t.kids[n.f().a+int32(i)]}
}

// isNull reports whether n is a null scalar.
func (n node) isNull() bool {
	return n.kind() == yaml.ScalarNode && n.tag() == "!!null"
}

// yaml returns n as a yaml.Node: itself, or its subtree made of the fast
// reader's nodes.
func (n node) yaml() *yaml.Node {
	if n.y != nil {
		return n.y
	}
	return n.t.yaml(n.i)
}

// A Tree is the top node of a document as Parser.ParseFileTree read it:
// for a text in the fast reader's part of YAML, its nodes as that reader
// writes them, which Schema.DecodeTree decodes without making a
// yaml.Node; for any other text (and JSON), the tree of yaml.Nodes. The
// zero Tree is an empty document.
type Tree struct{ n node }

// Empty reports whether the document holds nothing (only comments, or
// nothing at all).
func (t Tree) Empty() bool { return !t.n.ok() }

// Kind returns the kind of the top node: a mapping, a list or a scalar
// (0 for an empty document).
func (t Tree) Kind() yaml.Kind {
	if t.Empty() {
		return 0
	}
	return t.n.kind()
}

// Tag returns the tag of the top node ("!!null" for a document that is
// only "~" or "null"; empty for an empty document).
func (t Tree) Tag() string {
	if t.Empty() {
		return ""
	}
	return t.n.tag()
}

// Node returns the tree as yaml.Nodes, as ParseFileText returns it (nil
// for an empty document). Each call on a Tree the fast reader read makes
// the nodes again.
func (t Tree) Node() *yaml.Node {
	if t.Empty() {
		return nil
	}
	return t.n.yaml()
}

// ParseFileTree is ParseFileText returning a Tree: a YAML text in the
// fast reader's part of YAML is read without making its yaml.Nodes (see
// Tree), which saves most of the reading's memory when the tree is only
// decoded (Schema.DecodeTree). Everything else, every problem included,
// is as ParseFileText reads and reports it.
func (p Parser) ParseFileTree(path, text string) (Tree, error) {
	var (
		top *yaml.Node
		err error
	)
	if isJSON(path, text) {
		top, err = p.ParseFileText(path, text)
	} else if t, ok := fastRead(text, p.Columns); ok {
		return Tree{node{t: &t}}, nil
	} else {
		top, err = p.parseText(path, text)
	}
	if err != nil || top == nil {
		return Tree{}, err
	}
	return Tree{yamlNode(top)}, nil
}

// DecodeTree decodes t, the document path, into v as Decode decodes its
// tree of yaml.Nodes, with the same problems, values and places.
func (s *Schema[T]) DecodeTree(path string, t Tree, v *T) *Decoder {
	return s.decode(path, t.n, v)
}

// errorAt returns the diagnostic msg at n, at its column when the
// decoder reports columns.
func (d *Decoder) errorAt(n node, msg string) *diag.Error {
	e := diag.Errorf(d.path, n.line(), "%s", msg)
	if d.opts.Columns {
		e.Col = n.col()
	}
	return e
}
