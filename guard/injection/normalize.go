package injection

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/tessera-dev/tessera/internal/hanfold"
	"github.com/tessera-dev/tessera/internal/lazyre"
)

// A view is one reading of a text that the patterns are matched against:
// the text as normalised, or an altered reading an attacker may have
// hidden an instruction in (look-alike letters folded, letters spaced
// out joined, an encoded run decoded).
type view struct {
	// how names the reading: "text", "folded", "joined", "base64",
	// "hex" or "url"; anything but "text" counts as obfuscation.
	how  string
	text string
}

// maxViewBytes bounds the text a reading may hold, so that a hostile
// entry costs time linear in its length.
const maxViewBytes = 64 << 10

// views returns the readings of text to scan: the text itself, NFKC
// normalised (fullwidth and mathematical letters become plain ones),
// without zero-width, bidirectional and other format characters, and
// lower-cased; then, when they differ from it, the reading with Cyrillic
// and Greek look-alikes folded to Latin letters, the reading with
// Traditional Chinese characters folded to Simplified ones (package
// hanfold), the reading with words
// spelled out letter by letter joined, and the decoding of every base64,
// hex or percent-encoded run long enough to hold an instruction, itself
// read the same way (once: an encoding inside an encoding is not
// unwrapped).
func views(text string) []view {
	return appendViews(nil, text, true)
}

func appendViews(out []view, text string, decode bool) []view {
	if len(text) > maxViewBytes {
		text = text[:maxViewBytes]
	}
	raw := clean(text)
	base := squash(raw)
	out = append(out, view{"text", base})
	if f := fold(base); f != base {
		out = append(out, view{"folded", f})
	}
	if !hanfold.HasKana(base) {
		if s := hanfold.Simplified(base); s != base {
			// Traditional Chinese, read in the simplified characters
			// the patterns are written in; Japanese, whose kanji share
			// many traditional forms, is left as written.
			out = append(out, view{"simplified", s})
		}
	}
	if j := squash(joinSpaced(raw)); j != base {
		out = append(out, view{"joined", j})
		if f := fold(j); f != j {
			out = append(out, view{"joined", f})
		}
	}
	if !decode {
		return out
	}
	// Text an attacker asks to be read backwards or in ROT13, or wrote
	// in leetspeak, is read that way too.
	if mayMatch(reversedNeeds, base) && reversedCue.MatchString(base) {
		out = append(out, view{"reversed", reverseWords(base)})
	}
	if mayMatch(rot13Needs, base) && rot13Cue.MatchString(base) {
		out = append(out, view{"rot13", rot13(base)})
	}
	if l := unleet(base); l != base {
		out = append(out, view{"leet", l})
	}
	for _, d := range decodeRuns(text) {
		for _, v := range appendViews(nil, d.text, false) {
			out = append(out, view{d.how, v.text})
		}
	}
	return out
}

// squash writes runs of spaces and tabs as one space.
func squash(s string) string {
	if !strings.Contains(s, "  ") && !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\t' {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteByte(c)
	}
	return b.String()
}

// clean is NFKC, without format characters (zero-width spaces and
// joiners, bidirectional controls, the soft hyphen, the byte-order mark),
// variation selectors and combining accents over Latin letters,
// lower-cased, with every other space character as a plain space and
// line ends kept.
func clean(s string) string {
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteByte('\n')
		case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Variation_Selector, r), unicode.Is(unicode.Mn, r) && r >= 0x300 && r < 0x370:
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// lookalikes maps Cyrillic and Greek letters to the Latin letters they
// are drawn like (lower case; clean has lowered the text).
var lookalikes = map[rune]rune{
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't',
	'у': 'y', 'х': 'x', 'і': 'i', 'ї': 'i', 'ј': 'j', 'ѕ': 's', 'ԁ': 'd', 'ɡ': 'g', 'һ': 'h', 'ԛ': 'q', 'ԝ': 'w',
	'α': 'a', 'β': 'b', 'ε': 'e', 'η': 'n', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u',
	'χ': 'x', 'γ': 'y', 'ϲ': 'c', 'ԍ': 'g', 'ɩ': 'i', 'ı': 'i', 'ℓ': 'l',
}

// cyrillicOf maps Latin letters to the Cyrillic letters drawn like them,
// for Cyrillic words with Latin letters slipped in.
var cyrillicOf = map[rune]rune{
	'a': 'а', 'b': 'в', 'c': 'с', 'e': 'е', 'h': 'н', 'k': 'к', 'm': 'м', 'o': 'о', 'p': 'р', 't': 'т', 'x': 'х', 'y': 'у', 'i': 'і',
}

// fold replaces the Cyrillic and Greek look-alikes of Latin letters in
// every word that also holds a Latin letter, and in words made only of
// look-alikes, which read as Latin words. Other Cyrillic and Greek words
// keep their letters, so Russian patterns still match them.
func fold(s string) string {
	if isASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	start := 0
	flush := func(end int) {
		w := s[start:end]
		latin, alike, other := 0, 0, 0
		for _, r := range w {
			switch {
			case r < 0x80 && unicode.IsLetter(r):
				latin++
			case lookalikes[r] != 0:
				alike++
			case unicode.Is(unicode.Latin, r):
				// An accented Latin letter ("traía"): the word is Latin.
				latin++
			case unicode.IsLetter(r):
				other++
			}
		}
		if latin > 0 && other > 0 {
			// A Cyrillic word with Latin look-alikes slipped in.
			for _, r := range w {
				if c := cyrillicOf[r]; c != 0 {
					r = c
				}
				b.WriteRune(r)
			}
			return
		}
		if alike == 0 || other > 0 || latin == 0 && alike < 3 {
			b.WriteString(w)
			return
		}
		for _, r := range w {
			if l := lookalikes[r]; l != 0 {
				r = l
			}
			b.WriteRune(r)
		}
	}
	for i, r := range s {
		if !unicode.IsLetter(r) {
			flush(i)
			b.WriteRune(r)
			start = i + utf8.RuneLen(r)
		}
	}
	flush(len(s))
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// joinSpaced joins words spelled out letter by letter: four or more
// single letters, each followed by the same one separator (a space, '.',
// '-', '_' or '*'), become one word ("i g n o r e" and "i-g-n-o-r-e"
// read "ignore"). Two spaces, or another separator, end the word, so
// "o l v i d a   t u s" reads "olvida tus".
func joinSpaced(s string) string {
	// Once a text spells one word out (four letters or more), its short
	// words spelled out are joined too.
	if j := joinRuns(s, 4); j != s {
		return joinRuns(s, 2)
	}
	return s
}

// joinRuns joins the runs of at least min single letters.
func joinRuns(s string, min int) string {
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	isSep := func(r rune) bool { return r == ' ' || r == '.' || r == '-' || r == '_' || r == '*' }
	single := func(i int) bool {
		return unicode.IsLetter(rs[i]) && (i == 0 || !unicode.IsLetter(rs[i-1])) && (i+1 == len(rs) || !unicode.IsLetter(rs[i+1]))
	}
	for i := 0; i < len(rs); {
		j, n := i, 0
		var sep rune
		for j < len(rs) && single(j) {
			n++
			if j+2 < len(rs) && isSep(rs[j+1]) && (sep == 0 || rs[j+1] == sep) && single(j+2) {
				sep = rs[j+1]
				j += 2
				continue
			}
			j++
			break
		}
		if n >= min {
			for k := i; k < j; k++ {
				if unicode.IsLetter(rs[k]) {
					b.WriteRune(rs[k])
				}
			}
			if j < len(rs) && rs[j] != ' ' {
				b.WriteByte(' ')
			}
			i = j
			continue
		}
		b.WriteRune(rs[i])
		i++
	}
	return b.String()
}

// decoded is the text of one encoded run.
type decoded struct{ how, text string }

// maxDecoded bounds how many runs one text has decoded.
const maxDecoded = 8

// credentials reports whether b is a user and password pair, as an
// HTTP Basic header encodes it ("user:demo-readonly"): one word with a
// colon inside, which holds no instruction, and whose "user:" is not a
// role marker.
func credentials(b []byte) bool {
	i := bytes.IndexByte(b, ':')
	return i > 0 && i < len(b)-1 && !bytes.ContainsAny(b, " \t\n")
}

// decodeRuns decodes the base64, hex and percent-encoded runs of s that
// are long enough to hold an instruction (16 characters or more) and
// decode to printable UTF-8 text.
func decodeRuns(s string) []decoded {
	var out []decoded
	add := func(how string, b []byte) {
		if len(out) < maxDecoded && printable(b) && !credentials(b) {
			out = append(out, decoded{how, string(b)})
		}
	}
	for _, run := range runs(s, isBase64Byte, 16) {
		t := strings.TrimRight(run, "=")
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(t); err == nil {
				add("base64", b)
				break
			}
		}
	}
	for _, run := range runs(s, isHexByte, 16) {
		if len(run)%2 == 1 {
			run = run[:len(run)-1]
		}
		if b, err := hex.DecodeString(run); err == nil {
			add("hex", b)
		}
	}
	if strings.Count(s, "%") >= 3 {
		if u, err := url.QueryUnescape(s); err == nil && u != s {
			add("url", []byte(u))
		} else if u, err := url.PathUnescape(s); err == nil && u != s {
			add("url", []byte(u))
		}
	}
	return out
}

// runs returns the runs of at least min bytes for which in is true.
func runs(s string, in func(byte) bool, min int) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && in(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= min {
			out = append(out, s[start:i])
		}
		start = -1
	}
	return out
}

func isBase64Byte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_'
}

func isHexByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// printable reports whether b is UTF-8 text of which at least 90% of the
// runes are letters, digits, punctuation or spaces, with some letters:
// what a hidden instruction decodes to, and what a hash or an image does
// not.
func printable(b []byte) bool {
	if !utf8.Valid(b) || len(b) < 8 {
		return false
	}
	total, good, letters := 0, 0, 0
	for _, r := range string(b) {
		total++
		switch {
		case unicode.IsLetter(r):
			good++
			letters++
		case unicode.IsDigit(r), unicode.IsPunct(r), unicode.IsSpace(r), unicode.IsSymbol(r):
			good++
		}
	}
	return good*10 >= total*9 && letters*2 >= total
}

// reversedCue and rot13Cue find a text's request to read it backwards
// or in ROT13.
var (
	reversedCue = lazyre.New(`backwards|reversed|in reverse|à l.envers|a l.envers|al rev[ée]s|ao contr[áa]rio|de tr[áa]s para (a )?frente|r[üu]ckw[äa]rts|задом наперёд|задом наперед|наоборот|задом-наперёд|倒着|反过来|逆から|逆さ`)
	rot13Cue    = lazyre.New(`rot-?13|c[ée]sar|caesar|цезар`)
)

// reversedNeeds and rot13Needs are strings one of which every match of
// reversedCue, and of rot13Cue, holds: most texts hold none, and are
// not run through the expressions (nil: none known, always run).
var (
	reversedNeeds = requiredLiterals(reversedCue.String())
	rot13Needs    = requiredLiterals(rot13Cue.String())
)

// mayMatch reports whether s holds one of needs, or needs is nil.
func mayMatch(needs []string, s string) bool {
	return needs == nil || slices.ContainsFunc(needs, func(l string) bool { return strings.Contains(s, l) })
}

// reverseWords reads s backwards, character by character: "erongi"
// reads "ignore".
func reverseWords(s string) string {
	rs := []rune(s)
	slices.Reverse(rs)
	return string(rs)
}

// rot13 rotates the Latin letters of s by 13.
func rot13(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+13)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+13)%26
		}
		return r
	}, s)
}

// leet are the digits and signs leetspeak writes for letters.
var leet = map[rune]rune{'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', '$': 's', '8': 'b'}

// unleet reads the words of s that mix letters with leetspeak digits
// ("1gn0r3") as letters ("ignore"), when at least two words do; other
// words, numbers among them, stay as they are.
func unleet(s string) string {
	words := strings.Fields(s)
	n := 0
	for i, w := range words {
		letters, digits := 0, 0
		for _, r := range w {
			switch {
			case unicode.IsLetter(r):
				letters++
			case leet[r] != 0:
				digits++
			}
		}
		if letters > 0 && digits > 0 {
			words[i] = strings.Map(func(r rune) rune {
				if l := leet[r]; l != 0 {
					return l
				}
				return r
			}, w)
			n++
		}
	}
	if n < 2 {
		return s
	}
	return strings.Join(words, " ")
}
