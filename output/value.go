package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/tessera-dev/tessera/internal/jsonesc"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds how deeply a reply's value may nest; deeper values are
// an error, never a stack overflow.
const maxDepth = 256

// value is a JSON value read from a reply, with its place and, for an
// object, its members in the order written.
type value struct {
	kind    byte // '{', '[', '"' (string), '0' (number), 't', 'f', 'n'
	off     int  // byte offset of its first byte in the reply
	text    string
	members []member // an object's
	elems   []*value // an array's
}

type member struct {
	key string
	off int // byte offset of the key
	val *value
}

// get returns the member named key, or nil.
func (v *value) get(key string) *value {
	for i := range v.members {
		if v.members[i].key == key {
			return v.members[i].val
		}
	}
	return nil
}

// Repair is one change tolerant parsing made to a reply to read its
// value.
type Repair struct {
	// Offset is the byte offset in the reply where the change was made.
	Offset int `json:"offset"`
	// Line and Col are the same place, 1-based, in bytes.
	Line, Col int
	// What says what was changed ("removed a trailing comma").
	What string `json:"what"`
}

// String is "line:col: what".
func (r Repair) String() string {
	return strconv.Itoa(r.Line) + ":" + strconv.Itoa(r.Col) + ": " + r.What
}

// syntaxError is a reply's value that is not JSON (or, tolerant, could
// not be repaired), at a byte offset.
type syntaxError struct {
	off int
	msg string
}

// reader reads one JSON value from src; tolerant, it reads the relaxed
// forms models write and records each repair.
type reader struct {
	src      []byte
	i        int
	tolerant bool
	repairs  []Repair
	err      *syntaxError
	steps    *int  // work left for the whole scan; shared between reads
	opened   []int // offsets of the containers being read, for marking
	arena    []value
	keys     map[string]string // keys read, so that a repeated one is one string

	// check, set, only checks the value: every value is scratch, and
	// no text, member, element or repair is kept; with slot set, no key
	// or message either, only the offset of the failure, in slot.
	check   bool
	scratch *value
	slot    *syntaxError
	// left, when set, is how many more values (and repairs) the read may
	// build; over it, tooMany is set and the read fails.
	left    *int
	tooMany bool
}

// silent reports whether r keeps nothing of what it reads.
func (r *reader) silent() bool { return r.check && r.slot != nil }

// quiet reports whether r only checks, recording a failure at off
// without its message when it does.
func (r *reader) quiet(off int) bool {
	if !r.silent() {
		return false
	}
	if r.err == nil {
		*r.slot = syntaxError{off: off}
		r.err = r.slot
	}
	return true
}

// intern returns b as a string, the same string for the same key.
func (r *reader) intern(b []byte) string {
	if s, ok := r.keys[string(b)]; ok {
		return s
	}
	if r.keys == nil {
		r.keys = make(map[string]string, 16)
	}
	s := string(b)
	r.keys[s] = s
	return s
}

// alloc returns a new value, from a block allocated at once.
func (r *reader) alloc(v value) *value {
	if r.check {
		return r.scratch
	}
	if len(r.arena) == cap(r.arena) {
		r.arena = make([]value, 0, 64)
	}
	r.arena = append(r.arena, v)
	return &r.arena[len(r.arena)-1]
}

func (r *reader) fail(off int, format string, args ...any) *value {
	if r.quiet(off) {
		return nil
	}
	if r.err == nil {
		msg := format
		if len(args) > 0 {
			msg = fmt.Sprintf(format, args...)
		}
		r.err = &syntaxError{off: off, msg: msg}
	}
	return nil
}

func (r *reader) repair(off int, what string) {
	if r.check {
		return
	}
	if r.left != nil {
		// A repair counts as a value: it costs as much to keep.
		if *r.left--; *r.left < 0 {
			r.tooMany = true
			return
		}
	}
	r.repairs = append(r.repairs, Repair{Offset: off, What: what})
}

// ws skips white space and, tolerant, comments.
func (r *reader) ws() {
	for r.i < len(r.src) {
		switch c := r.src[r.i]; c {
		case ' ', '\t', '\n', '\r':
			r.i++
		case '/':
			if !r.tolerant || r.i+1 >= len(r.src) {
				return
			}
			switch r.src[r.i+1] {
			case '/':
				start := r.i
				for r.i < len(r.src) && r.src[r.i] != '\n' {
					r.i++
				}
				r.repair(start, "removed a // comment")
			case '*':
				start := r.i
				end := bytes.Index(r.src[r.i+2:], []byte("*/"))
				if end < 0 {
					r.i = len(r.src)
				} else {
					r.i += 2 + end + 2
				}
				r.repair(start, "removed a /* */ comment")
			default:
				return
			}
		default:
			return
		}
	}
}

// atEOF reports, tolerant, whether the reply ends here, so that what is
// open can be closed as a truncated tail.
func (r *reader) atEOF() bool { return r.tolerant && r.i >= len(r.src) }

func (r *reader) step() bool {
	if r.steps == nil {
		return true
	}
	*r.steps--
	return *r.steps >= 0
}

// read reads a value at r.i.
func (r *reader) read(depth int) *value {
	r.ws()
	if r.i >= len(r.src) {
		return r.fail(r.i, "the value ends too early")
	}
	if !r.step() {
		return r.fail(r.i, "the reply is too costly to scan")
	}
	if r.left != nil {
		if *r.left--; *r.left < 0 {
			r.tooMany = true
			return r.fail(r.i, "the value holds more than %d values", maxValues(len(r.src)))
		}
	}
	if depth > maxDepth {
		if r.quiet(r.i) {
			return nil
		}
		return r.fail(r.i, "the value nests deeper than %d levels", maxDepth)
	}
	c := r.src[r.i]
	switch {
	case c == '{':
		return r.object(depth)
	case c == '[':
		return r.array(depth)
	case c == '"':
		return r.str()
	case c == '\'' && r.tolerant:
		return r.str()
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	}
	for _, lit := range [...]struct{ word, json string }{
		{"true", "true"}, {"false", "false"}, {"null", "null"},
		{"True", "true"}, {"False", "false"}, {"None", "null"},
	} {
		if !strings.HasPrefix(string(r.src[r.i:min(len(r.src), r.i+5)]), lit.word) {
			continue
		}
		if lit.word != lit.json {
			if !r.tolerant {
				break
			}
			if !r.check {
				r.repair(r.i, "read Python's "+lit.word+" as "+lit.json)
			}
		}
		v := r.alloc(value{kind: lit.json[0], off: r.i, text: lit.json})
		r.i += len(lit.word)
		return v
	}
	if r.quiet(r.i) {
		return nil
	}
	return r.fail(r.i, "unexpected %s: want a value (an object, array, string, number, true, false or null)", describe(r.src, r.i))
}

// between reads up to the next member of an object or element of an array
// (what names which, closer is its closing bracket): white space, then
// either closer, which ends the container, or, after the first, a comma.
// A reply cut off there has the container closed, and a trailing comma
// before closer is removed, both as repairs. end reports that the
// container ends; ok is false when reading failed (r.err says why).
func (r *reader) between(first bool, closer byte, what string) (end, ok bool) {
	r.ws()
	if r.atEOF() {
		r.repair(r.i, "closed "+what+" the reply leaves open")
		return true, true
	}
	if r.i < len(r.src) && r.src[r.i] == closer {
		r.i++
		return true, true
	}
	if first {
		return false, true
	}
	if r.i >= len(r.src) || r.src[r.i] != ',' {
		if !r.quiet(r.i) {
			r.fail(r.i, "unexpected %s in %s: want ',' or '%c'", describe(r.src, r.i), what, closer)
		}
		return false, false
	}
	comma := r.i
	r.i++
	r.ws()
	if r.i < len(r.src) && r.src[r.i] == closer {
		if !r.tolerant {
			r.fail(comma, "a trailing comma before '%c': remove it (tolerant parsing does)", closer)
			return false, false
		}
		r.repair(comma, "removed a trailing comma")
		r.i++
		return true, true
	}
	if r.atEOF() {
		r.repair(r.i, "closed "+what+" the reply leaves open")
		return true, true
	}
	return false, true
}

func (r *reader) object(depth int) *value {
	v := r.alloc(value{kind: '{', off: r.i})
	r.opened = append(r.opened, r.i)
	r.i++
	for first := true; ; first = false {
		if end, ok := r.between(first, '}', "an object"); !ok {
			return nil
		} else if end {
			break
		}
		koff := r.i
		var key string
		switch {
		case r.i < len(r.src) && r.src[r.i] == '"' && r.plainKey():
			end := r.i + 1 + bytes.IndexByte(r.src[r.i+1:], '"')
			if r.slot == nil {
				key = r.intern(r.src[r.i+1 : end])
			}
			r.i = end + 1
		case r.i < len(r.src) && (r.src[r.i] == '"' || r.src[r.i] == '\'' && r.tolerant):
			k := r.str()
			if k == nil {
				if r.err != nil && r.err.off >= len(r.src) && r.tolerant {
					r.err = nil // a key cut off by the end: the member goes
					r.repair(koff, "dropped a key the reply cuts off")
					return v
				}
				return nil
			}
			key = k.text
		case r.tolerant && r.i < len(r.src) && identStart(r.src[r.i]):
			j := r.i
			for j < len(r.src) && identByte(r.src[j]) {
				j++
			}
			if r.slot == nil {
				key = string(r.src[r.i:j])
				r.repair(r.i, "quoted the key "+strconv.Quote(key))
			}
			r.i = j
		default:
			if r.quiet(r.i) {
				return nil
			}
			return r.fail(r.i, "unexpected %s in an object: want a key in double quotes", describe(r.src, r.i))
		}
		r.ws()
		if r.atEOF() {
			r.repair(koff, "dropped the member "+strconv.Quote(key)+", which the reply cuts off")
			r.repair(r.i, "closed an object the reply leaves open")
			break
		}
		if r.i >= len(r.src) || r.src[r.i] != ':' {
			if r.quiet(r.i) {
				return nil
			}
			return r.fail(r.i, "unexpected %s after the key %q: want ':'", describe(r.src, r.i), key)
		}
		r.i++
		r.ws()
		if r.atEOF() {
			r.repair(koff, "dropped the member "+strconv.Quote(key)+", which the reply cuts off")
			r.repair(r.i, "closed an object the reply leaves open")
			break
		}
		val := r.read(depth + 1)
		if val == nil {
			return nil
		}
		if !r.check {
			v.members = append(v.members, member{key: key, off: koff, val: val})
		}
	}
	r.opened = r.opened[:len(r.opened)-1]
	return v
}

// plainKey reports whether the string at r.i closes on the same line
// with no escape, control character or non-ASCII byte before its quote,
// so that its bytes are the key.
func (r *reader) plainKey() bool {
	for j := r.i + 1; j < len(r.src); j++ {
		switch c := r.src[j]; {
		case c == '"':
			return true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return false
		}
	}
	return false
}

func (r *reader) array(depth int) *value {
	v := r.alloc(value{kind: '[', off: r.i})
	r.opened = append(r.opened, r.i)
	r.i++
	for first := true; ; first = false {
		if end, ok := r.between(first, ']', "an array"); !ok {
			return nil
		} else if end {
			break
		}
		el := r.read(depth + 1)
		if el == nil {
			return nil
		}
		if !r.check {
			v.elems = append(v.elems, el)
		}
	}
	r.opened = r.opened[:len(r.opened)-1]
	return v
}

// str reads a string in double quotes, or, tolerant, in single quotes.
func (r *reader) str() *value {
	q := r.src[r.i]
	off := r.i
	v := r.alloc(value{kind: '"', off: r.i})
	if q == '\'' {
		r.repair(r.i, "read a single-quoted string")
	}
	r.i++
	start := r.i
	// The common case: no escapes, valid UTF-8.
	for r.i < len(r.src) {
		c := r.src[r.i]
		if c == q {
			s := r.src[start:r.i]
			if r.silent() {
				r.i++
				return v
			}
			if utf8.Valid(s) {
				v.text = string(s)
				r.i++
				return v
			}
			break
		}
		if c == '\\' || c < 0x20 {
			break
		}
		r.i++
	}
	var b []byte
	if !r.silent() {
		b = append(b, r.src[start:r.i]...)
	}
	for {
		if r.silent() {
			b = b[:0] // only checking: keep no text
		}
		if r.i >= len(r.src) {
			if r.tolerant {
				r.repair(r.i, "closed a string the reply cuts off")
				r.setText(v, b)
				return v
			}
			return r.fail(off, "a string that is not closed")
		}
		c := r.src[r.i]
		switch {
		case c == q:
			r.i++
			r.setText(v, b)
			return v
		case c < 0x20:
			if !r.tolerant {
				return r.fail(r.i, "a control character (%#02x) in a string: escape it, as \\n or \\u00XX", c)
			}
			r.repair(r.i, "escaped a control character in a string")
			b = append(b, c)
			r.i++
		case c == '\\':
			if r.i+1 >= len(r.src) {
				r.i++
				continue
			}
			e := r.src[r.i+1]
			if c, ok := jsonesc.Byte(e); ok {
				b = append(b, c)
				r.i += 2
				continue
			}
			switch e {
			case '\'':
				if q != '\'' && !r.tolerant {
					return r.fail(r.i, "the escape \\' is not JSON: write ' alone")
				}
				b = append(b, e)
			case 'u':
				ru, n := hex4(r.src[r.i+2:])
				if n < 0 {
					return r.fail(r.i, "\\u wants four hex digits")
				}
				r.i += 4
				if utf16.IsSurrogate(ru) && r.i+7 < len(r.src) && r.src[r.i+2] == '\\' && r.src[r.i+3] == 'u' {
					if lo, m := hex4(r.src[r.i+4:]); m >= 0 {
						if d := utf16.DecodeRune(ru, lo); d != utf8.RuneError {
							ru = d
							r.i += 6
						}
					}
				}
				if utf16.IsSurrogate(ru) {
					ru = utf8.RuneError
				}
				b = utf8.AppendRune(b, ru)
			default:
				return r.fail(r.i, "the escape \\%c is not JSON", e)
			}
			r.i += 2
		default:
			b = append(b, c)
			r.i++
		}
	}
}

// setText sets v's text to b, made valid UTF-8; silent, it keeps none.
func (r *reader) setText(v *value, b []byte) {
	if !r.silent() {
		v.text = strings.ToValidUTF8(string(b), "\uFFFD")
	}
}

func hex4(s []byte) (rune, int) {
	if len(s) < 4 {
		return 0, -1
	}
	var n rune
	for _, c := range s[:4] {
		n <<= 4
		switch {
		case c >= '0' && c <= '9':
			n |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			n |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			n |= rune(c - 'A' + 10)
		default:
			return 0, -1
		}
	}
	return n, 4
}

func (r *reader) number() *value {
	start := r.i
	if r.src[r.i] == '-' {
		r.i++
	}
	digits := func() int {
		n := 0
		for r.i < len(r.src) && r.src[r.i] >= '0' && r.src[r.i] <= '9' {
			r.i++
			n++
		}
		return n
	}
	switch {
	case r.i < len(r.src) && r.src[r.i] == '0':
		r.i++
	case digits() == 0:
		return r.fail(start, "a number wants digits")
	}
	if r.i < len(r.src) && r.src[r.i] == '.' {
		r.i++
		if digits() == 0 {
			return r.fail(start, "a number wants digits after '.'")
		}
	}
	if r.i < len(r.src) && (r.src[r.i] == 'e' || r.src[r.i] == 'E') {
		r.i++
		if r.i < len(r.src) && (r.src[r.i] == '+' || r.src[r.i] == '-') {
			r.i++
		}
		if digits() == 0 {
			return r.fail(start, "a number wants digits in its exponent")
		}
	}
	if r.check {
		return r.scratch
	}
	return r.alloc(value{kind: '0', off: start, text: string(r.src[start:r.i])})
}

func identStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func identByte(c byte) bool { return identStart(c) || c >= '0' && c <= '9' || c == '-' }

// describe names the byte at i for a message.
func describe(src []byte, i int) string {
	if i >= len(src) {
		return "end of reply"
	}
	r, _ := utf8.DecodeRune(src[i:])
	return strconv.QuoteRune(r)
}

// appendJSON appends v as compact JSON; an object's members come in the
// order order gives (nil: as written).
func appendJSON(b []byte, v *value, order *orderNode) []byte {
	switch v.kind {
	case '{':
		b = append(b, '{')
		first := true
		emit := func(m *member) {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendString(b, m.key)
			b = append(b, ':')
			b = appendJSON(b, m.val, order.prop(m.key))
		}
		if order != nil && len(order.props) > 0 {
			done := make([]bool, len(v.members))
			for _, p := range order.props {
				for i := range v.members {
					if !done[i] && v.members[i].key == p.name {
						done[i] = true
						emit(&v.members[i])
						break
					}
				}
			}
			for i := range v.members {
				if !done[i] {
					emit(&v.members[i])
				}
			}
		} else {
			for i := range v.members {
				emit(&v.members[i])
			}
		}
		return append(b, '}')
	case '[':
		b = append(b, '[')
		for i, e := range v.elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e, order.item(i))
		}
		return append(b, ']')
	case '"':
		return appendString(b, v.text)
	default:
		return append(b, v.text...)
	}
}

// appendString appends s as a JSON string, escaped as RFC 8785 does: '"',
// '\\' and control characters only, the short forms where JSON has them.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c >= 0x20:
			b = append(b, c)
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		default:
			const hex = "0123456789abcdef"
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
	}
	return append(b, '"')
}

// toAny converts v to the values the schema validator reads.
func toAny(v *value) any {
	switch v.kind {
	case '{':
		m := make(map[string]any, len(v.members))
		for _, mb := range v.members {
			m[mb.key] = toAny(mb.val)
		}
		return m
	case '[':
		a := make([]any, len(v.elems))
		for i, e := range v.elems {
			a[i] = toAny(e)
		}
		return a
	case '"':
		return v.text
	case '0':
		return json.Number(v.text)
	case 't':
		return true
	case 'f':
		return false
	}
	return nil
}
