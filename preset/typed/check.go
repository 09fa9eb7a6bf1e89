package typed

import (
	"fmt"
	"strings"

	"github.com/tessera-dev/tessera/prompt"
)

// MaxDepth is how deeply sections may nest: a top-level section is at
// depth 1 and is written "## 1. Title", so depth 5 is "######", the
// deepest heading Markdown has. Parse refuses deeper sections at their
// line and column.
const MaxDepth = 5

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

// check reports what makes a Template built from its exported fields
// (rather than by Parse) unusable: nil sections, invalid or repeated
// keys, titles that are not one line, summaries that are missing,
// enabling parameters that are not declared booleans, tools whose names
// clash, and nesting deeper than MaxDepth. A template from Parse passes.
func (t *Template) check() error {
	type def struct {
		path string
		tool Tool
	}
	seen := map[string]def{} // tool name -> where first defined
	var walk func(parent string, secs []*SectionSpec, depth int) error
	walk = func(parent string, secs []*SectionSpec, depth int) error {
		keys := map[string]bool{}
		for i, s := range secs {
			if s == nil {
				return fmt.Errorf("typed %s/%s: section %d under %q is nil: build templates with Parse", t.NS, t.Key, i+1, parent)
			}
			path := prompt.JoinKey(parent, s.Key)
			switch {
			case !prompt.ValidKey(s.Key):
				return fmt.Errorf("typed %s/%s: section key %q under %q: use 1 to 64 lower-case letters, digits, '.', '_' and '-'", t.NS, t.Key, s.Key, parent)
			case keys[s.Key]:
				return fmt.Errorf("typed %s/%s: section %q is repeated: keys are unique among siblings", t.NS, t.Key, path)
			case depth > MaxDepth:
				return fmt.Errorf("typed %s/%s: section %q is nested %d deep: sections nest at most %d deep", t.NS, t.Key, path, depth, MaxDepth)
			case s.Summarized && s.Summary == nil:
				return fmt.Errorf("typed %s/%s: section %q is summarized but has no summary", t.NS, t.Key, path)
			}
			keys[s.Key] = true
			if p := titleProblem(s.Title); p != "" {
				return fmt.Errorf("typed %s/%s: section %q: the title %s", t.NS, t.Key, path, p)
			}
			if s.Enabled != "" {
				if p := t.Param(s.Enabled); p == nil || p.Type != Boolean {
					return fmt.Errorf("typed %s/%s: section %q: enabled names %q, which is not a declared boolean parameter", t.NS, t.Key, path, s.Enabled)
				}
			}
			for _, tl := range s.Tools {
				if tl.Name == OpenSectionsTool || tl.Name == ReadSectionTool {
					return fmt.Errorf("typed %s/%s: section %q: tool %q: the name is the preset's own disclosure tool: rename it", t.NS, t.Key, path, tl.Name)
				}
				if prev, ok := seen[tl.Name]; ok {
					if !sameTool(prev.tool, tl) {
						return fmt.Errorf("typed %s/%s: section %q: tool %q is defined differently by section %q: give one of them another name", t.NS, t.Key, path, tl.Name, prev.path)
					}
					continue
				}
				seen[tl.Name] = def{path, tl}
			}
			if err := walk(path, s.Children, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk("", t.Sections, 1)
}

// sameTool reports whether a and b define a tool the same way.
func sameTool(a, b Tool) bool {
	return a.Name == b.Name && a.Description == b.Description && string(a.Parameters) == string(b.Parameters)
}
