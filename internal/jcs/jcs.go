// Package jcs is the JSON Canonicalization Scheme of RFC 8785: one byte
// sequence for every JSON value, whatever order its keys were written in
// and however its numbers and strings were spelled, so that a hash of it
// names the value. Objects' keys are sorted by their UTF-16 code units,
// numbers are written as ECMAScript writes a double (the shortest form
// that reads back to the same value), strings escape only what JSON
// requires, and nothing else is written between tokens.
package jcs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds how deeply a value may nest.
const maxDepth = 512

// Transform returns the canonical form of the JSON text data. Text that
// is not one JSON value, an object with a key written twice, a string
// that is not UTF-8, a number outside the range of a double, and nesting
// deeper than 512 are errors; RFC 8785 wants I-JSON (RFC 7493) input.
func Transform(data []byte) ([]byte, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("jcs: the text is not UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	out, err := value(dec, nil, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("jcs: text after the value at byte %d: give one JSON value", dec.InputOffset())
	}
	return out, nil
}

func value(dec *json.Decoder, out []byte, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("jcs: the value nests deeper than %d levels", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("jcs: not JSON: %w", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			return object(dec, out, depth)
		case '[':
			out = append(out, '[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					out = append(out, ',')
				}
				if out, err = value(dec, out, depth+1); err != nil {
					return nil, err
				}
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("jcs: not JSON: %w", err)
			}
			return append(out, ']'), nil
		}
		return nil, fmt.Errorf("jcs: unexpected %q", t)
	case string:
		return AppendString(out, t)
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil {
			return nil, fmt.Errorf("jcs: the number %s is outside the range of a double: RFC 8785 numbers are IEEE 754 doubles; send it as a string", t)
		}
		return AppendNumber(out, f)
	case bool:
		return strconv.AppendBool(out, t), nil
	case nil:
		return append(out, "null"...), nil
	}
	return nil, fmt.Errorf("jcs: unexpected token %v", tok)
}

func object(dec *json.Decoder, out []byte, depth int) ([]byte, error) {
	type member struct {
		key string
		val []byte
		at  int64
		utf []uint16
	}
	var ms []member
	for dec.More() {
		at := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("jcs: not JSON: %w", err)
		}
		key, _ := tok.(string)
		for _, m := range ms {
			if m.key == key {
				return nil, fmt.Errorf("jcs: the key %q is written twice (bytes %d and %d): I-JSON keys are unique", key, m.at, at)
			}
		}
		v, err := value(dec, nil, depth+1)
		if err != nil {
			return nil, err
		}
		ms = append(ms, member{key: key, val: v, at: at, utf: utf16.Encode([]rune(key))})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("jcs: not JSON: %w", err)
	}
	slices.SortFunc(ms, func(a, b member) int { return slices.Compare(a.utf, b.utf) })
	out = append(out, '{')
	for i, m := range ms {
		if i > 0 {
			out = append(out, ',')
		}
		var err error
		if out, err = AppendString(out, m.key); err != nil {
			return nil, err
		}
		out = append(out, ':')
		out = append(out, m.val...)
	}
	return append(out, '}'), nil
}

// AppendString appends s as RFC 8785 writes a string: '"' and '\\'
// escaped, the controls \b, \f, \n, \r and \t in their short forms and
// the others as \u00xx, everything else as it is. s must be UTF-8.
func AppendString(out []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, errors.New("jcs: a string is not UTF-8")
	}
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c >= 0x20:
			out = append(out, c)
		case c == '\b':
			out = append(out, `\b`...)
		case c == '\f':
			out = append(out, `\f`...)
		case c == '\n':
			out = append(out, `\n`...)
		case c == '\r':
			out = append(out, `\r`...)
		case c == '\t':
			out = append(out, `\t`...)
		default:
			const hex = "0123456789abcdef"
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
	}
	return append(out, '"'), nil
}

// AppendNumber appends f as ECMAScript's Number.prototype.toString
// writes it, which RFC 8785 adopts: the shortest digits that read back to
// f, in plain decimal from 1e-6 up to 1e21 and in exponent form ("1e+21",
// "5e-324") outside; -0 is "0". NaN and the infinities are errors.
func AppendNumber(out []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("jcs: %v is not a JSON number", f)
	}
	return append(out, FormatNumber(f)...), nil
}

// FormatNumber returns f as AppendNumber writes it; NaN and the
// infinities, which JSON cannot hold, come back as "null".
func FormatNumber(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null"
	}
	if f == 0 {
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// d.ddde±x: the shortest digits, and the exponent.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1 // f = digits × 10^(n-k)
	var b strings.Builder
	b.WriteString(sign)
	switch {
	case k <= n && n <= 21:
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", n-k))
	case 0 < n && n <= 21:
		b.WriteString(digits[:n])
		b.WriteByte('.')
		b.WriteString(digits[n:])
	case -6 < n && n <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -n))
		b.WriteString(digits)
	default:
		b.WriteByte(digits[0])
		if k > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteByte('e')
		if n-1 >= 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(n - 1))
	}
	return b.String()
}
