package guard

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
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
// A tag is read as loosely as a model might read it: a '<' or a form of
// it (fullwidth '＜' U+FF1C, small '﹤' U+FE64) or a look-alike ('‹'
// U+2039, '〈' U+2329 and U+3008, '⟨' U+27E8, '˂' U+02C2); then any white
// space (Unicode's, "\r", "\v", "\f" and U+0085 included), invisible or
// control characters (U+200B, U+FEFF, NUL and the like), combining marks
// and slashes ('/', '\\', their fullwidth forms, the fraction and
// division slashes); then the name, in any letter case, in ASCII or in
// any letters that fold to ASCII under NFKC (fullwidth, mathematical
// bold, italic, script, fraktur, sans-serif, monospace, circled), with
// invisible and control characters, line breaks and combining marks
// anywhere in it and with '_', '-' and '.' standing for one another; then
// anything that cannot continue a name (so "</TAG foo>", "<tag/>" and
// "</tag" at the end of text all count). Neutralising writes the '<' as
// "&lt;", and each other form as its hexadecimal character reference
// ("&#xFF1C;", "&#x2039;", ...); nothing else in text changes. Look-alike letters from other scripts (a Cyrillic 'а'
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

// lessEntity returns what r, a form of '<' that opens a tag, is written
// as when it does: '<' itself, its fullwidth and small forms (U+FF1C,
// U+FE64), and its look-alikes, the angle quotation mark '‹' (U+2039),
// the angle brackets '〈' (U+2329, U+3008) and '⟨' (U+27E8) and the
// modifier letter '˂' (U+02C2). It reports false for any other rune.
func lessEntity(r rune) (string, bool) {
	switch r {
	case '<':
		return "&lt;", true
	case '\uFF1C', '\uFE64', '\u2039', '\u2329', '\u3008', '\u27E8', '\u02C2':
		return fmt.Sprintf("&#x%X;", r), true
	}
	return "", false
}

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
			e, _ := lessEntity(r)
			b.WriteString(e)
		}
		text = text[i+size:]
	}
}

// nextOpener returns the index of the first form of '<' (see
// lessEntity) in s, or -1.
func nextOpener(s string) int {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '<':
			return i
		case c == 0xCB || c == 0xE2 || c == 0xE3 || c == 0xEF: // the first bytes of the other forms
			r, _ := utf8.DecodeRuneInString(s[i:])
			if _, ok := lessEntity(r); ok {
				return i
			}
		}
	}
	return -1
}

// isNameNoise reports whether r, inside a tag's name, may be skipped by
// a reader: an invisible character, a control character (NUL, a line
// break, a tab), or a combining mark, which shows on the letter before.
func isNameNoise(r rune) bool {
	return r < 0x20 || r == 0x7f || isLineEnd(r) || isInvisible(r) || r >= 0x300 && unicode.In(r, unicode.Mn, unicode.Me)
}

// tagAt reports whether s, the text after a '<', starts a tag named tag:
// any gaps and slashes, the name (see nameRune), then anything that
// cannot continue a name.
func tagAt(s, tag string) bool {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isGap(r) && !isSlash(r) && !isNameNoise(r) {
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
		if j > 0 && isNameNoise(r) {
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
// or the one ASCII character r folds to under Unicode's compatibility
// normalisation (NFKC): the mathematical bold, italic, script, fraktur,
// double-struck, sans-serif and monospace letters and digits, circled
// letters, the Kelvin sign (K), the long s (ſ). It
// reports false if r cannot be part of a name.
func nameRune(r rune) (byte, bool) {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E:
		r -= 0xFF01 - '!'
	case r >= utf8.RuneSelf:
		var buf [utf8.UTFMax]byte
		if f := norm.NFKC.Bytes(buf[:utf8.EncodeRune(buf[:], r)]); len(f) == 1 {
			r = rune(f[0])
		}
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
