package typed

import (
	"fmt"
	"slices"
	"strings"
)

// maxDepth is how deeply sections may nest: a top-level section is at
// depth 1 and is written "## 1. Title", so depth 5 is "######", the
// deepest heading Markdown has. Parse refuses deeper sections at their
// line and column.
const maxDepth = 5

// titleProblem says what is wrong with a section title, or "" when it is
// one non-empty line.
func titleProblem(title string) string {
	switch {
	case strings.TrimSpace(title) == "":
		return "is blank: write its heading, one line of text"
	case strings.ContainsAny(title, "\n\r\v\f\u0085\u2028\u2029"):
		return "spans lines: a title is one line (a second line could pass for a heading of its own)"
	case strings.TrimSpace(title) != title:
		return "has spaces at its start or end: remove them"
	}
	return ""
}

// Check reports what makes a Template built from its exported fields
// (rather than by Parse) unusable: nil sections, invalid or repeated
// keys, titles that are not one line, summaries that are missing,
// enabling parameters that are not declared booleans, tools whose names
// clash, and nesting deeper than five levels. A template from Parse
// passes; a nil template is an error.
func (t *Template) Check() error {
	if t == nil {
		return errNilTemplate
	}
	type def struct {
		path string
		tool Tool
	}
	var seen map[string]def // tool name -> where first defined
	var walk func(parent []string, secs []*SectionSpec, depth int) error
	walk = func(parent []string, secs []*SectionSpec, depth int) error {
		at := func(key string) string { return strings.Join(append(parent[:len(parent):len(parent)], key), "/") }
		for i, s := range secs {
			if s == nil {
				return fmt.Errorf("typed %s/%s: section %d under %q is nil: build templates with Parse", t.NS, t.Key, i+1, strings.Join(parent, "/"))
			}
			switch {
			case !validKey(s.Key):
				return fmt.Errorf("typed %s/%s: section key %q under %q: use 1 to 64 lower-case letters, digits, '.', '_' and '-'", t.NS, t.Key, s.Key, strings.Join(parent, "/"))
			case depth > maxDepth:
				return fmt.Errorf("typed %s/%s: section %q is nested %d deep: sections nest at most %d deep", t.NS, t.Key, at(s.Key), depth, maxDepth)
			case s.Summarized && s.Summary == nil:
				return fmt.Errorf("typed %s/%s: section %q is summarized but has no summary", t.NS, t.Key, at(s.Key))
			}
			for _, prev := range secs[:i] {
				if prev.Key == s.Key {
					return fmt.Errorf("typed %s/%s: section %q is repeated: keys are unique among siblings", t.NS, t.Key, at(s.Key))
				}
			}
			if p := titleProblem(s.Title); p != "" {
				return fmt.Errorf("typed %s/%s: section %q: the title %s", t.NS, t.Key, at(s.Key), p)
			}
			if s.Enabled != "" {
				if p := t.Param(s.Enabled); p == nil || p.Type != Boolean {
					return fmt.Errorf("typed %s/%s: section %q: enabled names %q, which is not a declared boolean parameter", t.NS, t.Key, at(s.Key), s.Enabled)
				}
			}
			for _, tl := range s.Tools {
				if tl.Name == OpenSectionsTool || tl.Name == ReadSectionTool {
					return fmt.Errorf("typed %s/%s: section %q: tool %q: the name is the preset's own disclosure tool: rename it", t.NS, t.Key, at(s.Key), tl.Name)
				}
				if prev, ok := seen[tl.Name]; ok {
					if !sameTool(prev.tool, tl) {
						return fmt.Errorf("typed %s/%s: section %q: tool %q is defined differently by section %q: give one of them another name", t.NS, t.Key, at(s.Key), tl.Name, prev.path)
					}
					continue
				}
				if seen == nil {
					seen = map[string]def{}
				}
				seen[tl.Name] = def{at(s.Key), tl}
			}
			if len(s.Children) > 0 {
				if err := walk(append(parent, s.Key), s.Children, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(nil, t.Sections, 1)
}

// validKey is prompt.ValidKey without a regular expression:
// ^[a-z0-9][a-z0-9._-]{0,63}$.
func validKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// sameTool reports whether a and b define a tool the same way.
func sameTool(a, b Tool) bool {
	return a.Name == b.Name && a.Description == b.Description && string(a.Parameters) == string(b.Parameters) && string(a.Result) == string(b.Result) && slices.Equal(a.Examples, b.Examples)
}
