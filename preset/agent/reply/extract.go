package reply

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tessera-dev/tessera/internal/jsonesc"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/output"
)

// ExtractJSON finds the JSON value a model's reply holds, opening with
// open ('{' for an object, '[' for an array), and returns it with its
// byte offset in reply; see output.Extract, which it is.
func ExtractJSON(reply []byte, open byte) (data []byte, offset int, ok bool) {
	return output.Extract(reply, open)
}

// jsonKind is the kind of a JSON value.
type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

func (k jsonKind) String() string {
	return [...]string{"null", "true or false", "a number", "a string", "an array", "an object"}[k]
}

// jsonNode is a parsed JSON value with the byte offset it starts at, so
// that a problem in a reply can be placed at its line and column.
type jsonNode struct {
	kind  jsonKind
	off   int
	text  string      // a string's value, a number's digits, "true" or "false"
	keys  []jsonField // an object's members, in order
	elems []*jsonNode // an array's elements
}

type jsonField struct {
	name string
	off  int
	val  *jsonNode
}

// field returns the value of the member name (in any case; see member),
// or nil.
func (n *jsonNode) field(name string) *jsonNode {
	if f := n.member(name); f != nil {
		return f.val
	}
	return nil
}

// member returns the member name, or nil. Keys match in any case, as a
// model may write "Status" for "status": the first member named exactly
// name, else the first whose name equals it ignoring case.
func (n *jsonNode) member(name string) *jsonField {
	for i := range n.keys {
		if n.keys[i].name == name {
			return &n.keys[i]
		}
	}
	for i := range n.keys {
		if strings.EqualFold(n.keys[i].name, name) {
			return &n.keys[i]
		}
	}
	return nil
}

// maxDepth bounds the nesting of arrays and objects in a JSON value
// parseJSON accepts: the one limit of every document Tessera reads.
const maxDepth = yamldoc.MaxDepth

// errTooDeep is a JSON value nested over maxDepth levels.
var errTooDeep = errors.New("nested too deeply")

// MaxReplyValues is how many JSON values (each string, number, true,
// false, null, array and object, an object's keys aside) a reply may
// hold. A plan of 15 subtasks holds about 150, a long extraction a few
// thousand; the bound keeps the checking of any reply small, and is
// checked before each value is read.
const MaxReplyValues = 20_000

// errTooMany is a JSON value holding more than MaxReplyValues values.
var errTooMany = errors.New("too many values")

// jsonError is a syntax error at a byte offset.
type jsonError struct {
	off int
	msg string
}

func (e *jsonError) Error() string { return e.msg }

// parseJSON parses data, one JSON value, keeping each value's offset.
func parseJSON(data []byte) (*jsonNode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := &jsonParser{dec: dec, data: data, left: MaxReplyValues}
	n, err := p.value(0)
	if err != nil {
		return nil, p.wrap(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &jsonError{off: p.start(), msg: "more text after the JSON value"}
	}
	return n, nil
}

type jsonParser struct {
	dec  *json.Decoder
	data []byte
	left int // the values the reply may still hold
}

// start returns the offset of the next token: past the whitespace,
// commas and colons after the decoder's position.
func (p *jsonParser) start() int {
	i := int(p.dec.InputOffset())
	for i < len(p.data) {
		switch p.data[i] {
		case ' ', '\t', '\r', '\n', ',', ':':
			i++
			continue
		}
		break
	}
	return i
}

func (p *jsonParser) wrap(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return &jsonError{off: int(se.Offset), msg: "not valid JSON: " + se.Error()}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &jsonError{off: len(p.data), msg: "not valid JSON: it ends before the value does"}
	case errors.Is(err, errTooDeep):
		return &jsonError{off: p.start(), msg: fmt.Sprintf("not valid here: arrays and objects nest over %d levels deep: flatten the reply", maxDepth)}
	case errors.Is(err, errTooMany):
		return &jsonError{off: p.start(), msg: fmt.Sprintf("the reply holds more than %d JSON values, far more than any plan, verdict or extraction: ask the model for a shorter answer", MaxReplyValues)}
	}
	var je *jsonError
	if errors.As(err, &je) {
		return je
	}
	return &jsonError{off: p.start(), msg: "not valid JSON: " + err.Error()}
}

// value reads a value inside depth arrays and objects. Each limit is
// checked before the value is read.
func (p *jsonParser) value(depth int) (*jsonNode, error) {
	if p.left--; p.left < 0 {
		return nil, errTooMany
	}
	off := p.start()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	n := &jsonNode{off: off}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= maxDepth && (t == '{' || t == '[') {
			return nil, errTooDeep
		}
		switch t {
		case '{':
			n.kind = jsonObject
			for p.dec.More() {
				koff := p.start()
				kt, err := p.dec.Token()
				if err != nil {
					return nil, err
				}
				name, _ := kt.(string)
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, jsonField{name: name, off: koff, val: v})
			}
		case '[':
			n.kind = jsonArray
			for p.dec.More() {
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, v)
			}
		default:
			return nil, &jsonError{off: off, msg: "not valid JSON: unexpected " + string(t)}
		}
		if _, err := p.dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		n.kind, n.text = jsonString, t
	case json.Number:
		n.kind, n.text = jsonNumber, string(t)
	case bool:
		n.kind, n.text = jsonBool, fmt.Sprint(t)
	case nil:
		n.kind = jsonNull
	}
	return n, nil
}

// compactJSON returns n as compact JSON text, members in their order.
func compactJSON(n *jsonNode) string {
	var b bytes.Buffer
	var write func(n *jsonNode)
	write = func(n *jsonNode) {
		switch n.kind {
		case jsonNull:
			b.WriteString("null")
		case jsonBool, jsonNumber:
			b.WriteString(n.text)
		case jsonString:
			writeJSONString(&b, n.text)
		case jsonArray:
			b.WriteByte('[')
			for i, e := range n.elems {
				if i > 0 {
					b.WriteByte(',')
				}
				write(e)
			}
			b.WriteByte(']')
		case jsonObject:
			b.WriteByte('{')
			for i, f := range n.keys {
				if i > 0 {
					b.WriteByte(',')
				}
				writeJSONString(&b, f.name)
				b.WriteByte(':')
				write(f.val)
			}
			b.WriteByte('}')
		}
	}
	write(n)
	return b.String()
}

// writeJSONString writes s as a JSON string (see jsonesc.AppendString,
// the one JSON string writer).
func writeJSONString(b *bytes.Buffer, s string) {
	b.Write(jsonesc.AppendString(b.AvailableBuffer(), s, false))
}
