package yamldoc

import (
	"fmt"
	"github.com/tessera-dev/tessera/internal/jsonesc"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/prompt"
)

// The JSON front end reads a JSON document into the same node tree the
// YAML parser gives (mappings, sequences and scalars tagged !!str, !!int,
// !!float, !!bool and !!null, each at its line and column), so that a
// Schema and every Unmarshaler decode a JSON file exactly as they decode
// its YAML reading, with the JSON text read some hundred times faster:
// strings without escapes are slices of the text, and the nodes are
// allocated in blocks.
//
// It keeps the rules of the YAML layer: a key repeated in an object is
// an error naming both of its lines, values nest at most MaxDepth deep,
// and a document holds at most MaxNodes values (for a list read item by
// item, the items' stubs and the nodes of the item being read), each
// checked before the node is made.

// MaxJSONDepth is how deeply arrays and objects may nest in a JSON
// document: MaxDepth, as in YAML.
const MaxJSONDepth = MaxDepth

// IsJSON reports whether the file path, holding data, is to be read as
// JSON: its extension is .json, or its extension does not say (neither
// .json nor .yaml nor .yml; standard input has none) and its first byte
// that is not white space (after any byte-order mark) is '{' or '['.
func IsJSON(path string, data []byte) bool { return isJSON(path, data) }

func isJSON[T string | []byte](path string, data T) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return true
	case ".yaml", ".yml":
		return false
	}
	return sniffJSON(data)
}

// sniffJSON reports whether the first byte of data that is not white
// space or a byte-order mark opens a JSON array or object.
func sniffJSON[T string | []byte](data T) bool {
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case 0xEF:
			if i+2 < len(data) && data[i+1] == 0xBB && data[i+2] == 0xBF {
				i += 2
				continue
			}
		case '{', '[':
			return true
		}
		return false
	}
	return false
}

// ParseFile reads data, the file path, as JSON with ParseJSON when IsJSON
// says it is JSON, and as YAML with Parse otherwise. A document taken
// for JSON by its first byte alone (not by a .json extension) that is not
// valid JSON is read as YAML, which also writes "{a: 1}"; when YAML
// cannot read it either, the JSON error is returned.
func (p Parser) ParseFile(path string, data []byte) (*yaml.Node, error) {
	if !IsJSON(path, data) {
		return p.Parse(path, data)
	}
	text, err := prompt.Normalize(data)
	if err != nil {
		return nil, diag.List{p.EncodingError(path, err)}
	}
	return p.ParseFileText(path, text)
}

// ParseFileText is ParseFile for text already normalised (see
// prompt.Normalize).
func (p Parser) ParseFileText(path, text string) (*yaml.Node, error) {
	if !isJSON(path, text) {
		return p.ParseText(path, text)
	}
	top, jerr := p.ParseJSONText(path, text)
	if jerr == nil || strings.EqualFold(filepath.Ext(path), ".json") || !isSyntaxError(jerr) {
		return top, jerr
	}
	if top, err := p.ParseText(path, text); err == nil {
		return top, nil
	}
	return nil, jerr
}

// isSyntaxError reports whether err, from ParseJSONText, is a syntax
// error rather than the repeated keys of a valid document.
func isSyntaxError(err error) bool {
	l, ok := err.(diag.List)
	return ok && len(l) == 1 && strings.HasPrefix(l[0].Msg, "not valid JSON")
}

// ParseJSON normalises data (see prompt.Normalize) and parses it with
// ParseJSONText.
func (p Parser) ParseJSON(path string, data []byte) (*yaml.Node, error) {
	text, err := prompt.Normalize(data)
	if err != nil {
		return nil, diag.List{p.EncodingError(path, err)}
	}
	return p.ParseJSONText(path, text)
}

// ParseJSONText parses the normalised text of the file path (used in
// diagnostics only) as one JSON value and returns its top node, or nil
// when the text is empty or only white space. The tree is the one the
// YAML parser gives for the same text: objects are mappings and arrays
// sequences (in flow style), strings are double-quoted !!str scalars,
// numbers are !!int when they are whole numbers that fit in 64 bits and
// !!float otherwise, with their value as written; true, false and null
// are !!bool and !!null. Each node is at the line and column of its first
// byte (in bytes with p.Columns, in characters otherwise, as the YAML
// parser counts them).
//
// Every problem is a diag.List entry at its line (and column with
// p.Columns) saying what to do: a syntax error (the first one ends the
// reading), a value nested more than MaxJSONDepth deep, and each key
// repeated in an object, named by its dotted path with the line of its
// first occurrence.
func (p Parser) ParseJSONText(path, text string) (*yaml.Node, error) {
	r := newJSONReader(path, text, p.Columns)
	r.space()
	if r.off == len(r.text) {
		return nil, nil
	}
	top := r.value()
	r.end()
	if err := r.result(); err != nil {
		return nil, err
	}
	return top, nil
}

// end checks that nothing but white space follows the value read.
func (r *jsonReader) end() {
	if r.err != nil {
		return
	}
	r.space()
	if r.off < len(r.text) {
		r.fail(r.off, "found %s after the JSON value: a JSON file holds one value; remove the rest, or put the values in a list", r.found(r.off))
	}
}

// jsonReader is the state of one reading of a JSON text.
type jsonReader struct {
	path string
	text string
	off  int // the next byte to read
	cols bool

	line      int // the line of off
	lineStart int // the byte offset where that line starts
	// Without cols, character columns: charOff is a byte offset on the
	// current line whose column in characters is charCol.
	charOff, charCol int

	depth int
	comma mark        // the last comma read
	err   *diag.Error // the syntax error that ended the reading
	dups  diag.List   // repeated keys

	// made counts the nodes made since the last reset, stubs the stubs
	// of a list read item by item: together at most maxNodes.
	made, stubs, maxNodes int

	nodes []yaml.Node   // the block nodes are allocated from
	ptrs  []*yaml.Node  // the block Content slices are cut from
	open  []*yaml.Node  // the children of the open arrays and objects
	at    []pathSegment // where the value being read is, for messages
	keys  []keySeen     // the keys of the open objects, innermost last
}

// pathSegment is a step of a dotted path: a key, or an index when key is
// unset.
type pathSegment struct {
	key   string
	isKey bool
	index int
}

// dottedPath writes steps as a dotted path: keys joined by ".", an index
// as "[i]" ("tools[2].name").
func dottedPath(steps []pathSegment) string {
	var b strings.Builder
	for _, s := range steps {
		if s.isKey {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		} else {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		}
	}
	return b.String()
}

// keySeen is a key of an open object, with its line.
type keySeen struct {
	key  string
	line int
}

// manyKeys is the number of keys from which an object's keys are looked
// up in a map rather than by a scan.
const manyKeys = 16

func newJSONReader(path, text string, cols bool) *jsonReader {
	return &jsonReader{path: path, text: text, cols: cols, line: 1, charCol: 1, maxNodes: MaxNodes(len(text))}
}

// result returns the problems found, or nil.
func (r *jsonReader) result() error {
	if r.err != nil {
		return diag.List{r.err}
	}
	if len(r.dups) > 0 {
		return r.dups
	}
	return nil
}

// col returns the column of the byte off, which is on the current line.
func (r *jsonReader) col(off int) int {
	if r.cols {
		return off - r.lineStart + 1
	}
	if off < r.charOff || r.charOff < r.lineStart {
		r.charOff, r.charCol = r.lineStart, 1
	}
	r.charCol += utf8.RuneCountInString(r.text[r.charOff:off])
	r.charOff = off
	return r.charCol
}

// node returns a new node of kind k at the byte off, or nil, the reading
// ended, when the document holds too many.
func (r *jsonReader) node(k yaml.Kind, off int) *yaml.Node {
	if !r.more(off) {
		return nil
	}
	if len(r.nodes) == cap(r.nodes) {
		r.nodes = make([]yaml.Node, 0, min(max(2*cap(r.nodes), 16), 4096))
	}
	r.nodes = append(r.nodes, yaml.Node{Kind: k, Line: r.line, Column: r.col(off)})
	return &r.nodes[len(r.nodes)-1]
}

// more counts a node to be made at the byte off, and reports whether
// the document may hold it; when it may not, the reading ends.
func (r *jsonReader) more(off int) bool {
	if r.made++; r.made+r.stubs <= r.maxNodes {
		return true
	}
	if r.err == nil {
		r.err = errTooManyNodes(r.path, r.line, r.maxNodes)
		if r.cols {
			r.err.Col = r.col(off)
		}
	}
	return false
}

// content moves the children of the collection opened at open[from:]
// into a slice of their own.
func (r *jsonReader) content(from int) []*yaml.Node {
	kids := r.open[from:]
	n := len(kids)
	if n == 0 {
		return nil
	}
	if cap(r.ptrs)-len(r.ptrs) < n {
		r.ptrs = make([]*yaml.Node, 0, max(n, min(max(2*cap(r.ptrs), 64), 16384)))
	}
	start := len(r.ptrs)
	r.ptrs = append(r.ptrs, kids...)
	clear(kids)
	r.open = r.open[:from]
	return r.ptrs[start : start+n : start+n]
}

// reset lets the blocks be used again once no node read so far is
// needed: the next nodes overwrite them.
func (r *jsonReader) reset() {
	r.made = 0
	r.nodes = r.nodes[:0]
	clear(r.ptrs)
	r.ptrs = r.ptrs[:0]
}

// fail ends the reading with a syntax error at the byte off of the
// current line.
func (r *jsonReader) fail(off int, format string, args ...any) {
	if r.err != nil {
		return
	}
	r.err = diag.Errorf(r.path, r.line, "not valid JSON: "+format, args...)
	if r.cols {
		r.err.Col = r.col(off)
	}
}

// mark is a place in the text: a byte offset, its line and where that
// line starts.
type mark struct{ off, line, lineStart int }

// failAt ends the reading with a syntax error at m, a place before the
// current one.
func (r *jsonReader) failAt(m mark, format string, args ...any) {
	if r.err != nil {
		return
	}
	r.err = diag.Errorf(r.path, m.line, "not valid JSON: "+format, args...)
	if r.cols {
		r.err.Col = m.off - m.lineStart + 1
	}
}

// space skips white space, counting lines. A comment is a syntax error
// that says so.
func (r *jsonReader) space() {
	for r.off < len(r.text) {
		switch r.text[r.off] {
		case ' ', '\t', '\r':
			r.off++
		case '\n':
			r.off++
			r.line++
			r.lineStart = r.off
		default:
			return
		}
	}
}

// found words the text at off for a message: the character there, or the
// end of the text.
func (r *jsonReader) found(off int) string {
	if off >= len(r.text) {
		return "the end of the text"
	}
	c, _ := utf8.DecodeRuneInString(r.text[off:])
	switch c {
	case '#':
		return "\"#\" (JSON has no comments: remove the comment, or write the file as YAML)"
	case '/':
		return "\"/\" (JSON has no comments: remove the comment)"
	case '\'':
		return "\"'\" (JSON strings are in double quotes)"
	}
	if c < 0x20 || c == 0x7F {
		return fmt.Sprintf("the control character %U", c)
	}
	return strconv.Quote(string(c))
}

// value reads one value at r.off (white space skipped) and returns its
// node, or nil after a syntax error.
func (r *jsonReader) value() *yaml.Node {
	if r.off >= len(r.text) {
		r.fail(r.off, "the text ends where a value should be: write the value, or remove the \",\" or \":\" before it")
		return nil
	}
	switch c := r.text[r.off]; c {
	case '{':
		return r.object()
	case '[':
		return r.array(nil)
	case '"':
		n := r.node(yaml.ScalarNode, r.off)
		if n == nil {
			return nil
		}
		n.Tag, n.Style = "!!str", yaml.DoubleQuotedStyle
		s, ok := r.str()
		if !ok {
			return nil
		}
		n.Value = s
		return n
	case 't', 'f', 'n':
		for _, w := range [...]struct{ word, tag string }{{"true", "!!bool"}, {"false", "!!bool"}, {"null", "!!null"}} {
			if strings.HasPrefix(r.text[r.off:], w.word) && !wordByte(r.text, r.off+len(w.word)) {
				n := r.node(yaml.ScalarNode, r.off)
				if n == nil {
					return nil
				}
				n.Tag, n.Value = w.tag, w.word
				r.off += len(w.word)
				return n
			}
		}
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return r.number()
		}
	}
	end := r.off
	for wordByte(r.text, end) {
		end++
	}
	if end > r.off+1 {
		r.fail(r.off, "found %q where a value should be: write text in double quotes, a number, true, false, null, an object {...} or a list [...]", clip(r.text[r.off:end]))
	} else {
		r.fail(r.off, "found %s where a value should be: write text in double quotes, a number, true, false, null, an object {...} or a list [...]", r.found(r.off))
	}
	return nil
}

// wordByte reports whether text[i] continues a bare word.
func wordByte(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	c := text[i]
	return c == '_' || c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf
}

// enter notes that an array or object opens at off, refusing one nested
// too deeply.
func (r *jsonReader) enter(off int) bool {
	r.depth++
	if r.depth > MaxJSONDepth {
		r.fail(off, "arrays and objects are nested more than %d deep here: flatten the data", MaxJSONDepth)
		return false
	}
	return true
}

// array reads an array at r.off. With each set, each item is given to
// each as soon as it is read, and its nodes are then used again for the
// next item: the array's node (not in the blocks) gets in its Content a
// stub of each item, a copy of its node without its value or content.
func (r *jsonReader) array(each func(i int, v *yaml.Node)) *yaml.Node {
	open := r.off
	var n *yaml.Node
	if each == nil {
		n = r.node(yaml.SequenceNode, open)
	} else if r.more(open) {
		n = &yaml.Node{Kind: yaml.SequenceNode, Line: r.line, Column: r.col(open)}
	}
	if n == nil {
		return nil
	}
	n.Tag, n.Style = "!!seq", yaml.FlowStyle
	if !r.enter(open) {
		return nil
	}
	openLine, openCol := n.Line, n.Column
	r.off++
	from := len(r.open)
	var stubs []yaml.Node
	r.at = append(r.at, pathSegment{})
	for i := 0; ; i++ {
		r.space()
		if r.off < len(r.text) && r.text[r.off] == ']' {
			if i > 0 {
				r.failAt(r.comma, "a \",\" before \"]\": remove the trailing comma")
				return nil
			}
			break
		}
		r.at[len(r.at)-1].index = i
		v := r.value()
		if v == nil {
			return nil
		}
		if each != nil {
			each(i, v)
			if len(stubs) == cap(stubs) {
				stubs = make([]yaml.Node, 0, min(max(2*cap(stubs), 16), 4096))
			}
			stubs = append(stubs, yaml.Node{Kind: v.Kind, Tag: v.Tag, Style: v.Style, Line: v.Line, Column: v.Column})
			v = &stubs[len(stubs)-1]
			r.reset()
			if r.stubs++; !r.more(r.off) {
				return nil
			}
		}
		r.open = append(r.open, v)
		r.space()
		if r.off < len(r.text) && r.text[r.off] == ',' {
			r.comma = mark{r.off, r.line, r.lineStart}
			r.off++
			continue
		}
		if r.off < len(r.text) && r.text[r.off] == ']' {
			break
		}
		r.unclosed(']', "list", openLine, openCol)
		return nil
	}
	r.off++
	r.depth--
	r.at = r.at[:len(r.at)-1]
	if each != nil {
		n.Content = make([]*yaml.Node, len(r.open)-from)
		copy(n.Content, r.open[from:])
		clear(r.open[from:])
		r.open = r.open[:from]
	} else {
		n.Content = r.content(from)
	}
	return n
}

// unclosed reports what follows an item or member of a list or object
// opened at openLine:openCol that is neither a comma nor its end.
func (r *jsonReader) unclosed(end byte, what string, openLine, openCol int) {
	if r.off >= len(r.text) {
		r.fail(r.off, "the text ends inside the %s opened at line %d, column %d: close it with %q", what, openLine, openCol, end)
		return
	}
	article := "a"
	if what == "object" {
		article = "an"
	}
	r.fail(r.off, "found %s after a value in %s %s: separate its values with \",\", or close it with %q", r.found(r.off), article, what, end)
}

// object reads an object at r.off.
func (r *jsonReader) object() *yaml.Node {
	open := r.off
	n := r.node(yaml.MappingNode, open)
	if n == nil {
		return nil
	}
	n.Tag, n.Style = "!!map", yaml.FlowStyle
	if !r.enter(open) {
		return nil
	}
	openLine, openCol := n.Line, n.Column
	r.off++
	from, keysFrom := len(r.open), len(r.keys)
	var many map[string]int // the keys' lines, once the object has many
	r.at = append(r.at, pathSegment{isKey: true})
	for i := 0; ; i++ {
		r.space()
		if r.off < len(r.text) && r.text[r.off] == '}' {
			if i > 0 {
				r.failAt(r.comma, "a \",\" before \"}\": remove the trailing comma")
				return nil
			}
			break
		}
		if r.off >= len(r.text) || r.text[r.off] != '"' {
			if r.off >= len(r.text) {
				r.unclosed('}', "object", openLine, openCol)
			} else {
				r.fail(r.off, "found %s where a key should be: write the key in double quotes, \"key\": value", r.found(r.off))
			}
			return nil
		}
		k := r.node(yaml.ScalarNode, r.off)
		if k == nil {
			return nil
		}
		k.Tag, k.Style = "!!str", yaml.DoubleQuotedStyle
		s, ok := r.str()
		if !ok {
			return nil
		}
		k.Value = s
		r.at[len(r.at)-1].key = s
		many = r.seen(k, keysFrom, many)
		r.space()
		if r.off >= len(r.text) || r.text[r.off] != ':' {
			r.fail(r.off, "found %s after the key %q: write \":\" and the key's value", r.found(r.off), clip(s))
			return nil
		}
		r.off++
		r.space()
		v := r.value()
		if v == nil {
			return nil
		}
		r.open = append(r.open, k, v)
		r.space()
		if r.off < len(r.text) && r.text[r.off] == ',' {
			r.comma = mark{r.off, r.line, r.lineStart}
			r.off++
			continue
		}
		if r.off < len(r.text) && r.text[r.off] == '}' {
			break
		}
		r.unclosed('}', "object", openLine, openCol)
		return nil
	}
	r.off++
	r.depth--
	r.at = r.at[:len(r.at)-1]
	clear(r.keys[keysFrom:])
	r.keys = r.keys[:keysFrom]
	n.Content = r.content(from)
	return n
}

// seen records the key k of the object whose keys start at keys[from],
// reporting it when it is repeated; many holds the keys once there are
// many of them, and is returned.
func (r *jsonReader) seen(k *yaml.Node, from int, many map[string]int) map[string]int {
	first := 0
	if many != nil {
		if line, ok := many[k.Value]; ok {
			first = line
		} else {
			many[k.Value] = k.Line
		}
	} else {
		for _, o := range r.keys[from:] {
			if o.key == k.Value {
				first = o.line
				break
			}
		}
		if first == 0 {
			r.keys = append(r.keys, keySeen{k.Value, k.Line})
			if len(r.keys)-from >= manyKeys {
				many = make(map[string]int, 2*manyKeys)
				for _, o := range r.keys[from:] {
					many[o.key] = o.line
				}
			}
		}
	}
	if first > 0 {
		e := diag.Errorf(r.path, k.Line, "key %q is repeated (first at line %d): keep one", r.dotted(), first)
		if r.cols {
			e.Col = k.Column
		}
		r.dups = append(r.dups, e)
	}
	return many
}

// dotted returns the dotted path of the value being read, as the YAML
// layer names it: "tools[2].name".
func (r *jsonReader) dotted() string {
	return dottedPath(r.at)
}

// str reads a string at r.off, its opening quote. A string without
// escapes is a slice of the text.
func (r *jsonReader) str() (string, bool) {
	start := r.off + 1
	i := start
	for i < len(r.text) {
		c := r.text[i]
		if c == '"' {
			r.off = i + 1
			return r.text[start:i], true
		}
		if c == '\\' {
			return r.escaped(start, i)
		}
		if c < 0x20 {
			r.ctl(i)
			return "", false
		}
		i++
	}
	r.off = start - 1
	r.fail(r.off, "the text ends inside this string: close it with '\"'")
	return "", false
}

// ctl reports the control character at i inside a string.
func (r *jsonReader) ctl(i int) {
	if r.text[i] == '\n' {
		r.fail(i, "the string goes past the end of its line: close it with '\"', or write a line break inside it as \\n")
		return
	}
	r.fail(i, "the control character %U inside a string: write it as \\u%04X", rune(r.text[i]), r.text[i])
}

// escaped reads the rest of a string from its first escape at i, the
// text before it starting at start.
func (r *jsonReader) escaped(start, i int) (string, bool) {
	var b strings.Builder
	b.Grow(i - start + 16)
	b.WriteString(r.text[start:i])
	for i < len(r.text) {
		c := r.text[i]
		switch {
		case c == '"':
			r.off = i + 1
			return b.String(), true
		case c < 0x20:
			r.ctl(i)
			return "", false
		case c != '\\':
			j := i + 1
			for j < len(r.text) && r.text[j] != '"' && r.text[j] != '\\' && r.text[j] >= 0x20 {
				j++
			}
			b.WriteString(r.text[i:j])
			i = j
			continue
		}
		if i+1 >= len(r.text) {
			break
		}
		e := r.text[i+1]
		if c, ok := jsonesc.Byte(e); ok {
			b.WriteByte(c)
			i += 2
			continue
		}
		switch e {
		case 'u':
			c, ok := hex4(r.text, i+2)
			if !ok {
				r.fail(i, "\\u needs four hex digits, as in \\u00e9")
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(c) {
				if c2, ok := hex4(r.text, i+2); ok && i+1 < len(r.text) && r.text[i] == '\\' && r.text[i+1] == 'u' {
					if d := utf16.DecodeRune(c, c2); d != utf8.RuneError {
						i += 6
						c = d
					}
				}
				if utf16.IsSurrogate(c) {
					c = utf8.RuneError
				}
			}
			b.WriteRune(c)
			continue
		default:
			bad, _ := utf8.DecodeRuneInString(r.text[i+1:])
			r.fail(i, `the escape \%s is not JSON: write \\ for a backslash; the escapes are \" \\ \/ \b \f \n \r \t \uXXXX`, string(bad))
			return "", false
		}
	}
	r.off = start - 1
	r.fail(r.off, "the text ends inside this string: close it with '\"'")
	return "", false
}

// hex4 reads the four hex digits at text[i:].
func hex4(text string, i int) (rune, bool) {
	if i+4 > len(text) {
		return 0, false
	}
	var c rune
	for _, h := range []byte(text[i : i+4]) {
		switch {
		case h >= '0' && h <= '9':
			h -= '0'
		case h >= 'a' && h <= 'f':
			h -= 'a' - 10
		case h >= 'A' && h <= 'F':
			h -= 'A' - 10
		default:
			return 0, false
		}
		c = c<<4 | rune(h)
	}
	return c, true
}

// number reads a number at r.off: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
// It is an !!int when it is whole and fits in 64 bits (signed or not),
// as the YAML parser reads it, and a !!float otherwise (-0 too, which
// YAML reads as the float -0.0).
func (r *jsonReader) number() *yaml.Node {
	start, i := r.off, r.off
	t := r.text
	digits := func() int {
		j := i
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		return i - j
	}
	whole := true
	if t[i] == '-' {
		i++
	}
	intStart := i
	nd := digits()
	ok := nd > 0 && (nd == 1 || t[intStart] != '0')
	if ok && i < len(t) && t[i] == '.' {
		i++
		whole = false
		ok = digits() > 0
	}
	if ok && i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		whole = false
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		ok = digits() > 0
	}
	if !ok || wordByte(t, i) {
		end := i
		for wordByte(t, end) {
			end++
		}
		r.fail(start, "the number %q is not written as JSON writes numbers: digits with no leading zeros, an optional fraction (.5) and exponent (e3); quote it to use it as text", clip(t[start:max(end, start+1)]))
		return nil
	}
	n := r.node(yaml.ScalarNode, start)
	if n == nil {
		return nil
	}
	n.Value = t[start:i]
	n.Tag = "!!float"
	if whole && n.Value != "-0" && fitsInt(n.Value) {
		n.Tag = "!!int"
	}
	r.off = i
	return n
}

// fitsInt reports whether the whole number s fits in an int64, or, when
// it is not negative, a uint64.
func fitsInt(s string) bool {
	if len(s) < 18 {
		return true
	}
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return true
	}
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}
