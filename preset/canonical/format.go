package canonical

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/prompt"
)

// indexNames are the names of a list's first items, made once: the ids,
// keys and sources that every layout gives its items.
type indexNames struct {
	first [32]string
	of    func(i int) string
}

func newIndexNames(of func(i int) string) *indexNames {
	n := &indexNames{of: of}
	for i := range n.first {
		n.first[i] = of(i)
	}
	return n
}

// name returns the name of item i.
func (n *indexNames) name(i int) string {
	if i < len(n.first) {
		return n.first[i]
	}
	return n.of(i)
}

var (
	taskIDs           = newIndexNames(func(i int) string { return "task[" + strconv.Itoa(i) + "]" })
	messageIDs        = newIndexNames(func(i int) string { return "message[" + strconv.Itoa(i) + "]" })
	attachmentKeys    = newIndexNames(func(i int) string { return keyAttachmentPrefix + strconv.Itoa(i+1) })
	attachmentSources = newIndexNames(func(i int) string { return "input.attachments[" + strconv.Itoa(i) + "]" })
)

func titleOf(key string) string {
	for _, o := range order {
		if o.key == key {
			return o.title
		}
	}
	return ""
}

// section returns a trusted section whose body is what b holds after
// mark, and moves mark to the end.
func section(key string, b *strings.Builder, mark *int, priority int, trim prompt.TrimRule, role prompt.Role, source string) prompt.Section {
	body := strings.TrimSuffix(b.String()[*mark:], "\n")
	*mark = b.Len()
	return prompt.Section{Key: key, Title: titleOf(key), Body: body, Priority: priority, Trim: trim, Role: role, Source: source}
}

func line(b *strings.Builder, s string) {
	b.WriteString(s)
	b.WriteByte('\n')
}

// marked writes "- (n) text".
func marked(b *strings.Builder, n int, text string) {
	b.WriteString("- (")
	b.WriteString(strconv.Itoa(n))
	b.WriteString(") ")
	line(b, oneLine(text))
}

// labelled writes "- label: value".
func labelled(b *strings.Builder, label, value string) {
	b.WriteString("- ")
	b.WriteString(label)
	b.WriteString(": ")
	line(b, value)
}

// bullet writes "- label: value" when value has text.
func bullet(b *strings.Builder, label, value string) {
	if v := oneLine(value); v != "" {
		labelled(b, label, v)
	}
}

// bulletList writes "- label: a; b" when values has entries: the
// values joinLine joins, written in place.
func bulletList(b *strings.Builder, label string, values []string, sep string) {
	first := slices.IndexFunc(values, func(v string) bool { return oneLine(v) != "" })
	if first < 0 {
		return
	}
	b.WriteString("- ")
	b.WriteString(label)
	b.WriteString(": ")
	b.WriteString(oneLine(values[first]))
	for _, v := range values[first+1:] {
		if v = oneLine(v); v != "" {
			b.WriteString(sep)
			b.WriteString(v)
		}
	}
	b.WriteByte('\n')
}

func joinLine(values []string, sep string) string {
	switch len(values) {
	case 0:
		return ""
	case 1:
		return oneLine(values[0])
	}
	var b strings.Builder
	for _, v := range values {
		if v = oneLine(v); v != "" {
			if b.Len() > 0 {
				b.WriteString(sep)
			}
			b.WriteString(v)
		}
	}
	return b.String()
}

// byPriority returns the indexes 0..n-1 sorted by ascending priority
// (0 counting as defaultPriority), ties in their given order.
func byPriority(n int, priority func(i int) int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Compare(cmp.Or(priority(a), defaultPriority), cmp.Or(priority(b), defaultPriority))
	})
	return idx
}

var formatNames = map[string]string{FormatMarkdown: "Markdown", FormatJSON: "JSON", FormatXML: "XML", FormatText: "plain text"}

// taskText renders one task annotation: its bullet, then the output
// format as indented bullets with the schema and example fenced.
func taskText(b *strings.Builder, t *TaskAnnotation, p int) string {
	start := b.Len()
	b.WriteString("- (")
	b.WriteString(strconv.Itoa(p))
	b.WriteString(") ")
	b.WriteString(oneLine(t.Instruction))
	o := t.OutputFormat
	if o == nil {
		return b.String()[start:]
	}
	b.WriteString("\n  - Output format: ")
	b.WriteString(formatNames[o.Type])
	if len(o.JSONSchema) > 0 {
		b.WriteString(", matching this JSON Schema:\n")
		writeSchema(b, o.JSONSchema)
	}
	if ex := clean(o.Example); ex != "" {
		b.WriteString("\n  - Example output:\n")
		b.WriteString(indent(guard.Fence(ex, o.Type), "    "))
	}
	return b.String()[start:]
}

// writeSchema writes raw indented by two spaces, keys in the order
// written, fenced as JSON, and the whole indented by four spaces under
// its bullet.
func writeSchema(b *strings.Builder, raw json.RawMessage) {
	const margin = "    "
	// A schema that ends with its '}' (as every parsed one does) indents
	// to lines that are none of them blank and that end with it: the
	// margin can be written with the indentation, in one pass.
	if raw[len(raw)-1] != '}' {
		b.WriteString(indent(guard.Fence(indentJSON(raw), "json"), margin))
		return
	}
	out, ok := appendIndent(make([]byte, 0, 2*len(raw)), raw, margin)
	if !ok {
		var buf bytes.Buffer
		if json.Indent(&buf, raw, margin, "  ") != nil {
			b.WriteString(indent(guard.Fence(indentJSON(raw), "json"), margin))
			return
		}
		out = buf.Bytes()
	}
	fence := "~~~"
	if bytes.IndexByte(out, '~') >= 0 {
		fence = guard.ChooseFence(string(out))
	}
	b.WriteString(margin)
	b.WriteString(fence)
	b.WriteString("json\n")
	b.WriteString(margin)
	b.Write(out)
	b.WriteByte('\n')
	b.WriteString(margin)
	b.WriteString(fence)
}

// appendIndent appends raw, a JSON value, as json.Indent(dst, raw,
// prefix, "  ") writes it, without the scanner json.Indent checks every
// byte with: white space outside strings is dropped, each member and
// item goes on a line of its own after prefix and two spaces a level,
// ':' is followed by a space, an empty object or array stays "{}" or
// "[]", and strings and other values are copied as they are. A raw that
// is not valid JSON may come out other than json.Indent's; ok is false
// only when a string or a bracket is left open, or one is closed that
// was not opened. A spec's schemas are valid JSON (validate checks them).
func appendIndent(dst, raw []byte, prefix string) (out []byte, ok bool) {
	depth := 0
	open := false // a '{' or '[' was written, and nothing after it yet
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if open && c != '}' && c != ']' {
			open = false
			depth++
			dst = appendNewline(dst, prefix, depth)
		}
		switch c {
		case '"':
			j := i + 1
			for j < len(raw) && raw[j] != '"' {
				if raw[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(raw) {
				return dst, false
			}
			dst = append(dst, raw[i:j+1]...)
			i = j
		case '{', '[':
			open = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			dst = appendNewline(dst, prefix, depth)
		case ':':
			dst = append(dst, ':', ' ')
		case '}', ']':
			if open {
				open = false
			} else {
				if depth--; depth < 0 {
					return dst, false
				}
				dst = appendNewline(dst, prefix, depth)
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst, depth == 0 && !open
}

// appendNewline appends a line break, prefix and depth levels of two
// spaces.
func appendNewline(dst []byte, prefix string, depth int) []byte {
	dst = append(dst, '\n')
	dst = append(dst, prefix...)
	for range depth {
		dst = append(dst, ' ', ' ')
	}
	return dst
}

// indentJSON returns raw indented by two spaces, keys in the order
// written.
func indentJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw) // not reached for a validated spec
	}
	return b.String()
}

// indent prefixes every non-empty line of s with prefix.
func indent(s, prefix string) string {
	var b strings.Builder
	for l := range strings.Lines(s) {
		if l != "\n" {
			b.WriteString(prefix)
		}
		b.WriteString(l)
	}
	return b.String()
}

var roleLetters = map[string]string{RoleUser: "U", RoleAssistant: "A", RoleTool: "T"}

// transcriptSection applies the retention limits, newest messages kept,
// and returns the transcript as items.
func transcriptSection(b *strings.Builder, st *ConversationState, ret *Retention) prompt.Section {
	var lim RetentionLimits
	if st.Retention != nil {
		lim = *st.Retention
	}
	msgs := st.Transcript
	contents := make([]string, len(msgs))
	first, chars := len(msgs), 0
	for i := len(msgs) - 1; i >= 0; i-- {
		c := clean(msgs[i].Content)
		n := 0
		if lim.MaxChars > 0 {
			// Characters are counted only against a limit.
			n = utf8.RuneCountInString(c)
		}
		if lim.MaxMessages > 0 && len(msgs)-i > lim.MaxMessages || lim.MaxChars > 0 && chars+n > lim.MaxChars {
			break
		}
		contents[i], chars, first = c, chars+n, i
	}
	for i := range first {
		ret.DroppedChars += utf8.RuneCountInString(clean(msgs[i].Content))
	}
	ret.Kept, ret.Dropped = len(msgs)-first, first
	sec := prompt.Section{
		Key: keyTranscript, Priority: priorityTranscript, Trust: prompt.Untrusted, Role: prompt.RoleUser,
		Trim: prompt.TrimOldest, Omitted: first, Source: "conversationState.transcript",
	}
	sec.Items = make([]prompt.Item, 0, len(msgs)-first)
	for i := first; i < len(msgs); i++ {
		m := &msgs[i]
		start := b.Len()
		b.WriteString(roleLetters[m.Role])
		if m.At != "" {
			b.WriteString(" [")
			b.WriteString(m.At)
			b.WriteByte(']')
		}
		b.WriteString(": ")
		for rest, first := contents[i], true; ; first = false {
			l, more, found := strings.Cut(rest, "\n")
			if !first {
				b.WriteByte('\n')
				if l != "" {
					b.WriteString("   ")
				}
			}
			b.WriteString(l)
			if !found {
				break
			}
			rest = more
		}
		sec.Items = append(sec.Items, prompt.Item{ID: messageIDs.name(i), Text: b.String()[start:], Seq: int64(i)})
	}
	return sec
}

// clean returns text with "\n" line ends, leading blank lines and
// trailing white space removed.
func clean(s string) string {
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	}
	s = strings.TrimRight(s, " \t\n")
	for {
		nl := strings.IndexByte(s, '\n')
		if nl < 0 || strings.TrimLeft(s[:nl], " \t") != "" {
			return s
		}
		s = s[nl+1:]
	}
}

// oneLine returns s on one line: each line trimmed, blank lines dropped,
// the rest joined by single spaces. Bullets are one rule per line, and a
// value cannot start a line of its own (a heading, say).
func oneLine(s string) string {
	if strings.IndexByte(s, '\n') < 0 && strings.IndexByte(s, '\r') < 0 {
		return strings.TrimSpace(s)
	}
	var parts []string
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}
