package budget

import (
	"strconv"
	"strings"

	"github.com/tessera-dev/tessera/prompt"
)

// Plain renders sections for presets without a layout of their own: each
// section's title as a "## " heading, its body (or summary), its items one
// per line with a note of how many were omitted, then its children, with
// sections separated by a blank line. Empty sections are skipped. Every
// rendered section gets a span; nested keys are joined with '/'.
func Plain(sections []prompt.Section) prompt.Prompt {
	var b strings.Builder
	b.Grow(plainSize(sections))
	var spans []prompt.SectionSpan
	plain(&b, &spans, sections, "")
	text := b.String()
	for i := range spans {
		spans[i].Hash = prompt.Hash(text[spans[i].Start:spans[i].End])
	}
	return prompt.Prompt{Text: text, Hash: prompt.Hash(text), Sections: spans}
}

func plain(b *strings.Builder, spans *[]prompt.SectionSpan, secs []prompt.Section, parent string) {
	for i := range secs {
		s := &secs[i]
		path := s.Key
		if parent != "" {
			path = parent + "/" + s.Key
		}
		body := s.Body
		if s.Visibility == prompt.Summary {
			body = s.Summary
		}
		if s.Title == "" && body == "" && len(s.Items) == 0 && s.Omitted == 0 && len(s.Children) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		start := b.Len()
		*spans = append(*spans, prompt.SectionSpan{Key: path, Start: start})
		idx := len(*spans) - 1
		line := func(text string) {
			if b.Len() > start {
				b.WriteByte('\n')
			}
			b.WriteString(text)
		}
		if s.Title != "" {
			line("## " + s.Title)
		}
		if body != "" {
			line(body)
		}
		for _, it := range s.Items {
			line(it.Text)
		}
		if s.Omitted > 0 {
			line("(" + strconv.Itoa(s.Omitted) + " more omitted)")
		}
		(*spans)[idx].End = b.Len()
		if len(s.Children) > 0 {
			plain(b, spans, s.Children, path)
			(*spans)[idx].End = b.Len()
		}
	}
}

// plainSize is an upper bound of Plain's output size, so the builder
// does not grow.
func plainSize(secs []prompt.Section) int {
	n := 0
	for i := range secs {
		s := &secs[i]
		n += len(s.Title) + len(s.Body) + len(s.Summary) + 32
		for _, it := range s.Items {
			n += len(it.Text) + 1
		}
		n += plainSize(s.Children)
	}
	return n
}
