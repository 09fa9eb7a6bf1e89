package guard

import (
	"fmt"
	"strings"
)

// minFence is the shortest fence Markdown recognises.
const minFence = 3

// ChooseFence returns the fence to put around text: a run of '~' one longer
// than the longest run of '~' that starts a line of text (after any spaces
// or tabs), and at least three long. No line of text can then close the
// fence, however the text is indented where it is placed. Backticks need
// no care: a line of backticks never closes a fence of tildes.
func ChooseFence(text string) string {
	longest := 0
	for line := range strings.Lines(text) {
		i := 0
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		n := 0
		for i+n < len(line) && line[i+n] == '~' {
			n++
		}
		longest = max(longest, n)
	}
	n := max(minFence, longest+1)
	if n <= len(tildes) {
		return tildes[:n]
	}
	return strings.Repeat("~", n)
}

// tildes holds the common fences, so choosing one does not allocate.
const tildes = "~~~~~~~~~~~~~~~~"

// Fence returns text inside a fence chosen by ChooseFence, with info (such
// as "text" or "json") after the opening fence. The result is the opening
// line, text, and the closing fence, without a final line break; a final
// line break in text is not doubled. Characters of info other than ASCII
// letters, digits and "+-._#" are dropped, so info cannot break the
// opening line.
func Fence(text, info string) string {
	fence := ChooseFence(text)
	info = cleanInfo(info)
	var b strings.Builder
	b.Grow(2*len(fence) + len(info) + len(text) + 2)
	b.WriteString(fence)
	b.WriteString(info)
	b.WriteByte('\n')
	b.WriteString(text)
	if text != "" && !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(fence)
	return b.String()
}

func cleanInfo(info string) string {
	ok := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("+-._#", c) >= 0
	}
	for i := 0; i < len(info); i++ {
		if !ok(info[i]) {
			b := make([]byte, 0, len(info))
			for j := 0; j < len(info); j++ {
				if ok(info[j]) {
					b = append(b, info[j])
				}
			}
			return string(b)
		}
	}
	return info
}

// WrapTag returns text between <tag> and </tag> lines. Any opening or
// closing tag of the same name inside text, in any letter case and with
// any spaces after '<' or '/', has its '<' written as "&lt;", so the
// content can neither close the wrapper nor open a nested one. The tag
// must be an ASCII letter followed by up to 63 letters, digits, '_', '-'
// or '.'; any other tag is an error.
func WrapTag(tag, text string) (string, error) {
	if !validTag(tag) {
		return "", fmt.Errorf("guard: tag %q: use an ASCII letter followed by letters, digits, '_', '-' or '.', at most 64 in all", tag)
	}
	var b strings.Builder
	b.Grow(2*len(tag) + len(text) + 8)
	b.WriteByte('<')
	b.WriteString(tag)
	b.WriteString(">\n")
	neutralise(&b, tag, text)
	if text != "" && !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("</")
	b.WriteString(tag)
	b.WriteByte('>')
	return b.String(), nil
}

func validTag(tag string) bool {
	if len(tag) == 0 || len(tag) > 64 || !isLetter(tag[0]) {
		return false
	}
	for i := 1; i < len(tag); i++ {
		if !isNameByte(tag[i]) {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isNameByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' }

// neutralise writes text to b with the '<' of every tag named tag
// (opening or closing) replaced by "&lt;".
func neutralise(b *strings.Builder, tag, text string) {
	for {
		i := strings.IndexByte(text, '<')
		if i < 0 {
			b.WriteString(text)
			return
		}
		b.WriteString(text[:i])
		if tagAt(text[i+1:], tag) {
			b.WriteString("&lt;")
		} else {
			b.WriteByte('<')
		}
		text = text[i+1:]
	}
}

// tagAt reports whether s, the text after a '<', starts a tag named tag:
// optional spaces, an optional '/', optional spaces, the name in any case,
// then anything that cannot continue a name.
func tagAt(s, tag string) bool {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '/' {
		i++
		for i < len(s) && isSpace(s[i]) {
			i++
		}
	}
	if len(s)-i < len(tag) || !strings.EqualFold(s[i:i+len(tag)], tag) {
		return false
	}
	i += len(tag)
	return i == len(s) || !isNameByte(s[i])
}
