// Package jsonesc holds JSON's string escapes, both ways: the one-character
// escapes Tessera's JSON readers share (the schema reader, the YAML
// package's JSON reader, the reply reader of package output and the
// tokenizer.json reader), so that each reads them the same way, and the
// one JSON string writer, AppendString, so that every JSON Tessera writes
// escapes text the same way.
package jsonesc

import "unicode/utf8"

// Byte returns the byte the JSON escape '\' e stands for, for every
// escape but \u: \" \\ \/ \b \f \n \r \t. ok is false for any other e.
func Byte(e byte) (c byte, ok bool) {
	switch e {
	case '"', '\\', '/':
		return e, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// safe holds the bytes written as they are: printable ASCII but '"' and
// '\\'; htmlSafe also leaves out '<', '>' and '&'.
var safe, htmlSafe = func() (t, h [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
		h[c] = t[c] && c != '<' && c != '>' && c != '&'
	}
	return t, h
}()

const hexDigits = "0123456789abcdef"

// AppendString appends s to dst as a JSON string. It escapes '"', '\\',
// control characters (as \n, \r, \t, \b, \f or \u00XX) and U+2028 and
// U+2029 (which end a line in older JavaScript) and nothing else, so text
// such as "<b>" stays readable; bytes that are not valid UTF-8 become
// U+FFFD, so the output is always valid JSON.
//
// With html set it writes s byte for byte as encoding/json does: '<',
// '>' and '&' are escaped too (\u003c, \u003e, \u0026), and bytes that
// are not valid UTF-8 become the escape \ufffd.
func AppendString(dst []byte, s string, html bool) []byte {
	table := &safe
	if html {
		table = &htmlSafe
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		for i < len(s) && table[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
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
			default: // a control character, or with html '<', '>' or '&'
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\u2028' || r == '\u2029':
			// Line and paragraph separators end a line in JavaScript
			// before ES2019: escaped, the JSON is also a JavaScript
			// string.
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		case r != utf8.RuneError || n != 1:
			i += n
			continue
		case html:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		default:
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
		}
		i += n
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
