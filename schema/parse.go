package schema

import (
	"bytes"
	"fmt"
	"github.com/tessera-dev/tessera/internal/jsonesc"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is how deeply arrays and objects may nest in a document Parse
// accepts. Real schemas stay far below it; the limit keeps a hostile
// document from exhausting the stack.
const MaxDepth = 1000

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
		s, lit, err := p.string()
		v := Value{Kind: String, Str: s}
		if lit != "" {
			// A copy, made only here: taking lit's own address would
			// move it to the heap for every string.
			v.lit = new(lit)
		}
		return v, err
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

// tooDeep is the message of a document nested deeper than MaxDepth.
var tooDeep = fmt.Sprintf("nested deeper than %d levels", MaxDepth)

func (p *parser) enter() error {
	if len(p.path) >= MaxDepth {
		return p.fail("%s", tooDeep)
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
		key, keyLit, err := p.string()
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
		m := Member{Key: key, Value: val}
		if keyLit != "" {
			m.lit = new(keyLit)
		}
		p.members = append(p.members, m)
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

// string reads a quoted string at p.pos and returns its text and, when
// the string has escapes, its literal as written, quotes included.
func (p *parser) string() (s, lit string, err error) {
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
			return s, "", nil
		case c == '\\':
			s, err := p.slowString(start)
			return s, d[start-1 : p.pos], err
		case c < 0x20:
			return "", "", p.fail("control character 0x%02x in string: escape it", c)
		case c < utf8.RuneSelf:
			p.pos++
		default:
			r, n := utf8.DecodeRuneInString(d[p.pos:])
			if r == utf8.RuneError && n == 1 {
				return "", "", p.fail("invalid UTF-8 in string")
			}
			p.pos += n
		}
	}
	return "", "", p.fail("unterminated string")
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
			if c, ok := jsonesc.Byte(e); ok {
				b.WriteByte(c)
				continue
			}
			switch e {
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
	r, ok := parseHex4(p.data[p.pos : p.pos+4])
	if ok {
		p.pos += 4
	}
	return r, ok
}

// parseHex4 reads the four hex digits of a \u escape.
func parseHex4(s string) (rune, bool) {
	if len(s) != 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s) {
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
	return r, true
}
