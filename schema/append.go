package schema

import "unicode/utf8"

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
