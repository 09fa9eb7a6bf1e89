package yamldoc

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// Most files Tessera reads are written in a small part of YAML: block
// mappings and lists, plain and quoted scalars on one line, literal and
// folded block scalars, and flow lists and mappings on one line for short
// lists and JSON Schemas. The fast reader below reads that part by hand,
// several times faster than the YAML parser and with a few allocations in
// all, into the tree the parser would build: the same kinds, styles,
// tags, values, lines and columns, with the nodes allocated in two blocks.
// Comments are skipped; they are not kept on the nodes as the parser
// keeps them, and nothing Tessera reads looks at them.
//
// The reader gives up, and ParseText reads the text again with the YAML
// parser, on anything outside that part or anything wrong: tabs, control
// characters, anchors, aliases and tags, document markers but a first
// "---", a key repeated, an empty value (null), a plain scalar over
// several lines, a key that is not text, a quoted scalar over several
// lines or with an escape it does not know, the merge key, more values
// than MaxNodes or nesting deeper than MaxDepth. So every diagnostic
// still comes from the parser, and a text the fast reader accepts gives
// the tree the parser would have made of it (FuzzFast checks this).

// fastKeys is the most keys a mapping of the fast subset has, each
// compared with those before it; a mapping with more is read by the
// parser, so that the comparisons stay few.
const fastKeys = 64

// freader reads a text in the fast subset of YAML. It first writes its
// nodes as fnodes, which hold no pointers, so that the garbage collector
// has nothing to scan in them; the tree of yaml.Nodes is then made in
// one block of the exact size (tree). The children of the open
// collections wait on a stack until their collection ends and they are
// moved next to each other in kids.
type freader struct {
	ftree
	i      int // the read position
	line   int // start of the line i is on
	lineNo int // the number of that line, from 1
	chars  bool
	depth  int // collections open
	max    int // the most nodes the text may hold (MaxNodes)
	bad    bool
	built  bool    // the last quoted scalar read is not a slice of the text
	open   []int32 // the children of the open collections
}

// An ftree is a document the fast reader read: its text and its nodes.
// The nodes are in the order they start in the text, so that the nodes
// of a subtree are next to each other, its root first. The decoder reads
// an ftree as it is (see node); yaml makes yaml.Nodes of it.
type ftree struct {
	text  string
	nodes []fnode  // in the order they start in the text
	vals  []string // the values that are not slices of the text
	kids  []int32  // the children of each collection, one after the other
}

// An fnode is a node of the fast reader, in 20 bytes.
type fnode struct {
	kind  uint8 // a yaml.Kind
	style uint8 // a yaml.Style
	tag   uint8 // in tags
	line  int32
	col   int32
	// A scalar's value is text[a:b], or vals[a] when b < 0; a
	// collection's children are kids[a:a+b].
	a, b int32
}

// tags are the tags of fnodes.
var tags = [...]string{"", "!!str", "!!int", "!!float", "!!bool", "!!null", "!!timestamp", "!!map", "!!seq"}

const (
	tagStr uint8 = iota + 1
	tagInt
	tagFloat
	tagBool
	tagNull
	tagTimestamp
	tagMap
	tagSeq
)

// fail marks the text as outside the fast subset.
func (r *freader) fail() { r.bad = true }

// node returns a new node of kind k and style at the byte off, which is
// on the current line.
func (r *freader) node(k yaml.Kind, style yaml.Style, off int) int32 {
	if len(r.nodes) >= r.max {
		// More values than the text may hold: the parser says so.
		// Every loop of the reader stops once it has failed.
		r.fail()
	}
	col := off - r.line + 1
	if r.chars {
		col = utf8.RuneCountInString(r.text[r.line:off]) + 1
	}
	r.nodes = append(r.nodes, fnode{kind: uint8(k), style: uint8(style), line: int32(r.lineNo), col: int32(col)})
	return int32(len(r.nodes) - 1)
}

// str returns the value of the scalar n.
func (t *ftree) str(n int32) string {
	f := &t.nodes[n]
	if f.b < 0 {
		return t.vals[f.a]
	}
	return t.text[f.a:f.b]
}

// setValue sets the value of the scalar n: v, the text from the byte at
// on, or a string of its own when at is negative.
func (r *freader) setValue(n int32, v string, at int) {
	f := &r.nodes[n]
	if at < 0 {
		if r.vals == nil {
			r.vals = make([]string, 0, 16)
		}
		f.a, f.b = int32(len(r.vals)), -1
		r.vals = append(r.vals, v)
		return
	}
	f.a, f.b = int32(at), int32(at+len(v))
}

// collection returns a new mapping or list at the byte off, and the
// place on the stack its children start at.
func (r *freader) collection(k yaml.Kind, style yaml.Style, off int) (int32, int) {
	if r.depth++; r.depth > MaxDepth {
		r.fail()
	}
	n := r.node(k, style, off)
	if k == yaml.MappingNode {
		r.nodes[n].tag = tagMap
	} else {
		r.nodes[n].tag = tagSeq
	}
	return n, len(r.open)
}

// end ends the collection n whose children start at from on the stack,
// moving them to kids.
func (r *freader) end(n int32, from int) {
	r.depth--
	f := &r.nodes[n]
	f.a, f.b = int32(len(r.kids)), int32(len(r.open)-from)
	r.kids = append(r.kids, r.open[from:]...)
	r.open = r.open[:from]
}

// push adds a child to the collection open last.
func (r *freader) push(n int32) { r.open = append(r.open, n) }

// repeated reports whether key is a key of the mapping whose children
// start at from on the stack, and fails when the mapping has many keys.
func (r *freader) repeated(from int, key string) bool {
	kids := r.open[from:]
	if len(kids) >= 2*fastKeys {
		r.fail() // many keys: the parser's check looks them up in a map
		return true
	}
	for i := 0; i < len(kids); i += 2 {
		if r.str(kids[i]) == key {
			return true
		}
	}
	return false
}

// scalar returns a scalar at the byte off: a plain one (style 0) with
// the tag YAML resolves for its value, any other tagged as text. A
// plain value is the text at off, a quoted one the text after the quote
// unless the quoted scalar read last was built (r.built).
func (r *freader) scalar(style yaml.Style, value string, off int) int32 {
	n := r.node(yaml.ScalarNode, style, off)
	switch {
	case style == 0:
		r.setValue(n, value, off)
	case style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 && !r.built:
		r.setValue(n, value, off+1)
	case style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		// Set by blockScalar once read.
	default:
		r.setValue(n, value, -1)
	}
	if style != 0 {
		r.nodes[n].tag = tagStr
		return n
	}
	tag, ok := resolvePlain(value)
	if !ok {
		r.fail()
	}
	r.nodes[n].tag = tag
	return n
}

// yaml makes the yaml.Nodes of the subtree at n: all in one block, and
// the Content of every collection cut from another.
func (t *ftree) yaml(n int32) *yaml.Node {
	end, kids := int32(len(t.nodes)), len(t.kids)
	if n > 0 {
		// A subtree: its nodes run to its last descendant.
		end, kids = t.end(n), 0
		for i := n; i < end; i++ {
			if f := &t.nodes[i]; f.kind != uint8(yaml.ScalarNode) {
				kids += int(f.b)
			}
		}
	}
	nodes := make([]yaml.Node, end-n)
	ptrs := make([]*yaml.Node, kids)
	kids = 0
	for i := n; i < end; i++ {
		f := &t.nodes[i]
		y := &nodes[i-n]
		y.Kind, y.Style, y.Tag, y.Line, y.Column = yaml.Kind(f.kind), yaml.Style(f.style), tags[f.tag], int(f.line), int(f.col)
		if y.Kind == yaml.ScalarNode {
			y.Value = t.str(i)
		} else if f.b > 0 {
			c := ptrs[kids : kids+int(f.b) : kids+int(f.b)]
			for j, k := range t.kids[f.a : f.a+f.b] {
				c[j] = &nodes[k-n]
			}
			y.Content = c
			kids += int(f.b)
		}
	}
	return &nodes[0]
}

// jsonSize returns about the size of the subtree at n written as
// compact JSON, from its values' lengths: enough for most, so that the
// JSON is written in one buffer.
func (t *ftree) jsonSize(n int32) int {
	size := 0
	for i, end := n, t.end(n); i < end; i++ {
		f := &t.nodes[i]
		switch {
		case f.kind != uint8(yaml.ScalarNode):
			size += 2
		case f.b < 0:
			size += len(t.vals[f.a]) + 4
		default:
			size += int(f.b-f.a) + 4
		}
	}
	return size
}

// end returns the index just past the last node of the subtree at n.
func (t *ftree) end(n int32) int32 {
	for {
		f := &t.nodes[n]
		if f.kind == uint8(yaml.ScalarNode) || f.b == 0 {
			return n + 1
		}
		n = t.kids[f.a+f.b-1]
	}
}

// fastCheck reports whether text holds only what the fast reader handles
// byte by byte: valid UTF-8 with no tab, no control character but '\n',
// no DEL, no C1 control (U+0085, NEL, among them), no U+2028 or U+2029
// (which the parser reports), no byte-order mark and no U+FFFE or
// U+FFFF. It reads eight bytes at a time while they are printable ASCII
// or '\n'. ascii is whether the text is all ASCII.
func fastCheck(text string) (ok, ascii bool) {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
		lows  = 0x7f7f7f7f7f7f7f7f
	)
	ascii = true
	for i := 0; i < len(text); {
		if i+8 <= len(text) {
			b := text[i : i+8] // one load, with no bounds check for each byte
			w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
				uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
			if w&highs == 0 {
				// Eight ASCII bytes: a byte plus at most 0x7f does not
				// carry into the next. The high bit of each byte of
				// below is set when the byte is under 0x20, of nl when
				// it is '\n', of del when it is 0x7f.
				below := ^(w + ones*(0x80-0x20)) & highs
				y := w ^ ones*'\n'
				nl := ^(y + lows) & highs
				del := (w + ones) & highs
				if below&^nl|del == 0 {
					i += 8
					continue
				}
			}
		}
		// Something to look at character by character.
		c := text[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' || c == 0x7f {
				return false, false
			}
			i++
			continue
		}
		ascii = false
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size == 1, r < 0xa0, r == '\u2028', r == '\u2029', r == '\ufeff', r == '\ufffe', r == '\uffff':
			return false, false
		}
		i += size
	}
	return true, ascii
}

// fastParse reads text, when it is in the fast subset, into the tree the
// YAML parser makes of it, whose top node is a block mapping or list;
// columns are counted in bytes when byteCols is set, in characters as
// the parser counts them otherwise. It reports false when it cannot.
func fastParse(text string, byteCols bool) (*yaml.Node, bool) {
	t, ok := fastRead(text, byteCols)
	if !ok {
		return nil, false
	}
	return t.yaml(0), true
}

// fastRead is fastParse without the yaml.Nodes: the document's nodes as
// the fast reader writes them, its top node first.
func fastRead(text string, byteCols bool) (ftree, bool) {
	ok, ascii := fastCheck(text)
	if !ok {
		return ftree{}, false
	}
	r := freader{ftree: ftree{text: text}, lineNo: 1, chars: !byteCols && !ascii, max: MaxNodes(len(text))}
	if !r.skipBlank() {
		return ftree{}, false
	}
	if strings.HasPrefix(r.text[r.i:], "---") && r.i == r.line {
		// The document's start marker, alone on its line.
		if !r.restBlank(r.i+3) || !r.skipBlank() {
			return ftree{}, false
		}
	}
	if !r.seqItem() && plainKeyLen(r.text[r.i:]) == 0 && r.text[r.i] != '"' && r.text[r.i] != '\'' {
		// Not a block list or mapping (JSON, say): left to the parser
		// before anything is allocated.
		return ftree{}, false
	}
	// Two nodes a line hold most files; a large one starts with fewer,
	// so that a text the reader gives up on costs little.
	r.nodes = make([]fnode, 0, min(16+2*strings.Count(text, "\n"), 2048))
	r.kids = make([]int32, 0, cap(r.nodes))
	r.open = make([]int32, 0, min(cap(r.nodes)/4, 64))
	indent := r.i - r.line
	r.block(indent)
	if r.bad || r.skipBlank() {
		return ftree{}, false // more text after the top node
	}
	return r.ftree, true
}

// lineEnd returns the end of the line i is on (its '\n', or the end).
func (r *freader) lineEnd(i int) int {
	if j := strings.IndexByte(r.text[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(r.text)
}

// nextLine moves to the start of the next line.
func (r *freader) nextLine() {
	e := r.lineEnd(r.i)
	if e < len(r.text) {
		e++
		r.lineNo++
	}
	r.i, r.line = e, e
}

// skipBlank moves past blank and comment lines to the first content
// byte of the next line that has one, from the start of a line, and
// reports whether there is one.
func (r *freader) skipBlank() bool {
	for r.i < len(r.text) {
		j := r.i
		for j < len(r.text) && r.text[j] == ' ' {
			j++
		}
		if j < len(r.text) && r.text[j] != '\n' && r.text[j] != '#' {
			r.i = j
			return true
		}
		r.i = j
		r.nextLine()
	}
	return false
}

// restBlank reports whether the line from i on holds nothing but spaces
// and a comment, and moves to the next line if so.
func (r *freader) restBlank(i int) bool {
	j := i
	for j < len(r.text) && r.text[j] == ' ' {
		j++
	}
	if j < len(r.text) && r.text[j] != '\n' && (r.text[j] != '#' || j == i) {
		return false
	}
	r.i = j
	r.nextLine()
	return true
}

// seqItem reports whether a list item ("- " or a lone "-") starts at i.
func (r *freader) seqItem() bool {
	t := r.text[r.i:]
	return len(t) > 0 && t[0] == '-' && (len(t) == 1 || t[1] == ' ' || t[1] == '\n')
}

// block reads the block node whose first line starts at i, at indent.
func (r *freader) block(indent int) int32 {
	if r.seqItem() {
		return r.seq(indent)
	}
	return r.mapping(indent)
}

// mapping reads a block mapping whose keys are at column indent, the
// first one at i.
func (r *freader) mapping(indent int) int32 {
	m, from := r.collection(yaml.MappingNode, 0, r.i)
	defer r.end(m, from)
	for !r.bad {
		off := r.i
		key, style, ok := r.key()
		if !ok || r.repeated(from, key) {
			// Not a key of the subset, or a repeated key: the parser's
			// check says where.
			r.fail()
			break
		}
		r.push(r.scalar(style, key, off))
		r.push(r.value(indent, true))
		if r.bad || !r.skipBlank() {
			break
		}
		if col := r.i - r.line; col != indent {
			if col > indent {
				r.fail()
			}
			break
		}
		if r.seqItem() {
			r.fail() // a list item where a key should be
		}
	}
	return m
}

// seq reads a block list whose items are at column indent, the first at
// i.
func (r *freader) seq(indent int) int32 {
	s, from := r.collection(yaml.SequenceNode, 0, r.i)
	defer r.end(s, from)
	for !r.bad {
		r.i++ // the '-'
		for r.i < len(r.text) && r.text[r.i] == ' ' {
			r.i++
		}
		switch {
		case r.i == len(r.text) || r.text[r.i] == '\n' || r.text[r.i] == '#':
			r.nextLine()
			if !r.skipBlank() || r.i-r.line <= indent {
				r.fail() // an empty item
				break
			}
			r.push(r.block(r.i - r.line))
		case r.seqItem():
			r.fail() // a list in a list on one line
		default:
			if r.keyAhead() {
				r.push(r.mapping(r.i - r.line))
			} else {
				r.push(r.value(indent, false))
			}
		}
		if r.bad || !r.skipBlank() {
			break
		}
		if col := r.i - r.line; col != indent || !r.seqItem() {
			if col > indent {
				r.fail()
			}
			break
		}
	}
	return s
}

// value reads the value after a key's ':' (inMap) or a list item's "- "
// at i, in a collection at column indent, through the end of its last
// line.
func (r *freader) value(indent int, inMap bool) int32 {
	for r.i < len(r.text) && r.text[r.i] == ' ' {
		r.i++
	}
	if r.i == len(r.text) || r.text[r.i] == '\n' || r.text[r.i] == '#' && r.text[r.i-1] == ' ' {
		// The value is on the lines below: more indented, or a list at
		// the key's own column.
		r.nextLine()
		if !r.skipBlank() {
			r.fail() // nothing: null
			return -1
		}
		col := r.i - r.line
		switch {
		case col > indent:
			return r.block(col)
		case col == indent && inMap && r.seqItem():
			return r.seq(col)
		}
		r.fail() // nothing: null
		return -1
	}
	switch off, c := r.i, r.text[r.i]; c {
	case '"', '\'':
		v, ok := r.quoted()
		n := r.scalar(quoteStyle(c), v, off)
		if !ok || !r.restBlank(r.i) {
			r.fail()
		}
		return n
	case '[', '{':
		n := r.flow()
		if !r.bad && !r.restBlank(r.i) {
			r.fail()
		}
		return n
	case '|', '>':
		return r.blockScalar(indent)
	}
	off := r.i
	e := r.lineEnd(r.i)
	v := r.text[r.i:e]
	// A comment starts at a '#' after a space; a ':' before a space or
	// at the end would make the value a mapping. Both are rare, so they
	// are looked for byte by byte only where they are.
	for j := 0; ; j++ {
		k := strings.IndexByte(v[j:], '#')
		if k < 0 {
			break
		}
		if j += k; j > 0 && v[j-1] == ' ' {
			v = v[:j-1]
			break
		}
	}
	v = strings.TrimRight(v, " ")
	for j := 0; ; j++ {
		k := strings.IndexByte(v[j:], ':')
		if k < 0 {
			break
		}
		if j += k; j+1 == len(v) || v[j+1] == ' ' {
			r.fail()
			break
		}
	}
	if !plainStart(v) {
		r.fail()
	}
	n := r.scalar(0, v, off)
	r.i = e
	r.nextLine()
	return n
}

// quoteStyle is the style of a scalar quoted with q.
func quoteStyle(q byte) yaml.Style {
	if q == '"' {
		return yaml.DoubleQuotedStyle
	}
	return yaml.SingleQuotedStyle
}

// plainStart reports whether v may start a plain scalar, in the fast
// subset: not with an indicator.
func plainStart(v string) bool {
	if v == "" {
		return false
	}
	switch v[0] {
	case '-':
		return len(v) > 1 && v[1] != ' '
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	}
	return true
}

// keyByte reports whether c may be in a plain key of the fast subset.
func keyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '$' || c == '.' || c == '-'
}

// plainKeyLen returns the length of the plain key at s, or 0: a letter,
// '_' or '$', then letters, digits and "_$.-".
func plainKeyLen(s string) int {
	if s == "" || !(keyByte(s[0]) && s[0] != '.' && s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return 0
	}
	n := 1
	for n < len(s) && keyByte(s[n]) {
		n++
	}
	return n
}

// keyAhead reports whether a key and ':' start at i (a mapping in a
// list item, "- key: value").
func (r *freader) keyAhead() bool {
	t := r.text[r.i:]
	n := plainKeyLen(t)
	if n == 0 && len(t) > 0 && (t[0] == '"' || t[0] == '\'') {
		save := r.i
		_, ok := r.quoted()
		n, r.i = r.i-save, save
		if !ok {
			return false
		}
	}
	return n > 0 && n < len(t) && t[n] == ':' && (n+1 == len(t) || t[n+1] == ' ' || t[n+1] == '\n')
}

// key reads a key and its ':' at i: its text and its style (0 for a
// plain key, which is text too).
func (r *freader) key() (k string, style yaml.Style, ok bool) {
	t := r.text[r.i:]
	if n := plainKeyLen(t); n > 0 {
		k = t[:n]
		r.i += n
		if isSpecialWord(k) {
			return k, 0, false
		}
	} else if len(t) > 0 && (t[0] == '"' || t[0] == '\'') {
		if k, ok = r.quoted(); !ok {
			return k, 0, false
		}
		style = quoteStyle(t[0])
	} else {
		return k, 0, false
	}
	t = r.text[r.i:]
	if len(t) == 0 || t[0] != ':' || len(t) > 1 && t[1] != ' ' && t[1] != '\n' {
		return k, 0, false
	}
	r.i++
	return k, style, true
}

// isSpecialWord reports whether a plain scalar is one YAML reads as
// something other than text or a number: a boolean, null, an infinity,
// not-a-number, negative zero or the merge key.
func isSpecialWord(v string) bool {
	_, ok := specialTag(v)
	return ok
}

// specialTag returns the tag (in tags) of a plain scalar YAML reads by
// its whole text, and whether v is one; the merge key has none the fast
// reader makes (0).
func specialTag(v string) (uint8, bool) {
	switch v {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return tagBool, true
	case "", "~", "null", "Null", "NULL":
		return tagNull, true
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", "-0", "-0.0":
		return tagFloat, true
	case "<<":
		return 0, true
	}
	return 0, false
}

// yamlFloat is the YAML parser's pattern of a float.
var yamlFloat = regexp.MustCompile(`^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$`)

// wordStart holds the first bytes of the words of specialTag but those
// of numbers: a plain scalar that starts with none of them, a digit, a
// sign or '.' is text.
var wordStart = [256]bool{'y': true, 'Y': true, 'n': true, 'N': true, 't': true, 'T': true, 'f': true, 'F': true, 'o': true, 'O': true, '~': true, '<': true}

// resolvePlain returns the tag the YAML parser gives the plain scalar v,
// by the same rules, in tags; ok is false for the merge key.
func resolvePlain(v string) (tag uint8, ok bool) {
	if v == "" {
		return tagNull, true
	}
	c := v[0]
	digit := '0' <= c && c <= '9'
	switch {
	case !digit && c != '+' && c != '-' && c != '.' && !wordStart[c]:
		return tagStr, true
	case plainDecimal(v) && len(v) < 19 && v != "-0":
		// A whole number written in decimal (the common case), well
		// within int64.
		return tagInt, true
	}
	if t, ok := specialTag(v); ok {
		return t, t != 0
	}
	switch {
	case c == '.':
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return tagFloat, true
		}
	case digit || c == '+' || c == '-':
		if isTimestamp(v) {
			return tagTimestamp, true
		}
		plain := strings.ReplaceAll(v, "_", "")
		if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return tagInt, true
		}
		if _, err := strconv.ParseUint(strings.TrimPrefix(plain, "+"), 0, 64); err == nil {
			return tagInt, true
		}
		if yamlFloat.MatchString(plain) {
			if _, err := strconv.ParseFloat(plain, 64); err == nil {
				return tagFloat, true
			}
		}
	}
	return tagStr, true
}

// timestampFormats are the forms of a timestamp the YAML parser reads.
var timestampFormats = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

// isTimestamp reports whether the YAML parser reads the plain scalar s as
// a timestamp: four digits, '-', and one of its forms.
func isTimestamp(s string) bool {
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, f := range timestampFormats {
		if _, err := time.Parse(f, s); err == nil {
			return true
		}
	}
	return false
}

// quoted reads a quoted scalar on one line at i and moves past it;
// r.built says whether its value is a string of its own (it had an
// escape) or a slice of the text.
func (r *freader) quoted() (string, bool) {
	r.built = false
	q := r.text[r.i]
	start := r.i + 1
	e := r.lineEnd(start)
	line := r.text[start:e]
	if q == '\'' {
		var b []byte // only for a quote written twice
		for j := 0; j < len(line); j++ {
			if line[j] != '\'' {
				if b != nil {
					b = append(b, line[j])
				}
				continue
			}
			if j+1 < len(line) && line[j+1] == '\'' {
				if b == nil {
					b = append(make([]byte, 0, len(line)), line[:j]...)
				}
				b = append(b, '\'')
				j++
				continue
			}
			r.i = start + j + 1
			if b == nil {
				return line[:j], true
			}
			r.built = true
			return string(b), true
		}
		return "", false
	}
	var b []byte // only for an escape
	for j := 0; j < len(line); j++ {
		c := line[j]
		switch c {
		case '"':
			r.i = start + j + 1
			if b == nil {
				return line[:j], true
			}
			r.built = true
			return string(b), true
		case '\\':
			if j+1 == len(line) {
				return "", false
			}
			var v byte
			switch line[j+1] {
			case '"', '\\', '/':
				v = line[j+1]
			case 'n':
				v = '\n'
			case 't':
				v = '\t'
			default:
				return "", false // an escape the fast reader leaves to the parser
			}
			if b == nil {
				b = append(make([]byte, 0, len(line)), line[:j]...)
			}
			b = append(b, v)
			j++
			continue
		}
		if b != nil {
			b = append(b, c)
		}
	}
	return "", false
}

// blockScalar reads a literal (|) or folded (>) block scalar whose
// indicator is at i, in a collection at column indent.
func (r *freader) blockScalar(indent int) int32 {
	style := yaml.LiteralStyle
	if r.text[r.i] == '>' {
		style = yaml.FoldedStyle
	}
	folded := style == yaml.FoldedStyle
	n := r.scalar(style, "", r.i)
	r.i++
	chomp := byte(0)
	if r.i < len(r.text) && (r.text[r.i] == '-' || r.text[r.i] == '+') {
		chomp = r.text[r.i]
		r.i++
	}
	if r.i < len(r.text) && r.text[r.i] != ' ' && r.text[r.i] != '\n' || !r.restBlank(r.i) {
		r.fail() // an indentation indicator, or text after the header
		return n
	}
	// The content's indent is the first line's; a first line that is
	// blank or less indented than the collection is left to the parser.
	first := r.i
	m := 0
	for first+m < len(r.text) && r.text[first+m] == ' ' {
		m++
	}
	if m <= indent || first+m == len(r.text) || r.text[first+m] == '\n' {
		r.fail()
		return n
	}
	// The content runs to the first line less indented than m that is
	// not blank; it is read twice, to size the value and to write it.
	var b strings.Builder
	for pass := 0; pass < 2; pass++ {
		lines, blanks := 0, 0 // content lines, and blank lines since the last
		pos := first
		for pos < len(r.text) {
			e := r.lineEnd(pos)
			sp := 0
			for pos+sp < e && r.text[pos+sp] == ' ' {
				sp++
			}
			if pos+sp == e { // a blank line
				if sp > m {
					r.fail() // spaces that are content
					return n
				}
				blanks++
				pos = min(e+1, len(r.text))
				continue
			}
			if sp < m {
				break // the scalar ends
			}
			if e == len(r.text) || folded && sp > m {
				// No final line break, or a more indented line in a
				// folded scalar (which keeps its line breaks): left to
				// the parser.
				r.fail()
				return n
			}
			if pass == 1 {
				switch {
				case lines == 0:
				case !folded:
					b.WriteByte('\n')
					for range blanks {
						b.WriteByte('\n')
					}
				case blanks == 0:
					b.WriteByte(' ')
				default:
					for range blanks {
						b.WriteByte('\n')
					}
				}
				b.WriteString(r.text[pos+m : e])
			}
			lines++
			blanks = 0
			pos = e + 1
		}
		if pass == 0 {
			b.Grow(pos - first + 1)
			continue
		}
		switch chomp {
		case 0:
			b.WriteByte('\n')
		case '+':
			b.WriteByte('\n')
			for range blanks {
				b.WriteByte('\n')
			}
		}
		r.lineNo += strings.Count(r.text[first:pos], "\n")
		r.i, r.line = pos, pos
	}
	r.setValue(n, b.String(), -1)
	return n
}

// flow reads a flow list or mapping that starts at i and ends on the same
// line.
func (r *freader) flow() int32 {
	return r.flowNode(r.lineEnd(r.i))
}

// skipSpaces moves past spaces, up to e.
func (r *freader) skipSpaces(e int) {
	for r.i < e && r.text[r.i] == ' ' {
		r.i++
	}
}

// flowNode reads the flow node at i, which ends before e.
func (r *freader) flowNode(e int) int32 {
	r.skipSpaces(e)
	if r.i >= e || r.bad {
		r.fail()
		return -1
	}
	switch r.text[r.i] {
	case '[':
		s, from := r.collection(yaml.SequenceNode, yaml.FlowStyle, r.i)
		defer r.end(s, from)
		r.i++
		for !r.bad {
			r.skipSpaces(e)
			if r.i < e && r.text[r.i] == ']' {
				r.i++
				return s
			}
			r.push(r.flowNode(e))
			r.skipSpaces(e)
			switch {
			case r.i < e && r.text[r.i] == ',':
				r.i++
			case r.i < e && r.text[r.i] == ']':
				r.i++
				return s
			default:
				r.fail() // a "key: value" pair in a list, or the line ends
			}
		}
		return s
	case '{':
		m, from := r.collection(yaml.MappingNode, yaml.FlowStyle, r.i)
		defer r.end(m, from)
		r.i++
		for !r.bad {
			r.skipSpaces(e)
			if r.i < e && r.text[r.i] == '}' {
				r.i++
				return m
			}
			off := r.i
			key, style, ok := r.key()
			if !ok || r.i >= e || r.text[r.i] != ' ' || r.repeated(from, key) {
				r.fail()
				return m
			}
			r.push(r.scalar(style, key, off))
			r.push(r.flowNode(e))
			r.skipSpaces(e)
			switch {
			case r.i < e && r.text[r.i] == ',':
				r.i++
			case r.i < e && r.text[r.i] == '}':
				r.i++
				return m
			default:
				r.fail()
			}
		}
		return m
	case '"', '\'':
		off, q := r.i, r.text[r.i]
		v, ok := r.quoted()
		if !ok {
			r.fail()
		}
		return r.scalar(quoteStyle(q), v, off)
	}
	// A plain scalar ends at a flow indicator or at a ':' that is not
	// followed by text.
	off := r.i
	j := r.i
	for ; j < e; j++ {
		c := r.text[j]
		if c == ',' || c == '[' || c == ']' || c == '{' || c == '}' {
			break
		}
		if c == ':' && (j+1 == e || strings.IndexByte(" ,[]{}", r.text[j+1]) >= 0) {
			break
		}
		if c == '#' && r.text[j-1] == ' ' {
			r.fail() // a comment: the rest of the list is on other lines
			break
		}
	}
	v := strings.TrimRight(r.text[r.i:j], " ")
	if !plainStart(v) {
		r.fail()
	}
	r.i = j
	return r.scalar(0, v, off)
}
