package canonical

import (
	"strconv"
	"strings"

	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/prompt"
)

// NoneProvided is the body of an empty or missing section.
const NoneProvided = "None provided."

// Render renders sections as canonical text. It depends only on its
// arguments, so a budget stage can drop sections, drop items or truncate
// bodies and render again.
//
// The seven canonical sections are rendered in canonical order, whatever
// their order in the slice, each under a heading "## [Label]" (as many '#'
// as cfg.HeadingLevel, 2 when it is outside 1 to 3). A canonical section
// that is missing from the slice, or empty, is rendered as "None
// provided." unless cfg.HideEmptySections. Sections with other keys follow
// Input, in their slice order, under their titles.
//
// Within a section come the body (the summary when the section's
// visibility is summary), then the items, then the children. Untrusted
// text is fenced with "~~~text", with a fence chosen over the text so
// that no line of it closes the fence: an untrusted body alone, untrusted
// items together. A section whose items were dropped (Omitted) gets a
// note: "(last 4 exchanges, truncated)" at the top of the transcript
// fence, "- (2 lower-priority tasks omitted)" after the tasks. A child is
// introduced by "- Title:" when it has a title. Sections are joined by a
// blank line; the text has no final line break.
//
// The prompt's Sections span each rendered section, heading included,
// and each rendered child (keys joined with '/'), with the hash of its
// text.
func Render(sections []prompt.Section, cfg Config) prompt.Prompt {
	level := cfg.HeadingLevel
	if level < 1 || level > 3 {
		level = 2
	}
	r := renderer{spans: make([]prompt.SectionSpan, 0, len(order)+4)}
	size := 0
	for i := range sections {
		size += sectionSize(&sections[i])
	}
	r.b.Grow(size + len(order)*48)
	used := make([]bool, len(sections))
	for _, o := range order {
		var s *prompt.Section
		for i := range sections {
			if !used[i] && sections[i].Key == o.key {
				s, used[i] = &sections[i], true
				break
			}
		}
		if s == nil {
			if !cfg.HideEmptySections {
				r.top(&prompt.Section{Key: o.key, Title: o.title}, level)
			}
			continue
		}
		if empty(s) && cfg.HideEmptySections {
			continue
		}
		r.top(s, level)
	}
	for i := range sections {
		if !used[i] && !(cfg.HideEmptySections && empty(&sections[i])) {
			r.top(&sections[i], level)
		}
	}
	text := r.b.String()
	for i := range r.spans {
		r.spans[i].Hash = prompt.Hash(text[r.spans[i].Start:r.spans[i].End])
	}
	return prompt.Prompt{Text: text, Hash: prompt.Hash(text), Sections: r.spans}
}

type renderer struct {
	b     strings.Builder
	spans []prompt.SectionSpan
}

func sectionSize(s *prompt.Section) int {
	n := len(s.Title) + len(s.Body) + len(s.Summary) + 32
	for _, it := range s.Items {
		n += len(it.Text) + 1
	}
	for i := range s.Children {
		n += sectionSize(&s.Children[i])
	}
	return n
}

// top renders a top-level section: heading, then content or "None
// provided.".
func (r *renderer) top(s *prompt.Section, level int) {
	if r.b.Len() > 0 {
		r.b.WriteString("\n\n")
	}
	start := r.b.Len()
	title := s.Title
	if title == "" {
		title = titleOf(s.Key)
	}
	for range level {
		r.b.WriteByte('#')
	}
	r.b.WriteString(" [")
	r.b.WriteString(title)
	r.b.WriteString("]\n")
	span := len(r.spans)
	r.spans = append(r.spans, prompt.SectionSpan{Key: s.Key, Start: start})
	if empty(s) {
		r.b.WriteString(NoneProvided)
	} else {
		r.content(s, s.Key)
	}
	r.spans[span].End = r.b.Len()
}

// body returns the text a section shows for its body.
func body(s *prompt.Section) string {
	if s.Visibility == prompt.Summary {
		return s.Summary
	}
	return s.Body
}

// empty reports whether a section renders nothing of its own.
func empty(s *prompt.Section) bool {
	if body(s) != "" || len(s.Items) > 0 || s.Omitted > 0 {
		return false
	}
	for i := range s.Children {
		if shown(&s.Children[i]) {
			return false
		}
	}
	return true
}

// shown reports whether a child renders anything: its title line or
// content.
func shown(c *prompt.Section) bool { return c.Title != "" || !empty(c) }

// content writes the body, items and children of s; path is its span
// key.
func (r *renderer) content(s *prompt.Section, path string) {
	sep := false
	next := func() {
		if sep {
			r.b.WriteByte('\n')
		}
		sep = true
	}
	if t := body(s); t != "" {
		next()
		if s.Trust == prompt.Untrusted {
			r.fence(t, "", nil)
		} else {
			r.b.WriteString(t)
		}
	}
	if len(s.Items) > 0 || s.Omitted > 0 {
		next()
		note := omittedNote(s)
		if s.Trust == prompt.Untrusted {
			r.fence("", note, s.Items)
		} else {
			for i, it := range s.Items {
				if i > 0 {
					r.b.WriteByte('\n')
				}
				r.b.WriteString(it.Text)
			}
			if note != "" {
				if len(s.Items) > 0 {
					r.b.WriteByte('\n')
				}
				r.b.WriteString("- ")
				r.b.WriteString(note)
			}
		}
	}
	for i := range s.Children {
		c := &s.Children[i]
		if !shown(c) {
			continue
		}
		next()
		start := r.b.Len()
		key := path + "/" + c.Key
		span := len(r.spans)
		r.spans = append(r.spans, prompt.SectionSpan{Key: key, Start: start})
		if c.Title != "" {
			r.b.WriteString("- ")
			r.b.WriteString(c.Title)
			if !empty(c) {
				r.b.WriteString(":\n")
			}
		}
		if !empty(c) {
			r.content(c, key)
		}
		r.spans[span].End = r.b.Len()
	}
}

// fence writes a "~~~text" fence around text, or around the note and the
// items' texts, one per line, choosing the fence over all of them.
func (r *renderer) fence(text, note string, items []prompt.Item) {
	fence := guard.ChooseFence(text)
	if note != "" {
		fence = longer(fence, guard.ChooseFence(note))
	}
	for _, it := range items {
		fence = longer(fence, guard.ChooseFence(it.Text))
	}
	r.b.WriteString(fence)
	r.b.WriteString("text\n")
	if text != "" {
		r.b.WriteString(text)
		r.b.WriteByte('\n')
	}
	if note != "" {
		r.b.WriteString(note)
		r.b.WriteByte('\n')
	}
	for _, it := range items {
		r.b.WriteString(it.Text)
		r.b.WriteByte('\n')
	}
	r.b.WriteString(fence)
}

func longer(a, b string) string {
	if len(b) > len(a) {
		return b
	}
	return a
}

// omittedNote says how many items were dropped, in the words of the
// section: transcript messages are exchanges, task items lower-priority
// tasks.
func omittedNote(s *prompt.Section) string {
	if s.Omitted <= 0 {
		return ""
	}
	n := strconv.Itoa(s.Omitted)
	switch s.Key {
	case KeyTranscript:
		if len(s.Items) == 0 {
			return "(all " + n + " " + plural(s.Omitted, "exchange", "exchanges") + " truncated)"
		}
		return "(last " + strconv.Itoa(len(s.Items)) + " " + plural(len(s.Items), "exchange", "exchanges") + ", truncated)"
	case KeyTask:
		return "(" + n + " lower-priority " + plural(s.Omitted, "task", "tasks") + " omitted)"
	}
	return "(" + n + " " + plural(s.Omitted, "item", "items") + " omitted)"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
