package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the type of a JSON value.
type Kind uint8

const (
	// Null is the JSON null.
	Null Kind = iota
	// Bool is true or false.
	Bool
	// Number is a JSON number, kept as written.
	Number
	// String is a JSON string.
	String
	// Array is a JSON array.
	Array
	// Object is a JSON object, its members in the order written.
	Object
)

var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

// String returns the JSON name of the kind: "null", "boolean", "number",
// "string", "array" or "object".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid(" + strconv.Itoa(int(k)) + ")"
}

// MaxDepth is how deeply arrays and objects may nest in a document Parse
// accepts. Real schemas stay far below it; the limit keeps a hostile
// document from exhausting the stack.
const MaxDepth = 1000

// Value is a JSON value that keeps the members of its objects in the order
// they were written. The zero Value is null.
type Value struct {
	// Kind is the value's type; it says which other field holds the value.
	Kind Kind
	// Bool is a Bool's value.
	Bool bool
	// Str is a String's text, unescaped, or a Number's literal exactly as
	// written (so 1.0 stays 1.0).
	Str string
	// Items are an Array's elements.
	Items []Value
	// Members are an Object's members, in order, each key once.
	Members []Member
}

// Member is one key and value of a JSON object.
type Member struct {
	// Key is the member's name, unescaped.
	Key string
	// Value is the member's value.
	Value Value
}

// Get returns the value of the object member named key, or nil when v is
// not an object or has no such member. The pointer is into v's members,
// so changes through it change v.
func (v *Value) Get(key string) *Value {
	if v.Kind != Object {
		return nil
	}
	for i := range v.Members {
		if v.Members[i].Key == key {
			return &v.Members[i].Value
		}
	}
	return nil
}

// Raw returns the compact JSON of the value at the path of object keys
// below v (v itself for no keys), or nil when there is none.
func (v *Value) Raw(keys ...string) json.RawMessage {
	for _, k := range keys {
		if v = v.Get(k); v == nil {
			return nil
		}
	}
	return v.Append(nil)
}

// SyntaxError reports a document Parse cannot read: not JSON, not UTF-8,
// too deep, or an object with a repeated key.
type SyntaxError struct {
	// Offset is the byte offset in the input where the problem was found.
	Offset int
	// Pointer is the JSON Pointer (RFC 6901) of the value being read: for
	// a repeated key, the second occurrence's.
	Pointer string
	// Msg says what is wrong.
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("JSON at byte %d (%s): %s", e.Offset, describePointer(e.Pointer), e.Msg)
}

// describePointer renders a pointer for a message: the root has the empty
// pointer, which reads badly on its own.
func describePointer(p string) string {
	if p == "" {
		return "at the root"
	}
	return "at " + strconv.Quote(p)
}

// Parse reads one JSON document into a Value, keeping object members in
// order. It accepts what encoding/json accepts, except that strings must
// be valid UTF-8, objects may not repeat a key and nesting may not exceed
// MaxDepth; each of those is a *SyntaxError naming where it is. Unpaired
// UTF-16 surrogates in \u escapes become U+FFFD, as in encoding/json.
func Parse(data []byte) (Value, error) {
	p := parser{
		data:    string(data),
		path:    make([]string, 0, 16),
		members: make([]Member, 0, 8),
		items:   make([]Value, 0, 8),
		// Every member has a colon and every item but the first of an
		// array follows a comma, so these counts bound the arenas
		// (colons and commas inside strings only make them generous).
		memberArena: make([]Member, 0, bytes.Count(data, colon)),
		itemArena:   make([]Value, 0, bytes.Count(data, comma)+bytes.Count(data, bracket)),
	}
	p.skipSpace()
	v, err := p.value()
	if err != nil {
		return Value{}, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return Value{}, p.fail("unexpected %s after the document", p.describe())
	}
	return v, nil
}

var colon, comma, bracket = []byte{':'}, []byte{','}, []byte{'['}

type parser struct {
	data string // the input, as a string so that strings without escapes share it
	pos  int
	path []string // tokens of the pointer of the value being read
	// members and items are stacks of the objects' and arrays' elements
	// being read. A container closing moves its elements to the end of
	// an arena and takes its slice of that, so a document's containers
	// share a few allocations. An arena that grows moves to a new array;
	// slices taken before keep the old one.
	members     []Member
	items       []Value
	memberArena []Member
	itemArena   []Value
}

func (p *parser) fail(format string, args ...any) *SyntaxError {
	return &SyntaxError{Offset: p.pos, Pointer: pointer(p.path), Msg: fmt.Sprintf(format, args...)}
}

// describe names the byte at the current position for a message.
func (p *parser) describe() string {
	if p.pos >= len(p.data) {
		return "end of input"
	}
	c := p.data[p.pos]
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value() (Value, error) {
	if p.pos >= len(p.data) {
		return Value{}, p.fail("unexpected end of input, want a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.string()
		return Value{Kind: String, Str: s}, err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return Value{Kind: Bool, Bool: true}, p.literal("true")
	case c == 'f':
		return Value{Kind: Bool}, p.literal("false")
	case c == 'n':
		return Value{}, p.literal("null")
	}
	return Value{}, p.fail("unexpected %s, want a value", p.describe())
}

func (p *parser) literal(word string) error {
	if len(p.data)-p.pos < len(word) || p.data[p.pos:p.pos+len(word)] != word {
		return p.fail("invalid literal, want %s", word)
	}
	p.pos += len(word)
	return nil
}

func (p *parser) enter() error {
	if len(p.path) >= MaxDepth {
		return p.fail("nested deeper than %d levels", MaxDepth)
	}
	return nil
}

func (p *parser) object() (Value, error) {
	if err := p.enter(); err != nil {
		return Value{}, err
	}
	p.pos++ // '{'
	base := len(p.members)
	defer func() { p.members = p.members[:base] }()
	var seen keySet
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return Value{Kind: Object}, nil
	}
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return Value{}, p.fail("unexpected %s, want a member name", p.describe())
		}
		keyAt := p.pos
		key, err := p.string()
		if err != nil {
			return Value{}, err
		}
		if seen.has(p.members[base:], key) {
			p.path = append(p.path, key)
			e := p.fail("member %q appears more than once: keep one", key)
			e.Offset = keyAt
			return Value{}, e
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return Value{}, p.fail("unexpected %s after member name %q, want ':'", p.describe(), key)
		}
		p.pos++
		p.skipSpace()
		p.path = append(p.path, key)
		val, err := p.value()
		if err != nil {
			return Value{}, err
		}
		p.path = p.path[:len(p.path)-1]
		p.members = append(p.members, Member{Key: key, Value: val})
		p.skipSpace()
		if p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',':
				p.pos++
				p.skipSpace()
				continue
			case '}':
				p.pos++
				start := len(p.memberArena)
				p.memberArena = append(p.memberArena, p.members[base:]...)
				return Value{Kind: Object, Members: p.memberArena[start:len(p.memberArena):len(p.memberArena)]}, nil
			}
		}
		return Value{}, p.fail("unexpected %s in object, want ',' or '}'", p.describe())
	}
}

// keySet finds repeated member names: by a scan while an object is small,
// by a map once it is large, so a hostile object with many members
// cannot make parsing quadratic.
type keySet struct{ m map[string]struct{} }

const keySetScan = 16

// has reports whether key is among members, the keys read so far, and
// records it.
func (s *keySet) has(members []Member, key string) bool {
	if len(members) < keySetScan {
		for i := range members {
			if members[i].Key == key {
				return true
			}
		}
		return false
	}
	if s.m == nil {
		s.m = make(map[string]struct{}, 2*len(members))
		for i := range members {
			s.m[members[i].Key] = struct{}{}
		}
	}
	if _, ok := s.m[key]; ok {
		return true
	}
	s.m[key] = struct{}{}
	return false
}

func (p *parser) array() (Value, error) {
	if err := p.enter(); err != nil {
		return Value{}, err
	}
	p.pos++ // '['
	base := len(p.items)
	defer func() { p.items = p.items[:base] }()
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return Value{Kind: Array}, nil
	}
	for {
		p.path = append(p.path, strconv.Itoa(len(p.items)-base))
		item, err := p.value()
		if err != nil {
			return Value{}, err
		}
		p.path = p.path[:len(p.path)-1]
		p.items = append(p.items, item)
		p.skipSpace()
		if p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',':
				p.pos++
				p.skipSpace()
				continue
			case ']':
				p.pos++
				start := len(p.itemArena)
				p.itemArena = append(p.itemArena, p.items[base:]...)
				return Value{Kind: Array, Items: p.itemArena[start:len(p.itemArena):len(p.itemArena)]}, nil
			}
		}
		return Value{}, p.fail("unexpected %s in array, want ',' or ']'", p.describe())
	}
}

func (p *parser) number() (Value, error) {
	start := p.pos
	d := p.data
	if d[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(d) && d[p.pos] == '0':
		p.pos++
	case p.pos < len(d) && d[p.pos] >= '1' && d[p.pos] <= '9':
		p.digits()
	default:
		return Value{}, p.fail("invalid number, want a digit")
	}
	if p.pos < len(d) && d[p.pos] == '.' {
		p.pos++
		if !p.digits() {
			return Value{}, p.fail("invalid number, want a digit after '.'")
		}
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		p.pos++
		if p.pos < len(d) && (d[p.pos] == '+' || d[p.pos] == '-') {
			p.pos++
		}
		if !p.digits() {
			return Value{}, p.fail("invalid number, want a digit in the exponent")
		}
	}
	return Value{Kind: Number, Str: d[start:p.pos]}, nil
}

// digits skips a run of decimal digits and reports whether there was one.
func (p *parser) digits() bool {
	start := p.pos
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
	return p.pos > start
}

// string reads a quoted string at p.pos and returns its text.
func (p *parser) string() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	d := p.data
	// Fast path: no escapes, all ASCII or valid UTF-8.
	for p.pos < len(d) {
		c := d[p.pos]
		switch {
		case c == '"':
			s := d[start:p.pos]
			p.pos++
			return s, nil
		case c == '\\':
			return p.slowString(start)
		case c < 0x20:
			return "", p.fail("control character 0x%02x in string: escape it", c)
		case c < utf8.RuneSelf:
			p.pos++
		default:
			r, n := utf8.DecodeRuneInString(d[p.pos:])
			if r == utf8.RuneError && n == 1 {
				return "", p.fail("invalid UTF-8 in string")
			}
			p.pos += n
		}
	}
	return "", p.fail("unterminated string")
}

func (p *parser) slowString(start int) (string, error) {
	d := p.data
	var b strings.Builder
	b.WriteString(d[start:p.pos])
	for p.pos < len(d) {
		c := d[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c == '\\':
			if p.pos+1 >= len(d) {
				return "", p.fail("unterminated string")
			}
			e := d[p.pos+1]
			p.pos += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.fail("invalid \\u escape, want four hex digits")
				}
				if utf16.IsSurrogate(r) {
					// A pair is two escapes; anything else is replaced.
					if p.pos+1 < len(d) && d[p.pos] == '\\' && d[p.pos+1] == 'u' {
						save := p.pos
						p.pos += 2
						r2, ok := p.hex4()
						if !ok {
							return "", p.fail("invalid \\u escape, want four hex digits")
						}
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							b.WriteRune(dec)
							continue
						}
						p.pos = save
					}
					r = utf8.RuneError
				}
				b.WriteRune(r)
			default:
				p.pos -= 2
				return "", p.fail("invalid escape '\\%c' in string", e)
			}
		case c < 0x20:
			return "", p.fail("control character 0x%02x in string: escape it", c)
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			p.pos++
		default:
			r, n := utf8.DecodeRuneInString(d[p.pos:])
			if r == utf8.RuneError && n == 1 {
				return "", p.fail("invalid UTF-8 in string")
			}
			b.WriteString(d[p.pos : p.pos+n])
			p.pos += n
		}
	}
	return "", p.fail("unterminated string")
}

func (p *parser) hex4() (rune, bool) {
	if len(p.data)-p.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(p.data[p.pos : p.pos+4]) {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}

// Append appends v to dst as compact JSON: no insignificant space, object
// members in their order, strings escaped as AppendString does, numbers
// as written. A Number whose Str is not a valid JSON number (only possible
// for a Value built by hand) is written as 0.
func (v Value) Append(dst []byte) []byte {
	switch v.Kind {
	case Bool:
		if v.Bool {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Number:
		if !validNumber(v.Str) {
			return append(dst, '0')
		}
		return append(dst, v.Str...)
	case String:
		return AppendString(dst, v.Str)
	case Array:
		dst = append(dst, '[')
		for i, it := range v.Items {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = it.Append(dst)
		}
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		for i, m := range v.Members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, m.Key)
			dst = append(dst, ':')
			dst = m.Value.Append(dst)
		}
		return append(dst, '}')
	}
	return append(dst, "null"...)
}

// MarshalJSON returns v as compact JSON, as Append writes it.
func (v Value) MarshalJSON() ([]byte, error) { return v.Append(nil), nil }

func validNumber(s string) bool {
	p := parser{data: s}
	if len(s) == 0 {
		return false
	}
	if _, err := p.number(); err != nil {
		return false
	}
	return p.pos == len(s)
}

const hexDigits = "0123456789abcdef"

// AppendString appends s to dst as a JSON string. It escapes '"', '\\'
// and control characters (as \n, \r, \t, \b, \f or \u00XX) and nothing
// else, so text such as "<b>" stays readable; bytes that are not valid
// UTF-8 become U+FFFD, so the output is always valid JSON.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || n != 1 {
				i += n
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			i++
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// escapeToken escapes one reference token of a JSON Pointer (RFC 6901,
// section 3): '~' becomes "~0" and '/' becomes "~1".
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// pointer joins reference tokens into a JSON Pointer.
func pointer(tokens []string) string {
	if len(tokens) == 0 {
		return ""
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}
