package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers below split text into pieces exactly as OpenAI's
// regular expressions do, written out by hand so that they run in linear
// time without a backtracking regex engine. The patterns are:
//
// cl100k_base:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// o200k_base:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// Each alternative is tried in order at the current position and the first
// that matches wins, with the same backtracking a regex engine would do; the
// comments on each case say how the backtracking resolves. Character
// classes come from Go's unicode tables; characters newer than those tables
// are the one place a count can differ from OpenAI's.

// Character class bits.
const (
	clsL      = 1 << iota // \p{L}
	clsN                  // \p{N}
	clsS                  // \s (the Unicode White_Space property)
	clsNL                 // \r or \n
	clsUpper              // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	clsLower              // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	clsPrefix             // [^\r\n\p{L}\p{N}]
	clsPunct              // [^\s\p{L}\p{N}]
	clsApos               // the ASCII apostrophe, which starts a contraction
	clsSlash              // '/', which o200k_base keeps after punctuation
)

// asciiClass holds the class bits of every ASCII character.
var asciiClass = func() (t [utf8.RuneSelf]uint16) {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		t[r] = classOf(r)
	}
	return t
}()

// classOf computes the class bits of r from the unicode tables.
func classOf(r rune) uint16 {
	var c uint16
	isL := unicode.IsLetter(r)
	isN := unicode.IsNumber(r)
	isS := unicode.Is(unicode.White_Space, r)
	isM := unicode.IsMark(r)
	if isL {
		c |= clsL
	}
	if isN {
		c |= clsN
	}
	if isS {
		c |= clsS
	}
	if r == '\r' || r == '\n' {
		c |= clsNL
	}
	if unicode.Is(unicode.Lu, r) || unicode.Is(unicode.Lt, r) || unicode.Is(unicode.Lm, r) || unicode.Is(unicode.Lo, r) || isM {
		c |= clsUpper
	}
	if unicode.Is(unicode.Ll, r) || unicode.Is(unicode.Lm, r) || unicode.Is(unicode.Lo, r) || isM {
		c |= clsLower
	}
	if !isL && !isN && r != '\r' && r != '\n' {
		c |= clsPrefix
	}
	if !isS && !isL && !isN {
		c |= clsPunct
	}
	if r == '\'' {
		c |= clsApos
	}
	if r == '/' {
		c |= clsSlash
	}
	return c
}

// class returns the class bits and byte width of the character at i.
// Invalid UTF-8 bytes are one byte wide and count as punctuation.
func class(s string, i int) (uint16, int) {
	if i >= len(s) {
		return 0, 0
	}
	if b := s[i]; b < utf8.RuneSelf {
		return asciiClass[b], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n == 1 {
		return clsPrefix | clsPunct, 1
	}
	return classOf(r), n
}

// run returns the end of the longest run of characters from i that all
// have one of the bits in want.
func run(s string, i int, want uint16) int {
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
func contraction(s string, i int) int {
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
func whitespace(s string, i int) int {
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
	_, last := lastRune(s[i:end])
	if end-last > i {
		return end - last
	}
	return end
}

// lastRune returns the class and width of the last character of s.
func lastRune(s string) (uint16, int) {
	r, n := utf8.DecodeLastRuneInString(s)
	if r == utf8.RuneError && n <= 1 {
		return clsPrefix | clsPunct, 1
	}
	if r < utf8.RuneSelf {
		return asciiClass[r], n
	}
	return classOf(r), n
}

// nextCL100K returns the end of the piece starting at i under the
// cl100k_base pattern. i < len(s).
func nextCL100K(s string, i int) int {
	c, n := class(s, i)
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if c&clsApos != 0 {
		if e := contraction(s, i); e > i {
			return e
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+ : with the optional character, then
	// without it (only a letter can start the match then).
	if c&clsPrefix != 0 {
		if c2, _ := class(s, i+n); c2&clsL != 0 {
			return run(s, i+n, clsL)
		}
	} else if c&clsL != 0 {
		return run(s, i, clsL)
	}
	// \p{N}{1,3}, ' ?[^\s\p{L}\p{N}]+[\r\n]*', then whitespace.
	return rest(s, i, c, n, clsNL)
}

// nextO200K returns the end of the piece starting at i under the
// o200k_base pattern. i < len(s).
func nextO200K(s string, i int) int {
	c, n := class(s, i)
	// The two word alternatives, each tried with the optional leading
	// character and then without it.
	if c&clsPrefix != 0 {
		if e := wordLowerTail(s, i+n); e > i+n {
			return contraction(s, e)
		}
	}
	if e := wordLowerTail(s, i); e > i {
		return contraction(s, e)
	}
	if c&clsPrefix != 0 {
		if e := wordUpperHead(s, i+n); e > i+n {
			return contraction(s, e)
		}
	}
	if e := wordUpperHead(s, i); e > i {
		return contraction(s, e)
	}
	// \p{N}{1,3}, ' ?[^\s\p{L}\p{N}]+[\r\n/]*', then whitespace.
	return rest(s, i, c, n, clsNL|clsSlash)
}

// rest matches the alternatives both patterns end with, at i, whose
// character has class c and width n:
//
//	\p{N}{1,3}
//	 ?[^\s\p{L}\p{N}]+ followed by any run of the trail classes
//	\s*[\r\n]+ | \s+(?!\S) | \s+
func rest(s string, i int, c uint16, n int, trail uint16) int {
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
		return run(s, run(s, start, clsPunct), trail)
	}
	// Only whitespace is left.
	return whitespace(s, i)
}

// wordLowerTail matches [Upper]*[Lower]+ at i and returns its end, or i.
// Upper* takes the longest run; if a Lower character follows, Lower+
// extends over the following run. Otherwise Upper* gives characters back
// until one that is also Lower (Lm, Lo or M) can stand as the Lower+ part,
// which ends right after it.
func wordLowerTail(s string, i int) int {
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
		return run(s, e, clsLower)
	}
	if lastBoth > i {
		return lastBoth
	}
	return i
}

// wordUpperHead matches [Upper]+[Lower]* at i and returns its end, or i.
func wordUpperHead(s string, i int) int {
	e := run(s, i, clsUpper)
	if e == i {
		return i
	}
	return run(s, e, clsLower)
}
