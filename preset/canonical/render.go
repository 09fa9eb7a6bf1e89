package canonical

import (
	"maps"
	"slices"
	"sync"

	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
)

// noneProvided is the body of an empty or missing section.
const noneProvided = "None provided."

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
	return render.Render(sections, style(cfg))
}

// Style returns the canonical preset's style for cfg: the seven slots in
// canonical order, "## [Label]" headings at cfg.HeadingLevel, children as
// bullets, "None provided." for empty sections unless hidden, and the
// design's notes for dropped transcript messages and tasks.
//
// The style is the caller's own to change; Render and the preset's
// layouts share one built once per setting.
func Style(cfg Config) render.Style {
	st := style(cfg)
	st.Slots = slices.Clone(st.Slots)
	st.Notes = maps.Clone(st.Notes)
	return st
}

// styles are the canonical styles, built once: by heading level (1 to
// 3), then without and with empty sections hidden.
var styles = sync.OnceValue(func() (s [3][2]render.Style) {
	for level := 1; level <= 3; level++ {
		s[level-1][0] = newStyle(level, false)
		s[level-1][1] = newStyle(level, true)
	}
	return s
})

// style returns the shared style of cfg: its slots and notes must not be
// changed.
func style(cfg Config) render.Style {
	level := cfg.HeadingLevel
	if level < 1 || level > 3 {
		level = 2
	}
	hide := 0
	if cfg.HideEmptySections {
		hide = 1
	}
	return styles()[level-1][hide]
}

func newStyle(level int, hide bool) render.Style {
	st := render.Style{
		Slots:     make([]render.Slot, len(order)),
		Heading:   render.Heading{Level: level, Brackets: true},
		Empty:     noneProvided,
		HideEmpty: hide,
		Children:  render.Bullets,
		NoteMark:  "- ",
		Notes:     notes(),
	}
	for i, o := range order {
		st.Slots[i] = render.Slot{Key: o.key, Title: o.title, Stable: stable(o.key)}
	}
	return st
}

// stable reports whether key is one of StableKeys, without building the
// list.
func stable(key string) bool {
	switch key {
	case keySystemPrompt, keyIdentity, keyRequestingUser, keyConstraints:
		return true
	}
	return false
}

// notes say how many items were dropped, in the words of the section:
// transcript messages are exchanges, task items lower-priority tasks.
func notes() map[string]render.Note {
	return map[string]render.Note{
		keyTranscript: {Text: "(last {kept} {kept|exchange|exchanges}, truncated)", AllGone: "(all {n} {n|exchange|exchanges} truncated)"},
		keyTask:       {Text: "({n} lower-priority {n|task|tasks} omitted)"},
		"":            {Text: "({n} {n|item|items} omitted)"},
	}
}
