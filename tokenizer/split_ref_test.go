package tokenizer

// The pre-tokenizer as first written: each regular expression alternative
// tried in turn, character by character, with no fast paths. The tests
// check the optimized pre-tokenizers in split.go against it piece for
// piece.

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// run returns the end of the longest run of characters from i that all
// have one of the bits in want.
func refRun(s string, i int, want uint16) int {
	for i < len(s) {
		c, n := class(s, i)
		if c&want == 0 {
			break
		}
		i += n
	}
	return i
}

// contraction returns the end of a contraction ('s, 't, 're, 've, 'm, 'll,
// 'd, case-insensitive) at i, or i if there is none. Under Unicode case
// folding 's' also matches U+017F LATIN SMALL LETTER LONG S.
func refContraction(s string, i int) int {
	if i >= len(s) || s[i] != '\'' {
		return i
	}
	j := i + 1
	if j >= len(s) {
		return i
	}
	switch s[j] | 0x20 {
	case 's', 't', 'm', 'd':
		return j + 1
	case 'r', 'v':
		if j+1 < len(s) && s[j+1]|0x20 == 'e' {
			return j + 2
		}
	case 'l':
		if j+1 < len(s) && s[j+1]|0x20 == 'l' {
			return j + 2
		}
	}
	// U+017F is 0xC5 0xBF in UTF-8.
	if j+1 < len(s) && s[j] == 0xC5 && s[j+1] == 0xBF {
		return j + 2
	}
	return i
}

// whitespace handles the three whitespace alternatives shared by both
// encodings, at a position i holding whitespace:
//
//	\s*[\r\n]+   the run up to and including its last line break;
//	\s+(?!\S)    else the run less its last character when text follows;
//	\s+          else the single whitespace character.
func refWhitespace(s string, i int) int {
	end := i
	lastNL := -1
	for end < len(s) {
		c, n := class(s, end)
		if c&clsS == 0 {
			break
		}
		if c&clsNL != 0 {
			lastNL = end
		}
		end += n
	}
	if lastNL >= 0 {
		// \s* gives back characters until a line break follows it; the
		// line break is one byte, and [\r\n]+ stops at the next
		// non-break, which is whitespace or the end of the run.
		return lastNL + 1
	}
	if end == len(s) {
		return end
	}
	// Text follows the run: \s+(?!\S) backs off one character, which is
	// only a match if one character remains.
	_, last := refLastRune(s[i:end])
	if end-last > i {
		return end - last
	}
	return end
}

// lastRune returns the class and width of the last character of s.
func refLastRune(s string) (uint16, int) {
	r, n := utf8.DecodeLastRuneInString(s)
	if r == utf8.RuneError && n <= 1 {
		return invalidClass, 1
	}
	if r < utf8.RuneSelf {
		return asciiClass[r], n
	}
	return tableClass(r), n
}

// nextCL100K returns the end of the piece starting at i under the
// cl100k_base pattern. i < len(s).
func refNextCL100K(s string, i int) int {
	c, n := class(s, i)
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if c&clsApos != 0 {
		if e := refContraction(s, i); e > i {
			return e
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+ : with the optional character, then
	// without it (only a letter can start the match then).
	if c&clsPrefix != 0 {
		if c2, _ := class(s, i+n); c2&clsL != 0 {
			return refRun(s, i+n, clsL)
		}
	} else if c&clsL != 0 {
		return refRun(s, i, clsL)
	}
	// \p{N}{1,3}, ' ?[^\s\p{L}\p{N}]+[\r\n]*', then whitespace.
	return refRest(s, i, c, n, clsNL)
}

// nextO200K returns the end of the piece starting at i under the
// o200k_base pattern. i < len(s).
func refNextO200K(s string, i int) int {
	c, n := class(s, i)
	// The two word alternatives, each tried with the optional leading
	// character and then without it.
	if c&clsPrefix != 0 {
		if e := refWordLowerTail(s, i+n); e > i+n {
			return refContraction(s, e)
		}
	}
	if e := refWordLowerTail(s, i); e > i {
		return refContraction(s, e)
	}
	if c&clsPrefix != 0 {
		if e := refWordUpperHead(s, i+n); e > i+n {
			return refContraction(s, e)
		}
	}
	if e := refWordUpperHead(s, i); e > i {
		return refContraction(s, e)
	}
	// \p{N}{1,3}, ' ?[^\s\p{L}\p{N}]+[\r\n/]*', then whitespace.
	return refRest(s, i, c, n, clsNL|clsSlash)
}

// rest matches the alternatives both patterns end with, at i, whose
// character has class c and width n:
//
//	\p{N}{1,3}
//	 ?[^\s\p{L}\p{N}]+ followed by any run of the trail classes
//	\s*[\r\n]+ | \s+(?!\S) | \s+
func refRest(s string, i int, c uint16, n int, trail uint16) int {
	if c&clsN != 0 {
		e := i + n
		for k := 0; k < 2 && e < len(s); k++ {
			c2, n2 := class(s, e)
			if c2&clsN == 0 {
				break
			}
			e += n2
		}
		return e
	}
	start := i
	if s[i] == ' ' {
		if c2, _ := class(s, i+1); c2&clsPunct != 0 {
			start = i + 1
		}
	}
	if c2, _ := class(s, start); c2&clsPunct != 0 {
		return refRun(s, refRun(s, start, clsPunct), trail)
	}
	// Only whitespace is left.
	return refWhitespace(s, i)
}

// wordLowerTail matches [Upper]*[Lower]+ at i and returns its end, or i.
// Upper* takes the longest run; if a Lower character follows, Lower+
// extends over the following run. Otherwise Upper* gives characters back
// until one that is also Lower (Lm, Lo or M) can stand as the Lower+ part,
// which ends right after it.
func refWordLowerTail(s string, i int) int {
	lastBoth := -1 // end of the last character in both classes
	e := i
	for e < len(s) {
		c, n := class(s, e)
		if c&clsUpper == 0 {
			break
		}
		e += n
		if c&clsLower != 0 {
			lastBoth = e
		}
	}
	if c, _ := class(s, e); c&clsLower != 0 {
		return refRun(s, e, clsLower)
	}
	if lastBoth > i {
		return lastBoth
	}
	return i
}

// wordUpperHead matches [Upper]+[Lower]* at i and returns its end, or i.
func refWordUpperHead(s string, i int) int {
	e := refRun(s, i, clsUpper)
	if e == i {
		return i
	}
	return refRun(s, e, clsLower)
}

// refNext returns the reference pre-tokenizer of e.
func refNext(e *Encoding) func(string, int) int {
	if e.Name() == O200kBaseName {
		return refNextO200K
	}
	return refNextCL100K
}

// splitDiff returns where e's pre-tokenizer and the reference first end a
// piece differently in text, or -1.
func splitDiff(e *Encoding, text string) (at, got, want int) {
	ref := refNext(e)
	for i := 0; i < len(text); {
		j, k := e.next(text, i), ref(text, i)
		if j != k {
			return i, j, k
		}
		i = j
	}
	return -1, 0, 0
}

// splitAtoms are the characters and strings where the pre-tokenizer's
// classes and alternatives meet, for generated test texts.
var splitAtoms = []string{
	"a", "z", "A", "Z", "hello", "World", "HELLO", "camelCase", "XMLHttp", "é", "É", "ß", "ſ", "ǅ", "ʰ", "ˈ", "ー", "々",
	"\u0301", "\u0308", "\u094d", "क", "ा", "ب", "\u064e", "中", "あ", "한", "п", "П", "ω", "Ω",
	"'", "'s", "'S", "'t", "'re", "'VE", "'m", "'ll", "'d", "'ſ", "’",
	"0", "7", "42", "12345", "٣", "²", "½", "Ⅷ",
	" ", "  ", "\t", "\n", "\r", "\r\n", "\u00a0", "\u0085", "\u2028", "\u3000", "\v", "\f",
	"/", "//", ".", ",", "!", "?", "-", "_", "(", ")", "{", "}", "\"", "#", "$", "%", "&", "*", "+", "=", "|", ":", ";", "<", ">", "@", "\\", "^", "`", "~",
	"😀", "👍🏽", "\u200d", "\ufe0f", "€", "©", "\xff", "\xc3", "\xe4\xb8",
}

// TestSplitMatchesReference checks both pre-tokenizers against the
// reference, piece for piece, on every corpus text and on generated
// texts.
func TestSplitMatchesReference(t *testing.T) {
	texts := corpusTexts(t)
	seed := uint32(20261123)
	for range 3000 {
		var b strings.Builder
		seed = seed*1103515245 + 12345
		for k := int(seed>>16)%20 + 1; k > 0; k-- {
			seed = seed*1103515245 + 12345
			b.WriteString(splitAtoms[int(seed>>8)%len(splitAtoms)])
		}
		texts = append(texts, b.String())
	}
	for _, e := range encodings(t) {
		for _, text := range texts {
			if at, got, want := splitDiff(e, text); at >= 0 {
				t.Fatalf("%s: %q: the piece at %d ends at %d, the reference ends it at %d", e.Name(), text, at, got, want)
			}
		}
	}
}
