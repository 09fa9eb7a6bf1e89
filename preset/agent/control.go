package agent

import (
	"strings"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/prompt"
)

// hasControl reports whether s holds a character cleanControls changes:
// a C0 control other than '\t' and '\n', DEL, or a C1 control (U+0080 to
// U+009F, two bytes in UTF-8 starting with 0xC2).
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 && c != '\n' && c != '\t', c == 0x7f:
			return true
		case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f:
			return true
		}
	}
	return false
}

// cleanControls returns s with no control character but '\n' and '\t':
// "\r\n" and a lone '\r' become '\n', as prompt.Normalize makes them;
// the other line breaks among the controls (vertical tab, form feed and
// NEL, U+0085), which the fence already reads as line ends, become '\n'
// as well; every other C0 control (U+0000 to U+001F, as ESC and BEL),
// DEL (U+007F) and every other C1 control (U+0080 to U+009F) becomes
// U+FFFD, the replacement character, so the text shows that something
// was there and the characters on either side are not joined.
func cleanControls(s string) string {
	if !hasControl(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case r == '\r':
			b.WriteByte('\n')
			if i+1 < len(s) && s[i+1] == '\n' {
				n++
			}
		case r == '\v', r == '\f', r == 0x85:
			b.WriteByte('\n')
		case r == '\n', r == '\t':
			b.WriteByte(byte(r))
		case r < 0x20, r >= 0x7f && r <= 0x9f:
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// cleanSections applies cleanControls to every text of secs that the
// prompt shows or a provider request carries: titles, bodies, summaries,
// items, tool descriptions, and those of their children. The sections
// are Build's own, so they are changed in place. Tool names are left as
// they are: the tools file's check refuses a name that is not a valid
// tool name.
func cleanSections(secs []prompt.Section) {
	for i := range secs {
		s := &secs[i]
		s.Title = cleanControls(s.Title)
		s.Body = cleanControls(s.Body)
		s.Summary = cleanControls(s.Summary)
		s.NativeBody = cleanControls(s.NativeBody)
		for j := range s.Items {
			s.Items[j].Text = cleanControls(s.Items[j].Text)
		}
		for j := range s.Tools {
			s.Tools[j].Description = cleanControls(s.Tools[j].Description)
		}
		cleanSections(s.Children)
	}
}
