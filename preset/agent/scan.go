package agent

import "strings"

// segment is a piece of a template value: literal text, or a placeholder.
type segment struct {
	// text is the literal text, with {{ and }} written as single braces;
	// empty for a placeholder.
	text string
	// name is the placeholder's name; empty for literal text.
	name string
	// off is the byte offset of the piece in the value as written.
	off int
	// ph is the placeholder, once the template is checked.
	ph *placeholder
}

// scanError is a brace the scanner cannot read, at a byte offset of the
// value.
type scanError struct {
	off int
	msg string
}

// scan splits a template value into literal text and {name}
// placeholders, in one pass: "{{" is a literal '{', "}}" a literal '}',
// and "{name}" (name: letters, digits and '_') a placeholder. Any other
// '{' or '}' is an error, so a JSON example pasted without doubling its
// braces is caught when the template is loaded instead of producing a
// broken prompt. Adjacent literal text is merged into one segment. Every
// problem is returned.
func scan(s string) ([]segment, []scanError) {
	var (
		segs []segment
		errs []scanError
		lit  strings.Builder
		from = 0 // offset of the literal being built
	)
	flush := func(next int) {
		if lit.Len() > 0 {
			segs = append(segs, segment{text: lit.String(), off: from})
			lit.Reset()
		}
		from = next
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{':
			lit.WriteByte('{')
			i += 2
		case c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte('}')
			i += 2
		case c == '{':
			j := i + 1
			for j < len(s) && isNameByte(s[j]) {
				j++
			}
			if j > i+1 && j < len(s) && s[j] == '}' {
				flush(j + 1)
				segs = append(segs, segment{name: s[i+1 : j], off: i})
				i = j + 1
				continue
			}
			errs = append(errs, scanError{off: i, msg: "a single '{' that does not start a {name} placeholder: write '{{' for a literal brace"})
			lit.WriteByte('{')
			i++
		case c == '}':
			errs = append(errs, scanError{off: i, msg: "a single '}' outside a placeholder: write '}}' for a literal brace"})
			lit.WriteByte('}')
			i++
		default:
			j := i + 1
			for j < len(s) && s[j] != '{' && s[j] != '}' {
				j++
			}
			lit.WriteString(s[i:j])
			i = j
		}
	}
	flush(len(s))
	return segs, errs
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// aloneOnLine reports whether the piece s[start:end] stands alone on its
// line of s, with nothing but spaces and tabs beside it.
func aloneOnLine(s string, start, end int) bool {
	for i := start - 1; i >= 0 && s[i] != '\n'; i-- {
		if s[i] != ' ' && s[i] != '\t' {
			return false
		}
	}
	for i := end; i < len(s) && s[i] != '\n'; i++ {
		if s[i] != ' ' && s[i] != '\t' {
			return false
		}
	}
	return true
}
