package guard

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// minFence is the shortest fence Markdown recognises.
const minFence = 3

// ChooseFence returns the fence to put around text: a run of '~' one longer
// than the longest run of '~' that starts a line of text, and at least
// three long. No line of text can then close the fence, however the text
// is indented where it is placed. Backticks need no care: a line of
// backticks never closes a fence of tildes.
//
// A line ends, as in CommonMark, at "\n", "\r\n" or a lone "\r"; to be
// safe with readers less strict than CommonMark, it also ends at a
// vertical tab, a form feed, NEL (U+0085) and the Unicode line and
// paragraph separators. A run counts as starting a line after any
// blanks: spaces, tabs, other Unicode spaces and invisible format
// characters such as U+200B, though CommonMark lets a closing fence be
// indented only by up to three spaces; invisible characters inside a run
// do not end it.
func ChooseFence(text string) string {
	const (
		lead  = iota // in the blanks that start a line
		run          // in the run of '~' after them
		after        // past the run
	)
	i := strings.IndexByte(text, '~')
	if i < 0 {
		return tildes[:minFence] // most text has no '~' at all
	}
	// The scan starts at the line the first '~' is on: nothing before it
	// can make a run.
	for i > 0 && !lineEndBefore(text, i) {
		i--
	}
	longest, n, state := 0, 0, lead
	for i < len(text) {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		i += size
		switch {
		case isLineEnd(r):
			n, state = 0, lead
		case state == after:
		case r == '~':
			n, state = n+1, run
			longest = max(longest, n)
		case state == lead && isGap(r), state == run && isInvisible(r):
		default:
			state = after
		}
	}
	n = max(minFence, longest+1)
	if n <= len(tildes) {
		return tildes[:n]
	}
	return strings.Repeat("~", n)
}

// lineEndBefore reports whether a line end (see isLineEnd) ends just
// before text[i].
func lineEndBefore(text string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return isLineEnd(r)
}

// isLineEnd reports whether r ends a line for ChooseFence: '\n' and '\r'
// as in CommonMark, and the other characters Unicode calls line breaks.
func isLineEnd(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029':
		return true
	}
	return false
}

// isGap reports whether r is white space or a character that shows
// nothing (a format character such as U+200B or U+FEFF, a variation
// selector, a Hangul filler): something a reader may skip between the
// parts of a tag, or before a fence.
func isGap(r rune) bool {
	return unicode.IsSpace(r) || isInvisible(r)
}

// isInvisible reports whether r is a default-ignorable character: one
// that takes no space and that a reader may not see at all.
func isInvisible(r rune) bool {
	if r < 0x80 {
		return false
	}
	return unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
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

// WrapTag returns text between <tag> and </tag> lines, with every opening
// or closing tag of the same name inside text neutralised, so the content
// can neither close the wrapper nor open a nested one. The tag must be an
// ASCII letter followed by up to 63 letters, digits, '_', '-' or '.'; any
// other tag is an error.
//
// A tag is read as loosely as a model might read it: a '<' (or its
// fullwidth or small form, U+FF1C or U+FE64); then any white space
// (Unicode's, "\r", "\v", "\f" and U+0085 included), invisible characters
// (U+200B, U+FEFF and the like) and slashes ('/', '\\', their fullwidth
// forms, the fraction and division slashes); then the name, in any
// letter case, in ASCII or fullwidth letters, with invisible characters
// anywhere in it and with '_', '-' and '.' standing for one another;
// then anything that cannot continue a name (so "</TAG foo>", "<tag/>" and
// "</tag" at the end of text all count). Neutralising writes the '<' as
// "&lt;", and U+FF1C and U+FE64 as "&#xFF1C;" and "&#xFE64;"; nothing else
// in text changes. Look-alike letters from other scripts (a Cyrillic 'а'
// in the name) and escaped forms ("\u003c/tag>", "%3C/tag>") are not
// read as tags.
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

// The forms of '<' that open a tag, and what each is written as when it
// does.
const (
	fullwidthLess = '\uFF1C' // ＜
	smallLess     = '\uFE64' // ﹤
)

// neutralise writes text to b with the '<' of every tag named tag
// (opening or closing, as WrapTag reads tags) written as an entity.
func neutralise(b *strings.Builder, tag, text string) {
	for {
		i := nextOpener(text)
		if i < 0 {
			b.WriteString(text)
			return
		}
		b.WriteString(text[:i])
		r, size := utf8.DecodeRuneInString(text[i:])
		if !tagAt(text[i+size:], tag) {
			b.WriteString(text[i : i+size])
		} else {
			switch r {
			case '<':
				b.WriteString("&lt;")
			case fullwidthLess:
				b.WriteString("&#xFF1C;")
			case smallLess:
				b.WriteString("&#xFE64;")
			}
		}
		text = text[i+size:]
	}
}

// nextOpener returns the index of the first '<', U+FF1C or U+FE64 in s,
// or -1.
func nextOpener(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			return i
		case 0xEF: // the first byte of both other forms
			if strings.HasPrefix(s[i:], string(fullwidthLess)) || strings.HasPrefix(s[i:], string(smallLess)) {
				return i
			}
		}
	}
	return -1
}

// tagAt reports whether s, the text after a '<', starts a tag named tag:
// any gaps and slashes, the name (see nameRune), then anything that
// cannot continue a name.
func tagAt(s, tag string) bool {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isGap(r) && !isSlash(r) {
			break
		}
		i += size
	}
	for j := 0; j < len(tag); {
		if i == len(s) {
			return false
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if j > 0 && isInvisible(r) {
			continue
		}
		c, ok := nameRune(r)
		if !ok || !sameNameByte(c, tag[j]) {
			return false
		}
		j++
	}
	if i == len(s) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	_, more := nameRune(r)
	return !more
}

// isSlash reports whether r may stand for the '/' of a closing tag.
func isSlash(r rune) bool {
	switch r {
	case '/', '\\', '\uFF0F', '\uFF3C', '\u2044', '\u2215', '\u29F8':
		return true
	}
	return false
}

// nameRune returns the ASCII name byte that r stands for, lower-cased:
// r itself, the ASCII form of a fullwidth letter, digit, '-', '.' or '_',
// or the letter that the Kelvin sign (K) and the long s (ſ) fold to. It
// reports false if r cannot be part of a name.
func nameRune(r rune) (byte, bool) {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E:
		r -= 0xFF01 - '!'
	case r == '\u212A':
		r = 'k'
	case r == '\u017F':
		r = 's'
	}
	if r >= utf8.RuneSelf || !isNameByte(byte(r)) {
		return 0, false
	}
	c := byte(r)
	if c >= 'A' && c <= 'Z' {
		c += 'a' - 'A'
	}
	return c, true
}

// sameNameByte reports whether c, a lower-cased name byte from text,
// matches t, a byte of the tag: the same letter or digit in any case, or
// any of '_', '-' and '.' for any other.
func sameNameByte(c, t byte) bool {
	if t >= 'A' && t <= 'Z' {
		t += 'a' - 'A'
	}
	sep := func(c byte) bool { return c == '_' || c == '-' || c == '.' }
	return c == t || sep(c) && sep(t)
}
