package hf

import (
	"regexp"
	"testing"
)

// tekkenRE is Tekken's pattern up to its white space alternatives, for
// Go's regexp package, whose leftmost-first matching gives a
// backtracking engine's matches for it. \s is spelled out as Unicode's
// White_Space (Go's \s is ASCII only); the white space alternatives, with
// their lookahead, are matchSpace's, which the Llama 3 pattern shares.
var tekkenRE = regexp.MustCompile(`^(?:` +
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|` +
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|` +
	`\p{N}|` +
	` ?[^` + whiteSpaceRE + `\p{L}\p{N}]+[\r\n/]*)`)

// whiteSpaceRE lists the characters of Unicode's White_Space property.
const whiteSpaceRE = `\t\n\v\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}`

// checkTekken splits s with matchTekken and checks each match against
// tekkenRE, or matchSpace where the regexp does not match.
func checkTekken(t *testing.T, s string) {
	t.Helper()
	tab := table()
	for i := 0; i < len(s); {
		got := matchTekken(tab, s, i)
		want := -1
		if m := tekkenRE.FindStringIndex(s[i:]); m != nil && m[1] > 0 {
			want = i + m[1]
		} else if c, _ := classAt(tab, s, i); c&cWS != 0 {
			want = matchSpace(tab, s, i)
		}
		if got != want {
			t.Fatalf("%q at %d: matchTekken ends at %d, the pattern at %d", s, i, got, want)
		}
		if got <= i {
			_, n := classAt(tab, s, i)
			i += n
			continue
		}
		i = got
	}
}

// TestTekkenSplit checks Tekken's pre-tokenizer on words of every case
// class: capitals, title case (ǅ), modifier letters (ʰ), other letters
// (日), marks leading or inside a word, digits, punctuation with its
// trailing slashes and newlines, and white space runs.
func TestTekkenSplit(t *testing.T) {
	for _, s := range []string{
		"Hello World HTTPServer iPhone ABC. xYZ",
		"ǅemal ǅǅa Ǆ ǆ ʰa aʰ ʰ Aʰb ÀÉÎõü ΑΒΓαβγ МоскваМОСКВА",
		"日本語テキスト 한국어 العربية हिन्दी ก่อน",
		"\u0301a \u0301A a\u0301b A\u0301 \u0301\u0301 -\u0301x .\u0300",
		"123 4567 ١٢٣ ½ x1y2",
		"a, b; c... // path/to/file\n\n http://x.y/z/ -- !!\r\n/",
		"  two  spaces\t\ttabs \u3000ideographic\u00a0nbsp \n\n\n  x  ",
		"'s 're I'll don't \xff\xfe bad \xc3 bytes",
		"🎉👍🏽 emoji\u200d zwj ©®™ €£¥",
	} {
		checkTekken(t, s)
	}
}

// FuzzTekkenSplit checks Tekken's pre-tokenizer against the regexp on
// arbitrary text, invalid UTF-8 included: Go's regexp reads an invalid
// byte as U+FFFD, a symbol one byte wide, and so does the splitter.
func FuzzTekkenSplit(f *testing.F) {
	f.Add("Hello World HTTPServer ǅemal ʰa \u0301a 123 // x\n\n  y")
	f.Add("\xff A\u0301b ΑΒΓαβγ 日本")
	f.Fuzz(func(t *testing.T, s string) {
		checkTekken(t, s)
	})
}
