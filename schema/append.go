package schema

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/internal/jsonesc"
)

// Append appends v to dst as compact JSON: no insignificant space, object
// members in their order, strings escaped as AppendString does, numbers
// as written. A Number whose Str is not a valid JSON number (only possible
// for a Value built by hand) is written as 0.
func (v Value) Append(dst []byte) []byte { return v.write(dst, false) }

// AppendCompact appends v to dst as compact JSON, as Append does, except
// that each string (key or value) that Parse read with escapes in it is
// written as it was read, where Append escapes it as AppendString does:
// "caf\u00e9" stays as written rather than becoming "café". So for a
// Value from Parse it appends the same bytes as the function
// AppendCompact does for the document parsed, without reading the
// document again. For a Value built by hand it appends what Append does,
// and so it does for any string changed since Parse read it.
func (v Value) AppendCompact(dst []byte) []byte { return v.write(dst, true) }

// write appends v as compact JSON; asRead says whether the strings Parse
// read with escapes are written as they were read.
func (v *Value) write(dst []byte, asRead bool) []byte {
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
		if asRead && v.lit != nil && decodesTo(*v.lit, v.Str) {
			return append(dst, *v.lit...)
		}
		return AppendString(dst, v.Str)
	case Array:
		dst = append(dst, '[')
		for i := range v.Items {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = v.Items[i].write(dst, asRead)
		}
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		for i := range v.Members {
			m := &v.Members[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			if asRead && m.lit != nil && decodesTo(*m.lit, m.Key) {
				dst = append(dst, *m.lit...)
			} else {
				dst = AppendString(dst, m.Key)
			}
			dst = append(dst, ':')
			dst = m.Value.write(dst, asRead)
		}
		return append(dst, '}')
	}
	return append(dst, "null"...)
}

// decodesTo reports whether the JSON string literal lit, quotes included,
// stands for the text s as Parse reads it: an escape stands for its
// character, an unpaired surrogate for U+FFFD.
func decodesTo(lit, s string) bool {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return false
	}
	lit = lit[1 : len(lit)-1]
	for {
		i := strings.IndexByte(lit, '\\')
		if i < 0 {
			return lit == s
		}
		if len(s) < i || s[:i] != lit[:i] {
			return false
		}
		r, n := unescape(lit[i:])
		if n == 0 {
			return false
		}
		var buf [utf8.UTFMax]byte
		c := buf[:utf8.EncodeRune(buf[:], r)]
		if len(s)-i < len(c) || s[i:i+len(c)] != string(c) {
			return false
		}
		lit, s = lit[i+n:], s[i+len(c):]
	}
}

// unescape reads the escape at the start of s, and returns the character
// it stands for and its length; the length is 0 if s does not start with
// a valid escape. A \u escape of a high surrogate followed by one of a low
// surrogate is one character; any other surrogate is U+FFFD.
func unescape(s string) (rune, int) {
	if len(s) < 2 || s[0] != '\\' {
		return 0, 0
	}
	switch c := s[1]; c {
	case '"', '\\', '/':
		return rune(c), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		if len(s) < 6 {
			return 0, 0
		}
		r, ok := parseHex4(s[2:6])
		if !ok {
			return 0, 0
		}
		if !utf16.IsSurrogate(r) {
			return r, 6
		}
		if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if r2, ok := parseHex4(s[8:12]); ok {
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					return dec, 12
				}
			}
		}
		return utf8.RuneError, 6
	}
	return 0, 0
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

// AppendString appends s to dst as a JSON string, as every JSON Tessera
// writes escapes text (see jsonesc.AppendString, which it calls): it
// escapes '"', '\\', control characters (as \n, \r, \t, \b, \f or
// \u00XX) and U+2028 and U+2029 (which end a line in older JavaScript)
// and nothing else, so text such as "<b>" stays readable; bytes that are
// not valid UTF-8 become U+FFFD, so the output is always valid JSON.
func AppendString(dst []byte, s string) []byte {
	return jsonesc.AppendString(dst, s, false)
}
