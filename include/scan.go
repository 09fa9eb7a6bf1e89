package include

import (
	"fmt"
	"strings"

	"github.com/tessera-dev/tessera/diag"
)

// Kind is the kind of a template segment.
type Kind uint8

const (
	// Text is literal template text.
	Text Kind = iota
	// Token is a $$NAME workflow token.
	Token
	// Directive is an $$include PATH line.
	Directive
)

// Segment is one piece of a scanned template.
type Segment struct {
	Kind Kind
	// Text is the literal text, for Text segments; for the others it is
	// the source text of the token or directive line.
	Text string
	// Name is the token name without "$$", for Token segments.
	Name string
	// Path is the cleaned include path, for Directive segments.
	Path string
	// Line and Col are the 1-based template line and column (in bytes)
	// the segment starts on; for a directive, where "$$include" starts.
	Line, Col int
}

// Template is a scanned template: its segments in lexical order.
type Template struct {
	// Name is the template's path, used in diagnostics.
	Name string
	// Segments concatenate, with tokens and directives replaced, to the
	// assembled text.
	Segments []Segment
}

// Tokens returns the token names the template uses, in order of first use.
func (t *Template) Tokens() []string {
	var names []string
	for _, s := range t.Segments {
		if s.Kind == Token && !contains(names, s.Name) {
			names = append(names, s.Name)
		}
	}
	return names
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

const directive = "$$include"

// Parse scans src, the normalised text of the template at name. It returns
// the template and every syntax problem found, as a diag.List: a directive
// that does not stand on a line of its own, a directive without a path, a
// path that leaves the catalog root.
func Parse(name, src string) (*Template, error) {
	t := &Template{Name: name}
	var errs diag.List
	textStart, textLine, textCol := 0, 1, 1
	flush := func(end int) {
		if end > textStart {
			t.Segments = append(t.Segments, Segment{Kind: Text, Text: src[textStart:end], Line: textLine, Col: textCol})
		}
	}
	line := 1
	for lineStart := 0; lineStart < len(src); line++ {
		lineEnd := strings.IndexByte(src[lineStart:], '\n')
		next := len(src)
		if lineEnd < 0 {
			lineEnd = len(src)
		} else {
			lineEnd += lineStart
			next = lineEnd + 1
		}
		ln := src[lineStart:lineEnd]
		if !strings.Contains(ln, "$$") {
			lineStart = next
			continue
		}
		if p, ok, err := directivePath(ln); ok {
			col := strings.Index(ln, directive) + 1
			if err != nil {
				errs = append(errs, diag.ErrorfAt(name, line, col, "%v", err))
			} else {
				flush(lineStart)
				t.Segments = append(t.Segments, Segment{Kind: Directive, Text: ln, Path: p, Line: line, Col: col})
				textStart, textLine, textCol = lineEnd, line, lineEnd-lineStart+1 // the line break stays as text
			}
			lineStart = next
			continue
		}
		for i := 0; ; {
			j := strings.Index(ln[i:], "$$")
			if j < 0 {
				break
			}
			at := i + j
			rest := ln[at+2:]
			if n := tokenLen(rest); n > 0 {
				flush(lineStart + at)
				t.Segments = append(t.Segments, Segment{Kind: Token, Text: ln[at : at+2+n], Name: rest[:n], Line: line, Col: at + 1})
				textStart, textLine, textCol = lineStart+at+2+n, line, at+2+n+1
				i = at + 2 + n
				continue
			}
			if isDirectiveWord(rest) {
				errs = append(errs, diag.ErrorfAt(name, line, at+1, "$$include must stand on a line of its own, followed by a path"))
			}
			i = at + 1
		}
		lineStart = next
	}
	flush(len(src))
	if len(errs) > 0 {
		return t, errs
	}
	return t, nil
}

// directivePath reports whether line is an $$include directive line and
// returns its cleaned path.
func directivePath(line string) (p string, ok bool, err error) {
	s := strings.Trim(line, " \t")
	if !strings.HasPrefix(s, directive) {
		return "", false, nil
	}
	rest := s[len(directive):]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", false, nil // "$$includes", "$$include:" and the like are text
	}
	raw := strings.Trim(rest, " \t")
	if raw == "" {
		return "", true, fmt.Errorf("$$include needs a path: write $$include path/to/file.txt, relative to the catalog root")
	}
	c, err := CleanPath(raw)
	if err != nil {
		return "", true, fmt.Errorf("$$include: %w", err)
	}
	return c, true, nil
}

func isDirectiveWord(s string) bool {
	if !strings.HasPrefix(s, "include") {
		return false
	}
	s = s[len("include"):]
	return s == "" || s[0] == ' ' || s[0] == '\t'
}

// tokenLen returns the length of the token name at the start of s, or 0.
func tokenLen(s string) int {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return 0
	}
	n := 1
	for n < len(s) && isNameByte(s[n]) {
		n++
	}
	return n
}

func isNameByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// ValidName reports whether name is a valid token name, [A-Z][A-Z0-9_]*.
func ValidName(name string) bool { return name != "" && tokenLen(name) == len(name) }

// CheckIncluded returns an error naming the file and line if text, the
// content of an included file, holds a token or an $$include directive.
// Included text is not expanded again, so such a file would send the raw
// token to the model.
func CheckIncluded(name, text string) error {
	if !strings.Contains(text, "$$") {
		return nil
	}
	var errs diag.List
	line := 1
	for _, ln := range strings.SplitAfter(text, "\n") {
		for i := 0; ; {
			j := strings.Index(ln[i:], "$$")
			if j < 0 {
				break
			}
			rest, col := ln[i+j+2:], i+j+1
			if n := tokenLen(rest); n > 0 {
				errs = append(errs, diag.ErrorfAt(name, line, col, "included text holds the token $$%s: includes are not expanded again (no recursion); put the token in the template instead", rest[:n]))
			} else if isDirectiveWord(rest) {
				errs = append(errs, diag.ErrorfAt(name, line, col, "included text holds an $$include directive: includes are not expanded again (no recursion); include the file from the template instead"))
			}
			i += j + 1 // as Parse does: "$$$A" holds the token $$A
		}
		line++
	}
	return errs.Err()
}
