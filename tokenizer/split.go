package tokenizer

import "unicode/utf8"

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
// classes come from a table generated from Go's unicode package (see
// classtable.go); characters newer than its Unicode version are the one
// place a count can differ from OpenAI's.

// Character class bits. The first seven are the bits of the generated
// table (classtable.go, written by internal/classgen); the others are set
// only for ASCII characters.
const (
	clsL      = 1 << iota // \p{L}
	clsN                  // \p{N}
	clsS                  // \s (the Unicode White_Space property)
	clsUpper              // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	clsLower              // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	clsPrefix             // [^\r\n\p{L}\p{N}]
	clsPunct              // [^\s\p{L}\p{N}]
	clsNL                 // \r or \n
	clsApos               // the ASCII apostrophe, which starts a contraction
	clsSlash              // '/', which o200k_base keeps after punctuation
)

//go:generate go run ./internal/classgen -out classtable.go

// asciiClass holds the class bits of every ASCII character.
var asciiClass = func() (t [utf8.RuneSelf]uint16) {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		t[r] = tableClass(r)
	}
	t['\r'] |= clsNL
	t['\n'] |= clsNL
	t['\''] |= clsApos
	t['/'] |= clsSlash
	return t
}()

// tableClass returns the class bits of r from the generated table.
func tableClass(r rune) uint16 {
	return uint16(classBlocks[int(classIndex[r>>classBlockBits])<<classBlockBits|int(r&(1<<classBlockBits-1))])
}

// invalidClass is the class of a byte that does not start a valid UTF-8
// sequence: like U+FFFD, punctuation.
const invalidClass = clsPrefix | clsPunct

// class returns the class bits and byte width of the character at i.
// Invalid UTF-8 bytes are one byte wide and count as punctuation.
func class(s string, i int) (uint16, int) {
	if i >= len(s) {
		return 0, 0
	}
	if b := s[i]; b < utf8.RuneSelf {
		return asciiClass[b], 1
	}
	r, n := decode(s, i)
	if n == 0 {
		return invalidClass, 1
	}
	return tableClass(r), n
}

// decode decodes the multi-byte UTF-8 sequence at i (s[i] >= 0x80) as
// utf8.DecodeRuneInString does, returning width 0 where that returns
// RuneError with width 1. Where four bytes can be read it takes the
// sequence's length and the range of its second byte from the table of
// leading bytes and assembles the code point without branching on the
// length, which varies unpredictably in mixed text.
func decode(s string, i int) (rune, int) {
	l := leads[s[i]]
	if i+4 > len(s) {
		return decodeSlow(s, i)
	}
	w := load32(s, i)
	b1 := byte(w >> 8)
	// The second byte in its range, and any third and fourth byte a
	// continuation byte (10xxxxxx).
	if l.n == 0 || b1 < l.lo || b1 > l.hi || (w>>16)&uint32(l.cont) != 0x8080&uint32(l.cont) {
		return 0, 0
	}
	r := rune(w&uint32(l.mask))<<18 | rune(b1&0x3F)<<12 | rune(w>>16&0x3F)<<6 | rune(w>>24&0x3F)
	return r >> (6 * (4 - l.n)), int(l.n)
}

// lead describes the UTF-8 sequences a byte can start: their length n (0
// if none), the range lo to hi of their second byte, the mask of the
// first byte's payload, and which of the third and fourth bytes must be
// continuation bytes (0xC0 in each byte that must).
type lead struct {
	n, lo, hi, mask uint8
	cont            uint16
}

var leads = func() (t [256]lead) {
	for b := 0xC2; b <= 0xDF; b++ {
		t[b] = lead{2, 0x80, 0xBF, 0x1F, 0}
	}
	for b := 0xE0; b <= 0xEF; b++ {
		t[b] = lead{3, 0x80, 0xBF, 0x0F, 0x00C0}
	}
	t[0xE0].lo = 0xA0 // no overlong forms
	t[0xED].hi = 0x9F // no surrogates
	for b := 0xF0; b <= 0xF4; b++ {
		t[b] = lead{4, 0x80, 0xBF, 0x07, 0xC0C0}
	}
	t[0xF0].lo = 0x90 // no overlong forms
	t[0xF4].hi = 0x8F // nothing above U+10FFFF
	return t
}()

// decodeSlow is decode within the last three bytes of s.
func decodeSlow(s string, i int) (rune, int) {
	b0 := s[i]
	l := leads[b0]
	n := int(l.n)
	if n == 0 || i+n > len(s) {
		return 0, 0
	}
	b1 := s[i+1]
	if b1 < l.lo || b1 > l.hi {
		return 0, 0
	}
	r := rune(b0&l.mask)<<6 | rune(b1&0x3F)
	for k := 2; k < n; k++ {
		b := s[i+k]
		if b&0xC0 != 0x80 {
			return 0, 0
		}
		r = r<<6 | rune(b&0x3F)
	}
	return r, n
}

// run returns the end of the longest run of characters from i that all
// have one of the bits in want.
func run(s string, i int, want uint16) int {
	for i < len(s) {
		if b := s[i]; b < utf8.RuneSelf {
			if asciiClass[b]&want == 0 {
				break
			}
			i++
			continue
		}
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
		c, n := asciiClass[s[end]&0x7F], 1
		if s[end] >= utf8.RuneSelf {
			c, n = class(s, end)
		}
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
		return invalidClass, 1
	}
	if r < utf8.RuneSelf {
		return asciiClass[r], n
	}
	return tableClass(r), n
}

// nextCL100K returns the end of the piece starting at i under the
// cl100k_base pattern. i < len(s).
func nextCL100K(s string, i int) int {
	// Fast paths for ASCII words, which the general code below matches
	// the same way: a letter starts \p{L}+; a character that may lead a
	// word other than the apostrophe, followed by a letter, starts
	// [^\r\n\p{L}\p{N}]\p{L}+.
	if b := s[i]; b < utf8.RuneSelf {
		c := asciiClass[b]
		if c&clsL != 0 {
			return run(s, i+1, clsL)
		}
		if c&clsPrefix != 0 && b != '\'' {
			// Punctuation or whitespace: the start of a word if a letter
			// follows; if an ASCII character that is not a letter
			// follows, or nothing, the word alternative cannot match.
			if i+1 == len(s) {
				return rest(s, i, c, 1, clsNL)
			}
			if b2 := s[i+1]; b2 < utf8.RuneSelf {
				if asciiClass[b2]&clsL != 0 {
					return run(s, i+2, clsL)
				}
				return rest(s, i, c, 1, clsNL)
			}
		} else if c&clsPrefix == 0 {
			// A digit, \r or \n.
			return rest(s, i, c, 1, clsNL)
		}
	}
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
	// Fast paths for ASCII words, which the general code below matches
	// the same way. A lower-case letter, or a character that may lead a
	// word followed by one, starts [Lower]+ (Upper* is empty). A run of
	// ASCII capitals followed by an ASCII character or the end holds no
	// character that is both Upper and Lower, so it is followed by
	// [Lower]+ if a lower-case letter comes next, else it stands alone as
	// [Upper]+.
	if b := s[i]; b < utf8.RuneSelf {
		c := asciiClass[b]
		switch {
		case c&clsLower != 0:
			return contraction(s, run(s, i+1, clsLower))
		case c&clsUpper != 0:
			e := i + 1
			for e < len(s) && s[e]-'A' < 26 {
				e++
			}
			if e == len(s) {
				return contraction(s, e)
			}
			if b2 := s[e]; b2 < utf8.RuneSelf {
				if asciiClass[b2]&clsLower != 0 {
					return contraction(s, run(s, e+1, clsLower))
				}
				return contraction(s, e)
			}
		case c&clsPrefix != 0:
			// Punctuation or whitespace: the start of a word if a letter
			// follows; if an ASCII character that is not a letter
			// follows, or nothing, no word alternative can match.
			if i+1 == len(s) {
				return rest(s, i, c, 1, clsNL|clsSlash)
			}
			if b2 := s[i+1]; b2 < utf8.RuneSelf {
				c2 := asciiClass[b2]
				if c2&clsLower != 0 {
					return contraction(s, run(s, i+2, clsLower))
				}
				if c2&clsUpper == 0 {
					return rest(s, i, c, 1, clsNL|clsSlash)
				}
			}
		default:
			// A digit, \r or \n: no word alternative can match.
			return rest(s, i, c, 1, clsNL|clsSlash)
		}
	}
	c, n := class(s, i)
	if c&(clsUpper|clsLower) == 0 {
		// Neither word alternative can match without the optional
		// leading character, nor with it unless a letter or mark follows.
		if c&clsPrefix != 0 {
			if c2, _ := class(s, i+n); c2&(clsUpper|clsLower) != 0 {
				if e := wordLowerTail(s, i+n); e > i+n {
					return contraction(s, e)
				}
				if e := wordUpperHead(s, i+n); e > i+n {
					return contraction(s, e)
				}
			}
		}
		return rest(s, i, c, n, clsNL|clsSlash)
	}
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
	var c uint16
	var n int
	for {
		c, n = class(s, e) // 0, 0 at the end
		if c&clsUpper == 0 {
			break
		}
		e += n
		if c&clsLower != 0 {
			lastBoth = e
		}
	}
	if c&clsLower != 0 {
		return run(s, e+n, clsLower)
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
