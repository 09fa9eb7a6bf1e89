package hf

import (
	"fmt"
	"github.com/tessera-dev/tessera/internal/jsonesc"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A small JSON reader for tokenizer.json. The file is tens of megabytes,
// almost all of it the vocabulary and the merges, so those two are read
// straight into their final form (see vocabHook and mergesHook) and only
// the small remainder becomes generic values: map[string]any, []any,
// string, float64, bool and nil.

// jsonReader reads one JSON document from data.
type jsonReader struct {
	data []byte
	pos  int
	// hook, when set, is asked for every object member: if it returns
	// true it has consumed the value and the member is not kept.
	hook func(r *jsonReader, path []string) (bool, error)
	path []string
}

// errorf returns an error naming the byte offset and its line.
func (r *jsonReader) errorf(format string, args ...any) error {
	line := 1
	for _, b := range r.data[:min(r.pos, len(r.data))] {
		if b == '\n' {
			line++
		}
	}
	return fmt.Errorf("invalid JSON at line %d (byte %d): %s", line, r.pos, fmt.Sprintf(format, args...))
}

func (r *jsonReader) space() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// value reads any JSON value.
func (r *jsonReader) value(depth int) (any, error) {
	if depth > 64 {
		return nil, r.errorf("nested more than 64 levels deep")
	}
	r.space()
	if r.pos >= len(r.data) {
		return nil, r.errorf("unexpected end of input")
	}
	switch c := r.data[r.pos]; {
	case c == '{':
		r.pos++
		m := map[string]any{}
		r.space()
		if r.pos < len(r.data) && r.data[r.pos] == '}' {
			r.pos++
			return m, nil
		}
		for {
			r.space()
			k, err := r.str()
			if err != nil {
				return nil, err
			}
			r.space()
			if r.pos >= len(r.data) || r.data[r.pos] != ':' {
				return nil, r.errorf("expected ':' after object key %q", k)
			}
			r.pos++
			r.path = append(r.path, k)
			done := false
			if r.hook != nil {
				r.space()
				if done, err = r.hook(r, r.path); err != nil {
					return nil, err
				}
			}
			if !done {
				v, err := r.value(depth + 1)
				if err != nil {
					return nil, err
				}
				m[k] = v
			}
			r.path = r.path[:len(r.path)-1]
			r.space()
			if r.pos >= len(r.data) {
				return nil, r.errorf("unexpected end of input in an object")
			}
			if r.data[r.pos] == ',' {
				r.pos++
				continue
			}
			if r.data[r.pos] == '}' {
				r.pos++
				return m, nil
			}
			return nil, r.errorf("expected ',' or '}' in an object")
		}
	case c == '[':
		r.pos++
		var a []any
		r.space()
		if r.pos < len(r.data) && r.data[r.pos] == ']' {
			r.pos++
			return []any{}, nil
		}
		for {
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			r.space()
			if r.pos >= len(r.data) {
				return nil, r.errorf("unexpected end of input in an array")
			}
			if r.data[r.pos] == ',' {
				r.pos++
				continue
			}
			if r.data[r.pos] == ']' {
				r.pos++
				return a, nil
			}
			return nil, r.errorf("expected ',' or ']' in an array")
		}
	case c == '"':
		return r.str()
	case c == 't':
		return true, r.word("true")
	case c == 'f':
		return false, r.word("false")
	case c == 'n':
		return nil, r.word("null")
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	default:
		return nil, r.errorf("unexpected character %q", c)
	}
}

func (r *jsonReader) word(w string) error {
	if len(r.data)-r.pos < len(w) || string(r.data[r.pos:r.pos+len(w)]) != w {
		return r.errorf("expected %s", w)
	}
	r.pos += len(w)
	return nil
}

func (r *jsonReader) number() (float64, error) {
	start := r.pos
	for r.pos < len(r.data) {
		c := r.data[r.pos]
		if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || c >= '0' && c <= '9' {
			r.pos++
			continue
		}
		break
	}
	f, err := strconv.ParseFloat(string(r.data[start:r.pos]), 64)
	if err != nil {
		r.pos = start
		return 0, r.errorf("invalid number %q", r.data[start:r.pos])
	}
	return f, nil
}

// integer reads a non-negative integer that fits in an int32.
func (r *jsonReader) integer() (int32, error) {
	r.space()
	start := r.pos
	var n int64
	for r.pos < len(r.data) && r.data[r.pos] >= '0' && r.data[r.pos] <= '9' {
		n = n*10 + int64(r.data[r.pos]-'0')
		if n > 1<<31-1 {
			return 0, r.errorf("number out of range")
		}
		r.pos++
	}
	if r.pos == start {
		return 0, r.errorf("expected a non-negative integer")
	}
	return int32(n), nil
}

// str reads a string; the common case, with no escapes, is one copy.
func (r *jsonReader) str() (string, error) {
	if r.pos >= len(r.data) || r.data[r.pos] != '"' {
		return "", r.errorf("expected a string")
	}
	r.pos++
	start := r.pos
	for r.pos < len(r.data) {
		c := r.data[r.pos]
		if c == '"' {
			s := string(r.data[start:r.pos])
			r.pos++
			return s, nil
		}
		if c == '\\' {
			return r.strSlow(start)
		}
		if c < 0x20 {
			return "", r.errorf("control character in a string")
		}
		r.pos++
	}
	return "", r.errorf("unterminated string")
}

func (r *jsonReader) strSlow(start int) (string, error) {
	buf := append([]byte(nil), r.data[start:r.pos]...)
	for r.pos < len(r.data) {
		c := r.data[r.pos]
		switch {
		case c == '"':
			r.pos++
			return string(buf), nil
		case c < 0x20:
			return "", r.errorf("control character in a string")
		case c != '\\':
			buf = append(buf, c)
			r.pos++
			continue
		}
		r.pos++
		if r.pos >= len(r.data) {
			break
		}
		e := r.data[r.pos]
		r.pos++
		if c, ok := jsonesc.Byte(e); ok {
			buf = append(buf, c)
			continue
		}
		switch e {
		case 'u':
			u, ok := r.hex4()
			if !ok {
				return "", r.errorf("invalid \\u escape")
			}
			ru := rune(u)
			if utf16.IsSurrogate(ru) {
				ru = utf8.RuneError
				if r.pos+1 < len(r.data) && r.data[r.pos] == '\\' && r.data[r.pos+1] == 'u' {
					save := r.pos
					r.pos += 2
					if u2, ok := r.hex4(); ok {
						if d := utf16.DecodeRune(rune(u), rune(u2)); d != utf8.RuneError {
							ru = d
						} else {
							r.pos = save
						}
					} else {
						r.pos = save
					}
				}
			}
			buf = utf8.AppendRune(buf, ru)
		default:
			return "", r.errorf("invalid escape \\%c", e)
		}
	}
	return "", r.errorf("unterminated string")
}

func (r *jsonReader) hex4() (uint16, bool) {
	if len(r.data)-r.pos < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(r.data[r.pos:r.pos+4]), 16, 16)
	if err != nil {
		return 0, false
	}
	r.pos += 4
	return uint16(n), true
}

// expect consumes c after optional space.
func (r *jsonReader) expect(c byte) error {
	r.space()
	if r.pos >= len(r.data) || r.data[r.pos] != c {
		return r.errorf("expected %q", c)
	}
	r.pos++
	return nil
}

// more reports, after an element, whether another follows (a comma) or
// the container ends with end.
func (r *jsonReader) more(end byte) (bool, error) {
	r.space()
	if r.pos >= len(r.data) {
		return false, r.errorf("unexpected end of input")
	}
	switch r.data[r.pos] {
	case ',':
		r.pos++
		return true, nil
	case end:
		r.pos++
		return false, nil
	}
	return false, r.errorf("expected ',' or %q", end)
}

// empty consumes end if the container is empty.
func (r *jsonReader) empty(end byte) bool {
	r.space()
	if r.pos < len(r.data) && r.data[r.pos] == end {
		r.pos++
		return true
	}
	return false
}
