package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxCandidates bounds how many bare '{' or '[' ExtractJSON tries as the
// start of a value, so that a long reply full of braces costs linear
// time.
const maxCandidates = 32

// ExtractJSON finds the JSON value a model's reply holds, opening with
// open ('{' for an object, '[' for an array), and returns it with its
// byte offset in reply. It takes, in this order: the first fenced block
// (``` or ~~~, with the info "json" or none) whose content starts with
// open; else the first balanced run from open to its matching close (JSON
// strings respected) that is valid JSON; else the first balanced run,
// invalid, so the caller can say what is wrong with it. ok is false when
// the reply holds none of these.
func ExtractJSON(reply []byte, open byte) (data []byte, offset int, ok bool) {
	if open != '{' && open != '[' {
		return nil, 0, false
	}
	if d, off, ok := fenced(reply, open); ok {
		return d, off, true
	}
	first, firstOff := []byte(nil), -1
	from := 0
	for tries := 0; tries < maxCandidates; tries++ {
		i := bytes.IndexByte(reply[from:], open)
		if i < 0 {
			break
		}
		start := from + i
		end := balanced(reply, start)
		if end < 0 {
			from = start + 1
			continue
		}
		cand := reply[start:end]
		if json.Valid(cand) {
			return cand, start, true
		}
		if first == nil {
			first, firstOff = cand, start
		}
		from = start + 1
	}
	if first != nil {
		return first, firstOff, true
	}
	return nil, 0, false
}

// fenced returns the content of the first fenced block whose info is
// empty or "json" and whose content, trimmed, starts with open.
func fenced(reply []byte, open byte) ([]byte, int, bool) {
	for at := 0; at < len(reply); {
		end := bytes.IndexByte(reply[at:], '\n')
		lineEnd := len(reply)
		if end >= 0 {
			lineEnd = at + end
		}
		line := reply[at:lineEnd]
		trimmed := bytes.TrimLeft(line, " \t")
		fence := fenceRun(trimmed)
		if fence == "" || lineEnd == len(reply) {
			at = lineEnd + 1
			continue
		}
		info := strings.ToLower(strings.TrimSpace(string(trimmed[len(fence):])))
		body := lineEnd + 1
		// The block ends at a line of at least as many of the same
		// character, or at the end of the reply.
		close := len(reply)
		for p := body; p < len(reply); {
			e := bytes.IndexByte(reply[p:], '\n')
			le := len(reply)
			if e >= 0 {
				le = p + e
			}
			l := bytes.TrimSpace(reply[p:le])
			if len(l) >= len(fence) && len(bytes.Trim(l, fence[:1])) == 0 {
				close = p
				break
			}
			p = le + 1
		}
		if info == "" || info == "json" {
			content := reply[body:close]
			lead := len(content) - len(bytes.TrimLeft(content, " \t\r\n"))
			content = bytes.TrimSpace(content)
			if len(content) > 0 && content[0] == open {
				return content, body + lead, true
			}
		}
		// Skip the block and its closing line.
		next := bytes.IndexByte(reply[close:], '\n')
		if next < 0 {
			break
		}
		at = close + next + 1
	}
	return nil, 0, false
}

// fenceRun returns the run of three or more backticks or tildes that line
// starts with, or "".
func fenceRun(line []byte) string {
	if len(line) < 3 || (line[0] != '`' && line[0] != '~') {
		return ""
	}
	n := 0
	for n < len(line) && line[n] == line[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return string(line[:n])
}

// balanced returns the end (exclusive) of the bracketed run that starts
// at s[start], or -1 when it is not closed or its brackets do not match.
func balanced(s []byte, start int) int {
	var stack []byte
	inString := false
	for i := start; i < len(s); i++ {
		c := s[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{':
			stack = append(stack, '}')
		case '[':
			stack = append(stack, ']')
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return -1
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1
			}
		}
	}
	return -1
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

// field returns the value of the member name, or nil.
func (n *jsonNode) field(name string) *jsonNode {
	if f := n.member(name); f != nil {
		return f.val
	}
	return nil
}

// member returns the first member name, or nil.
func (n *jsonNode) member(name string) *jsonField {
	for i := range n.keys {
		if n.keys[i].name == name {
			return &n.keys[i]
		}
	}
	return nil
}

// maxDepth bounds the nesting of a JSON value parseJSON accepts.
const maxDepth = 200

// errTooDeep is a JSON value nested over maxDepth levels.
var errTooDeep = errors.New("nested too deeply")

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
	p := &jsonParser{dec: dec, data: data}
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
		return &jsonError{off: p.start(), msg: fmt.Sprintf("not valid here: nested over %d levels deep", maxDepth)}
	}
	var je *jsonError
	if errors.As(err, &je) {
		return je
	}
	return &jsonError{off: p.start(), msg: "not valid JSON: " + err.Error()}
}

func (p *jsonParser) value(depth int) (*jsonNode, error) {
	if depth > maxDepth {
		return nil, errTooDeep
	}
	off := p.start()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	n := &jsonNode{off: off}
	switch t := tok.(type) {
	case json.Delim:
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

func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Truncate(b.Len() - 1)
}
