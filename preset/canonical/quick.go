package canonical

import (
	"strings"

	"github.com/tessera-dev/tessera/internal/yamldoc"
)

// Most specs are written in a small part of YAML: block mappings and
// lists, plain and quoted scalars on one line, literal and folded block
// scalars, and flow lists and mappings on one line for short lists and
// JSON Schemas. The quick reader below reads that part by hand, several
// times faster than the full YAML parser and with a few allocations in
// all, into a tree of qnodes; quickSpec then decodes the tree into a Spec
// (decodequick.go).
//
// The reader gives up, and ParseSpec reads the text again with the full
// parser (internal/yamldoc), on anything outside that part or anything
// wrong: tabs, control characters, anchors, aliases and tags, document
// markers but a first "---", a key repeated, a plain scalar over several lines or one YAML
// would read as true, false or null, a quoted scalar over several lines
// or with an escape it does not know, and every problem of the spec
// itself. So every diagnostic still comes from the full parser, and a
// spec the quick reader accepts decodes to what the full parser would
// have made of it (FuzzQuickSpec checks this).

// qkind is the kind of a qnode.
type qkind uint8

const (
	qScalar qkind = iota
	qMap
	qSeq
)

// A qnode is one node of the quick reader's tree. Children are linked: a
// mapping's are its keys and values in turn.
type qnode struct {
	kind qkind
	// text is true for a quoted or block scalar, whose value is text
	// whatever it looks like; a plain scalar's may be a number or a
	// boolean.
	text  bool
	value string
	first int32 // first child, or -1
	last  int32 // last child, or -1
	next  int32 // next sibling, or -1
	n     int32 // number of children
}

// quickKeys is the most keys a mapping of the quick subset has, each
// compared with those before it; a mapping with more is read by the full
// parser, so that the comparisons stay few.
const quickKeys = 64

// qreader reads a text in the quick subset of YAML.
type qreader struct {
	text  string
	i     int // the read position
	line  int // start of the line i is on
	nodes []qnode
	max   int // the most nodes the text may hold (yamldoc.MaxNodes)
	bad   bool
}

// fail marks the text as outside the quick subset.
func (r *qreader) fail() { r.bad = true }

func (r *qreader) node(kind qkind, text bool, value string) int32 {
	if len(r.nodes) >= r.max {
		// More values than the text may hold: the full parser says so.
		// Every loop of the reader stops once it has failed.
		r.fail()
	}
	r.nodes = append(r.nodes, qnode{kind: kind, text: text, value: value, first: -1, last: -1, next: -1})
	return int32(len(r.nodes) - 1)
}

func (r *qreader) add(parent, child int32) {
	p := &r.nodes[parent]
	if p.last < 0 {
		p.first = child
	} else {
		r.nodes[p.last].next = child
	}
	p.last = child
	p.n++
}

// quickCheck reports whether text holds only what the quick reader
// handles byte by byte: no tab, no control character but '\n', no DEL, no
// C1 control (U+0085, NEL, among them), no U+2028 or U+2029 (which the
// full parser reports), no byte-order mark and no U+FFFE or U+FFFF. It
// reads eight bytes at a time while they are printable ASCII or '\n'.
func quickCheck(text string) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
		lows  = 0x7f7f7f7f7f7f7f7f
	)
	i := 0
	for ; i+8 <= len(text); i += 8 {
		w := uint64(text[i]) | uint64(text[i+1])<<8 | uint64(text[i+2])<<16 | uint64(text[i+3])<<24 |
			uint64(text[i+4])<<32 | uint64(text[i+5])<<40 | uint64(text[i+6])<<48 | uint64(text[i+7])<<56
		// The high bit of each byte of below is set when the byte is
		// under 0x20, of nl when it is '\n', of del when it is 0x7f.
		below := ^((w & lows) + ones*(0x80-0x20)) &^ w & highs
		y := w ^ ones*'\n'
		nl := ^((y & lows) + lows) &^ y & highs
		z := w ^ ones*0x7f
		del := ^((z & lows) + lows) &^ z & highs
		if w&highs != 0 || below&^nl != 0 || del != 0 {
			// Something to look at byte by byte.
			for j := i; j < i+8; j++ {
				if !quickByte(text, j) {
					return false
				}
			}
		}
	}
	for ; i < len(text); i++ {
		if !quickByte(text, i) {
			return false
		}
	}
	return true
}

// quickByte reports whether the byte at i is not, and does not start,
// what quickCheck refuses.
func quickByte(text string, i int) bool {
	switch c := text[i]; {
	case c < 0x20 && c != '\n', c == 0x7f:
		return false
	case c == 0xc2:
		return i+1 == len(text) || text[i+1] >= 0xa0
	case c == 0xe2:
		return i+2 >= len(text) || text[i+1] != 0x80 || text[i+2] != 0xa8 && text[i+2] != 0xa9
	case c == 0xef:
		return i+2 >= len(text) || !(text[i+1] == 0xbb && text[i+2] == 0xbf || text[i+1] == 0xbf && text[i+2] >= 0xbe)
	}
	return true
}

// quickRead reads text into a tree whose root is a block mapping, or
// reports that it cannot.
func quickRead(text string, r *qreader) (root int32, ok bool) {
	if !quickCheck(text) {
		return -1, false
	}
	maxNodes := yamldoc.MaxNodes(len(text))
	*r = qreader{text: text, max: maxNodes, nodes: make([]qnode, 0, min(16+strings.Count(text, "\n")*2, maxNodes))}
	if !r.skipBlank() {
		return -1, false
	}
	if strings.HasPrefix(r.text[r.i:], "---") && r.i == r.line {
		// The document's start marker, alone on its line.
		if !r.restBlank(r.i+3) || !r.skipBlank() {
			return -1, false
		}
	}
	indent := r.i - r.line
	if r.seqItem() {
		return -1, false
	}
	root = r.mapping(indent)
	if r.bad || r.skipBlank() {
		return -1, false // more text after the mapping
	}
	return root, true
}

// lineEnd returns the end of the line i is on (its '\n', or the end).
func (r *qreader) lineEnd(i int) int {
	if j := strings.IndexByte(r.text[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(r.text)
}

// nextLine moves to the start of the next line.
func (r *qreader) nextLine() {
	e := r.lineEnd(r.i)
	if e < len(r.text) {
		e++
	}
	r.i, r.line = e, e
}

// skipBlank moves past blank and comment lines to the first content
// byte of the next line that has one, from the start of a line, and
// reports whether there is one.
func (r *qreader) skipBlank() bool {
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
func (r *qreader) restBlank(i int) bool {
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
func (r *qreader) seqItem() bool {
	t := r.text[r.i:]
	return len(t) > 0 && t[0] == '-' && (len(t) == 1 || t[1] == ' ' || t[1] == '\n')
}

// block reads the block node whose first line starts at i, at indent.
func (r *qreader) block(indent int) int32 {
	if r.seqItem() {
		return r.seq(indent)
	}
	return r.mapping(indent)
}

// mapping reads a block mapping whose keys are at column indent, the
// first one at i.
func (r *qreader) mapping(indent int) int32 {
	m := r.node(qMap, false, "")
	for !r.bad {
		key, ok := r.key()
		if !ok {
			r.fail()
			break
		}
		if r.nodes[m].n >= 2*quickKeys {
			r.fail() // many keys: the full parser looks them up in a map
			break
		}
		for k := r.nodes[m].first; k >= 0; k = r.nodes[r.nodes[k].next].next {
			if r.nodes[k].value == key.value {
				r.fail() // a repeated key: the full parser says where
			}
		}
		kn := r.node(qScalar, key.text, key.value)
		r.add(m, kn)
		r.add(m, r.value(indent, true))
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
func (r *qreader) seq(indent int) int32 {
	s := r.node(qSeq, false, "")
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
			r.add(s, r.block(r.i-r.line))
		case r.seqItem():
			r.fail() // a list in a list on one line
		default:
			if r.keyAhead() {
				r.add(s, r.mapping(r.i-r.line))
			} else {
				r.add(s, r.value(indent, false))
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
func (r *qreader) value(indent int, inMap bool) int32 {
	for r.i < len(r.text) && r.text[r.i] == ' ' {
		r.i++
	}
	if r.i == len(r.text) || r.text[r.i] == '\n' || r.text[r.i] == '#' && r.text[r.i-1] == ' ' {
		// The value is on the lines below: more indented, or a list at
		// the key's own column.
		r.nextLine()
		if !r.skipBlank() {
			r.fail() // nothing: null
			return r.node(qScalar, false, "")
		}
		col := r.i - r.line
		switch {
		case col > indent:
			return r.block(col)
		case col == indent && inMap && r.seqItem():
			return r.seq(col)
		}
		r.fail() // nothing: null
		return r.node(qScalar, false, "")
	}
	switch c := r.text[r.i]; c {
	case '"', '\'':
		v, ok := r.quoted()
		if !ok || !r.restBlank(r.i) {
			r.fail()
		}
		return r.node(qScalar, true, v)
	case '[', '{':
		n := r.flow()
		if !r.bad && !r.restBlank(r.i) {
			r.fail()
		}
		return n
	case '|', '>':
		return r.blockScalar(indent)
	}
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
	r.i = e
	r.nextLine()
	return r.node(qScalar, false, v)
}

// plainStart reports whether v may start a plain scalar, in the quick
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

// keyByte reports whether c may be in a plain key of the quick subset.
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
func (r *qreader) keyAhead() bool {
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

// key reads a key and its ':' at i.
func (r *qreader) key() (k qnode, ok bool) {
	t := r.text[r.i:]
	if n := plainKeyLen(t); n > 0 {
		k.value = t[:n]
		r.i += n
	} else if len(t) > 0 && (t[0] == '"' || t[0] == '\'') {
		if k.value, ok = r.quoted(); !ok {
			return k, false
		}
		k.text = true
	} else {
		return k, false
	}
	if !k.text && isSpecialWord(k.value) {
		return k, false
	}
	t = r.text[r.i:]
	if len(t) == 0 || t[0] != ':' || len(t) > 1 && t[1] != ' ' && t[1] != '\n' {
		return k, false
	}
	r.i++
	return k, true
}

// isSpecialWord reports whether a plain scalar is one YAML reads as
// something other than text or a number: a boolean, null, an infinity,
// not-a-number, negative zero or the merge key.
func isSpecialWord(v string) bool {
	switch v {
	case "true", "True", "TRUE", "false", "False", "FALSE",
		"", "~", "null", "Null", "NULL",
		".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
		"-0", "-0.0", "<<":
		return true
	}
	return false
}

// quoted reads a quoted scalar on one line at i and moves past it.
func (r *qreader) quoted() (string, bool) {
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
				return "", false // an escape the quick reader leaves to the parser
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
func (r *qreader) blockScalar(indent int) int32 {
	folded := r.text[r.i] == '>'
	r.i++
	chomp := byte(0)
	if r.i < len(r.text) && (r.text[r.i] == '-' || r.text[r.i] == '+') {
		chomp = r.text[r.i]
		r.i++
	}
	if r.i < len(r.text) && r.text[r.i] != ' ' && r.text[r.i] != '\n' || !r.restBlank(r.i) {
		r.fail() // an indentation indicator, or text after the header
		return r.node(qScalar, true, "")
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
		return r.node(qScalar, true, "")
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
					return r.node(qScalar, true, "")
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
				return r.node(qScalar, true, "")
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
		r.i, r.line = pos, pos
	}
	return r.node(qScalar, true, b.String())
}

// flow reads a flow list or mapping that starts at i and ends on the same
// line.
func (r *qreader) flow() int32 {
	return r.flowNode(r.lineEnd(r.i), 0)
}

// skipSpaces moves past spaces, up to e.
func (r *qreader) skipSpaces(e int) {
	for r.i < e && r.text[r.i] == ' ' {
		r.i++
	}
}

// flowNode reads the flow node at i, which ends before e.
func (r *qreader) flowNode(e, depth int) int32 {
	r.skipSpaces(e)
	if r.i >= e || depth > 100 {
		r.fail()
		return r.node(qScalar, false, "")
	}
	switch r.text[r.i] {
	case '[':
		s := r.node(qSeq, false, "")
		r.i++
		for !r.bad {
			r.skipSpaces(e)
			if r.i < e && r.text[r.i] == ']' {
				r.i++
				return s
			}
			item := r.flowNode(e, depth+1)
			r.skipSpaces(e)
			r.add(s, item)
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
		m := r.node(qMap, false, "")
		r.i++
		for !r.bad {
			r.skipSpaces(e)
			if r.i < e && r.text[r.i] == '}' {
				r.i++
				return m
			}
			key, ok := r.key()
			if !ok || r.i >= e || r.text[r.i] != ' ' {
				r.fail()
				return m
			}
			if r.nodes[m].n >= 2*quickKeys {
				r.fail() // many keys: the full parser looks them up in a map
				return m
			}
			for k := r.nodes[m].first; k >= 0; k = r.nodes[r.nodes[k].next].next {
				if r.nodes[k].value == key.value {
					r.fail()
				}
			}
			r.add(m, r.node(qScalar, key.text, key.value))
			r.add(m, r.flowNode(e, depth+1))
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
		v, ok := r.quoted()
		if !ok {
			r.fail()
		}
		return r.node(qScalar, true, v)
	}
	// A plain scalar ends at a flow indicator or at a ':' that is not
	// followed by text.
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
	return r.node(qScalar, false, v)
}
