package typed

import (
	"fmt"
	"slices"
	"strings"
)

// Text is a parsed section template: literal text and placeholders.
type Text struct {
	// Source is the template as written.
	Source string
	segs   []segment // of Source, for positions
	out    []segment // of Source dedented, for rendering; nil: segs
}

// segment is literal text, or a placeholder naming a parameter.
type segment struct {
	lit   string
	param string
	off   int // byte offset of the '$' in Source, for diagnostics
}

// textError is a problem at a byte offset of a template.
type textError struct {
	off int
	msg string
}

// Params returns the names of the parameters the text refers to, in
// order of first use.
func (t *Text) Params() []string {
	if t == nil {
		return nil
	}
	var names []string
	for _, s := range t.segs {
		if s.param != "" && !slices.Contains(names, s.param) {
			names = append(names, s.param)
		}
	}
	return names
}

// parseText splits src into literal text and placeholders: $name or
// ${name}, a name being letters, digits and '_' not starting with a
// digit; "$$" is a literal '$'. Any other '$' is a problem, as Python's
// Template.substitute treats it: the text is returned with every problem.
func parseText(src string) (*Text, []textError) {
	t, errs := splitText(src)
	if d := dedent(src); len(errs) == 0 && d != src {
		dt, _ := splitText(d)
		t.Source, t.out = src, dt.segs
	}
	return t, errs
}

// dedent removes the white space that every line of s that is not blank
// starts with, as Python's textwrap.dedent does (design 003's sections
// dedent, then strip): a line of white space alone becomes empty and
// does not count, and a tab and a space are different characters.
func dedent(s string) string {
	margin, found := "", false
	for line := range strings.Lines(s) {
		body := strings.TrimRight(line, "\n")
		trimmed := strings.TrimLeft(body, " \t")
		if trimmed == "" {
			continue
		}
		indent := body[:len(body)-len(trimmed)]
		switch {
		case !found:
			margin, found = indent, true
		case strings.HasPrefix(indent, margin):
		case strings.HasPrefix(margin, indent):
			margin = indent
		default:
			n := 0
			for n < len(margin) && n < len(indent) && margin[n] == indent[n] {
				n++
			}
			margin = margin[:n]
		}
	}
	var b strings.Builder
	b.Grow(len(s))
	changed := false
	for line := range strings.Lines(s) {
		body := strings.TrimRight(line, "\n")
		nl := line[len(body):]
		switch {
		case strings.TrimLeft(body, " \t") == "":
			changed = changed || body != ""
			b.WriteString(nl)
		case margin != "":
			changed = true
			b.WriteString(body[len(margin):])
			b.WriteString(nl)
		default:
			b.WriteString(line)
		}
	}
	if !changed {
		return s
	}
	return b.String()
}

// splitText splits src into its segments.
func splitText(src string) (*Text, []textError) {
	t := &Text{Source: src}
	var (
		errs []textError
		lit  strings.Builder
	)
	flush := func() {
		if lit.Len() > 0 {
			t.segs = append(t.segs, segment{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(src); {
		j := strings.IndexByte(src[i:], '$')
		if j < 0 {
			lit.WriteString(src[i:])
			break
		}
		lit.WriteString(src[i : i+j])
		i += j
		rest := src[i+1:]
		switch {
		case strings.HasPrefix(rest, "$"):
			lit.WriteByte('$')
			i += 2
		case strings.HasPrefix(rest, "{"):
			end := strings.IndexByte(rest, '}')
			name := ""
			if end > 0 {
				name = rest[1:end]
			}
			if end < 0 || !validName(name) {
				errs = append(errs, textError{i, fmt.Sprintf("%s is not a placeholder: write ${name} with a parameter's name (letters, digits and '_'), or $$ for a dollar sign", quoteStart(src[i:]))})
				lit.WriteByte('$')
				i++
				continue
			}
			flush()
			t.segs = append(t.segs, segment{param: name, off: i})
			i += 2 + end
		default:
			n := nameLen(rest)
			if n == 0 {
				errs = append(errs, textError{i, fmt.Sprintf("%s is not a placeholder: write $name or ${name} with a parameter's name, or $$ for a dollar sign", quoteStart(src[i:]))})
				lit.WriteByte('$')
				i++
				continue
			}
			flush()
			t.segs = append(t.segs, segment{param: rest[:n], off: i})
			i += 1 + n
		}
	}
	flush()
	return t, errs
}

// quoteStart quotes the start of s (a '$' and what follows, up to the end
// of its word or six bytes) for a message.
func quoteStart(s string) string {
	end := 1
	for end < len(s) && end < 6 && s[end] != ' ' && s[end] != '\n' && s[end] != '\t' {
		end++
	}
	for end < len(s) && s[end]&0xC0 == 0x80 { // whole characters only
		end++
	}
	return fmt.Sprintf("%q", s[:end])
}

// nameLen returns the length of the placeholder name at the start of s.
func nameLen(s string) int {
	n := 0
	for n < len(s) {
		c := s[n]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || n > 0 && c >= '0' && c <= '9' {
			n++
			continue
		}
		break
	}
	return n
}

func validName(s string) bool { return s != "" && nameLen(s) == len(s) }

// render writes the text with each placeholder replaced by its value's
// text, and trims the surrounding white space (as design 003's sections
// dedent and strip).
func (t *Text) render(vals map[string]Value) string {
	if t == nil {
		return ""
	}
	segs := t.segs
	if t.out != nil {
		segs = t.out
	}
	if len(segs) == 1 && segs[0].param == "" {
		return strings.TrimSpace(segs[0].lit)
	}
	var b strings.Builder
	for _, s := range segs {
		if s.param == "" {
			b.WriteString(s.lit)
			continue
		}
		b.WriteString(vals[s.param].Text)
	}
	return strings.TrimSpace(b.String())
}
