// Package render turns sections into prompt text: one renderer for every
// preset, driven by a Style that is data. A style says which sections come
// first and in what order (its slots), how a heading is written, how
// children and items are written, what separates sections, what an empty
// section shows and how a note about dropped items reads. Untrusted text
// is always fenced here, never by a preset, so no preset can forget to.
//
// Render is a pure function of its arguments, so the budget stage can drop
// sections, drop items or truncate bodies and render again.
package render

import (
	"strconv"
	"strings"

	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/prompt"
)

// Style is how a preset's sections are written. The zero Style writes
// each section's title (when it has one) on a line above its body, items
// and children, and joins sections with a blank line; Plain adds "## "
// before titles.
type Style struct {
	// Slots are the preset's own sections, in the order they are written;
	// sections with other keys follow them, in the order given.
	Slots []Slot
	// Heading is how a section's title line is written.
	Heading Heading
	// Separator joins top-level sections; "" means a blank line ("\n\n").
	Separator string
	// Empty is the text of a section with nothing to show, and of a slot
	// with no section; "" writes the heading alone.
	Empty string
	// HideEmpty leaves out sections with nothing to show, and slots with
	// no section, instead of writing them with Empty.
	HideEmpty bool
	// Children is how child sections are written.
	Children Children
	// NoteMark is written before a note about dropped items in trusted
	// text (such as "- "); in a fence the note stands alone.
	NoteMark string
	// Notes are the notes about dropped items, by section key; the entry
	// with the empty key is the default, and without one the note reads
	// "(N more omitted)". See Note.
	Notes map[string]Note
	// Whole marks a preset whose text is one undivided piece, such as a
	// template: no section spans are recorded, and a provider request
	// sends it as one part.
	Whole bool
}

// Slot is a section a style knows: where it goes, what it is called, and
// its defaults for the budget and for provider requests.
type Slot struct {
	// Key is the section key the slot holds.
	Key string
	// Title is the heading when the section has no title of its own.
	Title string
	// Stable marks a section whose text stays the same from request to
	// request, so a provider may cache it.
	Stable bool
}

// Heading is how a title line is written: Marks, then the number, then
// the title, as in "## [Task]", "### 1.2. Child" or "# CONSTITUTION".
type Heading struct {
	// Level is the number of '#' before a top-level title; 0 writes the
	// title with no marks, and a negative level writes no title line.
	Level int
	// Deeper adds one '#' for each level of nesting, for Blocks children.
	Deeper bool
	// Brackets writes the title as "[Title]".
	Brackets bool
	// Numbered writes "1. ", "1.2. " ... before the title, by position
	// among the sections written.
	Numbered bool
	// Upper writes the title in capitals.
	Upper bool
}

// Children is how child sections are written.
type Children uint8

const (
	// Blocks writes a child like a section: its heading line (one level
	// deeper when Heading.Deeper), then its content, after a blank line.
	Blocks Children = iota
	// Bullets writes a child inside its parent's content as "- Title:"
	// followed by its content on the next line ("- Title" alone when it
	// has none).
	Bullets
)

// Note is the note written where items were dropped. In its texts, {n} is
// the number dropped, {kept} the number left, and {n|one|many} or
// {kept|one|many} the singular or plural word for that number.
type Note struct {
	// Text is the note when items remain.
	Text string
	// AllGone is the note when none remain; "" uses Text.
	AllGone string
}

// Plain is the style of a preset with no layout of its own: "## Title"
// headings at every depth, children as blocks, sections joined by a blank
// line, and empty untitled sections left out.
var Plain = Style{Heading: Heading{Level: 2}}

// DefaultNote is the note of a style without one.
var DefaultNote = Note{Text: "({n} more omitted)"}

// Render writes sections in style s and returns the text, its hash and,
// unless the style is Whole, the span and hash of every section written
// down to MaxSpanDepth levels below the top (children's keys joined to
// their parent's with '/').
//
// A section's content is its body (its summary when its visibility is
// summary), then its items one per line with a note for any dropped, then
// its children, each part on a new line. Untrusted bodies are fenced on
// their own, untrusted items together with their note, with a fence that
// no line of the text can close.
func Render(sections []prompt.Section, s Style) prompt.Prompt {
	if s.Whole && len(sections) == 1 && len(s.Slots) == 0 {
		// One trusted, untitled section with nothing but a body (a
		// template) is its body: no copy.
		if sec := &sections[0]; sec.Trust == prompt.Trusted && sec.Title == "" && len(sec.Items) == 0 && sec.Omitted == 0 && len(sec.Children) == 0 {
			text := Body(sec)
			return prompt.Prompt{Text: text, Hash: prompt.Hash(text)}
		}
	}
	r := renderer{style: &s}
	size := len(s.Slots) * 48
	for i := range sections {
		size += sectionSize(&sections[i])
	}
	r.b.Grow(size)
	if !s.Whole {
		r.spans = make([]prompt.SectionSpan, 0, len(sections)+len(s.Slots))
	}
	var used []bool
	if len(s.Slots) > 0 {
		used = make([]bool, len(sections))
	}
	for _, slot := range s.Slots {
		var sec *prompt.Section
		for i := range sections {
			if !used[i] && sections[i].Key == slot.Key {
				sec, used[i] = &sections[i], true
				break
			}
		}
		if sec == nil {
			if !s.HideEmpty {
				r.top(&prompt.Section{Key: slot.Key}, slot.Title)
			}
			continue
		}
		r.top(sec, slot.Title)
	}
	for i := range sections {
		if used == nil || !used[i] {
			r.top(&sections[i], "")
		}
	}
	text := r.b.String()
	for i := range r.spans {
		r.spans[i].Hash = prompt.Hash(text[r.spans[i].Start:r.spans[i].End])
	}
	return prompt.Prompt{Text: text, Hash: prompt.Hash(text), Sections: r.spans}
}

// MinSize returns a lower bound of the length of the text Render writes
// for sections, whatever the style: the bytes of their bodies (or
// summaries) and items, and their children's, which it writes whole. A
// caller checks a cap on the text with it before the text is built.
func MinSize(sections []prompt.Section) int64 {
	var n int64
	for i := range sections {
		s := &sections[i]
		n += int64(len(Body(s)))
		for _, it := range s.Items {
			n += int64(len(it.Text))
		}
		n += MinSize(s.Children)
	}
	return n
}

type renderer struct {
	style  *Style
	b      strings.Builder
	spans  []prompt.SectionSpan
	number []int // the heading number of the section being written
	count  int   // top-level sections written, for numbering
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

// MaxSpanDepth is how deeply a section may nest below a top-level section
// and still get a span of its own: a section nested deeper is written as
// usual, but its text is recorded only in the spans of its ancestors. It
// bounds the hashing of spans, which reads each byte of the text once for
// every span around it, to MaxSpanDepth+1 reads of the text, however deep
// a caller's tree (a chain of thousands of sections would otherwise cost
// time and memory in the square of its depth).
const MaxSpanDepth = 8

// span opens a span for key, a section depth levels below the top, at the
// current end and returns its index, or -1 when the style records none or
// the section is deeper than MaxSpanDepth.
func (r *renderer) span(key string, depth int) int {
	if r.style.Whole || depth > MaxSpanDepth {
		return -1
	}
	r.spans = append(r.spans, prompt.SectionSpan{Key: key, Start: r.b.Len()})
	return len(r.spans) - 1
}

func (r *renderer) end(i int) {
	if i >= 0 {
		r.spans[i].End = r.b.Len()
	}
}

// top writes a top-level section; fallback is its slot's title.
func (r *renderer) top(s *prompt.Section, fallback string) {
	st := r.style
	isEmpty := Empty(s)
	if isEmpty && st.HideEmpty {
		return
	}
	title := s.Title
	if title == "" {
		title = fallback
	}
	if isEmpty && title == "" && st.Empty == "" {
		return // nothing at all to write
	}
	// A separator after every section written before, even one whose
	// text is empty, so the parts joined by it are the text.
	if r.count > 0 {
		if st.Separator == "" {
			r.b.WriteString("\n\n")
		} else {
			r.b.WriteString(st.Separator)
		}
	}
	r.count++
	r.number = append(r.number[:0], r.count)
	i := r.span(s.Key, 0)
	r.block(s, s.Key, title, 0)
	r.end(i)
}

// block writes a section's heading line and content, or Empty.
func (r *renderer) block(s *prompt.Section, path, title string, depth int) {
	st := r.style
	wrote := false
	if title != "" && st.Heading.Level >= 0 {
		r.heading(title, depth)
		wrote = true
	}
	if Empty(s) {
		if st.Empty != "" {
			if wrote {
				r.b.WriteByte('\n')
			}
			r.b.WriteString(st.Empty)
		}
		return
	}
	if wrote {
		r.b.WriteByte('\n')
	}
	r.content(s, path, depth)
}

func (r *renderer) heading(title string, depth int) {
	h := r.style.Heading
	level := h.Level
	if h.Deeper {
		level += depth
	}
	for range level {
		r.b.WriteByte('#')
	}
	if level > 0 {
		r.b.WriteByte(' ')
	}
	if h.Numbered {
		for _, n := range r.number {
			r.b.WriteString(strconv.Itoa(n))
			r.b.WriteByte('.')
		}
		r.b.WriteByte(' ')
	}
	if h.Upper {
		title = strings.ToUpper(title)
	}
	if h.Brackets {
		r.b.WriteByte('[')
		r.b.WriteString(title)
		r.b.WriteByte(']')
	} else {
		r.b.WriteString(title)
	}
}

// Body returns the text a section shows for its body: its summary when
// its visibility is summary.
func Body(s *prompt.Section) string {
	if s.Visibility == prompt.Summary {
		return s.Summary
	}
	return s.Body
}

// Empty reports whether a section has nothing of its own to show: no
// body, no items, no note of dropped items, and no child that shows
// anything (a child with a title shows it).
func Empty(s *prompt.Section) bool {
	if Body(s) != "" || len(s.Items) > 0 || s.Omitted > 0 {
		return false
	}
	for i := range s.Children {
		if c := &s.Children[i]; c.Title != "" || !Empty(c) {
			return false
		}
	}
	return true
}

// content writes the body, items and children of s; path is its span
// key.
func (r *renderer) content(s *prompt.Section, path string, depth int) {
	st := r.style
	sep := false
	next := func() {
		if sep {
			r.b.WriteByte('\n')
		}
		sep = true
	}
	if t := Body(s); t != "" {
		next()
		if s.Trust == prompt.Untrusted {
			r.fence(t, "", nil)
		} else {
			r.b.WriteString(t)
		}
	}
	if len(s.Items) > 0 || s.Omitted > 0 {
		next()
		note := r.note(s)
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
				r.b.WriteString(st.NoteMark)
				r.b.WriteString(note)
			}
		}
	}
	number := len(r.number)
	shown := 0
	for i := range s.Children {
		c := &s.Children[i]
		if c.Title == "" && Empty(c) {
			continue
		}
		key := prompt.JoinKey(path, c.Key)
		if st.Children == Bullets {
			next()
			j := r.span(key, depth+1)
			if c.Title != "" {
				r.b.WriteString("- ")
				r.b.WriteString(c.Title)
				if !Empty(c) {
					r.b.WriteString(":\n")
				}
			}
			if !Empty(c) {
				r.content(c, key, depth+1)
			}
			r.end(j)
			continue
		}
		if r.b.Len() > 0 {
			r.b.WriteString("\n\n")
		}
		sep = true
		shown++
		r.number = append(r.number[:number], shown)
		j := r.span(key, depth+1)
		r.block(c, key, c.Title, depth+1)
		r.end(j)
	}
	r.number = r.number[:number]
}

// fence writes a "~~~text" fence around text, or around the note and the
// items' texts, one per line, with a fence longer than any run inside.
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

// note returns the note about the items dropped from s, or "".
func (r *renderer) note(s *prompt.Section) string {
	if s.Omitted <= 0 {
		return ""
	}
	n, ok := r.style.Notes[s.Key]
	if !ok {
		if n, ok = r.style.Notes[""]; !ok {
			n = DefaultNote
		}
	}
	text := n.Text
	if len(s.Items) == 0 && n.AllGone != "" {
		text = n.AllGone
	}
	return expand(text, s.Omitted, len(s.Items))
}

// expand fills a note's {n}, {kept}, {n|one|many} and {kept|one|many}.
func expand(text string, n, kept int) string {
	var b strings.Builder
	b.Grow(len(text) + 8)
	for {
		i := strings.IndexByte(text, '{')
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		j := strings.IndexByte(text[i:], '}')
		if j < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i])
		// name, or name|one|many: exactly two '|'.
		name, words, plural := strings.Cut(text[i+1:i+j], "|")
		one, many, _ := strings.Cut(words, "|")
		plural = plural && strings.Count(words, "|") == 1
		v := -1
		switch name {
		case "n":
			v = n
		case "kept":
			v = kept
		}
		switch {
		case v < 0:
			b.WriteString(text[i : i+j+1])
		case plural && v == 1:
			b.WriteString(one)
		case plural:
			b.WriteString(many)
		default:
			b.WriteString(strconv.Itoa(v))
		}
		text = text[i+j+1:]
	}
}
