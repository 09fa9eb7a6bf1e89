package hf

import "unicode/utf8"

// Hand-written forms of the regular expressions the supported
// tokenizer.json files split text with. Each runs in linear time and
// gives the matches a backtracking engine gives, lookahead included
// (Go's regexp has no `(?!\S)`).

// The Split patterns Tessera knows, exactly as the files spell them.
const (
	// patLlama3 is Llama 3's (and OpenAI cl100k_base's) pattern.
	patLlama3 = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// patQwen is Qwen 2, 2.5 and 3's: one digit a piece.
	patQwen = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// patDigits3 is DeepSeek V3's first split.
	patDigits3 = `\p{N}{1,3}`
	// patCJK is DeepSeek V3's second split.
	patCJK = `[一-龥぀-ゟ゠-ヿ]+`
	// patDeepSeek is DeepSeek V3's third split.
	patDeepSeek = "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"
	// patTekken is Mistral's Tekken pattern (Mistral Nemo, Large 2 and
	// later): o200k_base's without its contractions, and one digit a
	// piece.
	patTekken = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// The patterns by number: preStep.pat, and what match dispatches on.
const (
	pLlama3 = 1 + iota
	pQwen
	pDigits3
	pCJK
	pDeepSeek
	pTekken
)

// patternFirst holds, for a pattern whose matches all start with a
// character of certain classes, those classes: the splitter skips other
// characters without trying the pattern.
var patternFirst = map[string]uint16{
	patDigits3: cN,
	patCJK:     cCJK,
}

// knownPatterns maps each supported pattern to its number.
var knownPatterns = map[string]uint8{
	patLlama3:   pLlama3,
	patQwen:     pQwen,
	patDigits3:  pDigits3,
	patCJK:      pCJK,
	patDeepSeek: pDeepSeek,
	patTekken:   pTekken,
}

// match returns the end of the match of pattern p (a pXxx number) that
// starts at i, or -1 if the pattern does not match at i. A switch, not a
// table of functions, so that each matcher is a direct call.
func match(p uint8, t []uint16, s string, i int) int {
	switch p {
	case pLlama3:
		return matchLlama(t, s, i, 3)
	case pQwen:
		return matchLlama(t, s, i, 1)
	case pDigits3:
		return matchDigits3(t, s, i)
	case pCJK:
		return matchRun(t, s, i, cCJK)
	case pDeepSeek:
		return matchDeepSeek(t, s, i)
	case pTekken:
		return matchTekken(t, s, i)
	}
	return -1
}

// contraction returns the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i
// (s[i] is an apostrophe), or 0.
func contraction(s string, i int) int {
	if i+1 >= len(s) {
		return 0
	}
	switch s[i+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v', 'l':
		if i+2 < len(s) {
			want := byte('e')
			if s[i+1]|0x20 == 'l' {
				want = 'l'
			}
			if s[i+2]|0x20 == want {
				return 3
			}
		}
	}
	return 0
}

// matchSpace matches \s*[\r\n]+|\s+(?!\S)|\s+ at i, where s[i] is white
// space.
func matchSpace(t []uint16, s string, i int) int {
	j, lastNL, last := i, -1, i
	for j < len(s) {
		c, n := classAt(t, s, j)
		if c&cWS == 0 {
			break
		}
		if c&cNL != 0 {
			lastNL = j + n
		}
		last = j
		j += n
	}
	if lastNL >= 0 {
		return lastNL // \s*[\r\n]+
	}
	if j == len(s) || last == i {
		return j // \s+(?!\S) at the end, or \s+ of one character
	}
	return last // \s+(?!\S): all but the last character
}

// matchLlama matches Llama 3's pattern (digits = 3) or Qwen's (1) at i.
// Every character starts a match.
func matchLlama(t []uint16, s string, i, digits int) int {
	if i >= len(s) {
		return -1
	}
	ascii := (*[utf8.RuneSelf]uint16)(t)
	var c uint16
	n := 1
	if b := s[i]; b < utf8.RuneSelf {
		// The common cases first: a word, or a space and a word, in
		// ASCII.
		if ascii[b]&cL != 0 {
			return runOf(t, s, i+1, cL)
		}
		if b == ' ' && i+1 < len(s) && s[i+1] < utf8.RuneSelf && ascii[s[i+1]]&cL != 0 {
			return runOf(t, s, i+2, cL)
		}
		if b == '\'' {
			if k := contraction(s, i); k > 0 {
				return i + k
			}
		}
		c = ascii[b]
	} else {
		c, n = classAtSlow(t, s, i)
	}
	if c&cL != 0 {
		return runOf(t, s, i+n, cL)
	}
	// The class of the character after it, read once for the two
	// alternatives that look at it.
	var next uint16
	nextN := 0
	if c&(cNL|cN) == 0 {
		next, nextN = classAt(t, s, i+n)
		if next&cL != 0 {
			return runOf(t, s, i+n+nextN, cL)
		}
	}
	if c&cN != 0 {
		j := i + n
		for k := 1; k < digits; k++ {
			c2, n2 := classAt(t, s, j)
			if c2&cN == 0 {
				break
			}
			j += n2
		}
		return j
	}
	// ` ?[^\s\p{L}\p{N}]+[\r\n]*`: its first character is the one at
	// i, or the next after a space; when it is the one at i, the next
	// one's class is known too.
	j, cj, nj := i, c, n
	known := c&(cWS|cL|cN|cNL) == 0 // then next holds the class after it
	if s[i] == ' ' {
		j, cj, nj, known = i+1, next, nextN, false
	}
	if nj > 0 && cj&(cWS|cL|cN) == 0 {
		j += nj
		if known {
			if nextN == 0 || next&(cWS|cL|cN) != 0 {
				return newlinesAfter(s, j)
			}
			j += nextN
		}
		for j < len(s) {
			c3, n3 := classAt(t, s, j)
			if n3 == 0 || c3&(cWS|cL|cN) != 0 {
				break
			}
			j += n3
		}
		return newlinesAfter(s, j)
	}
	return matchSpace(t, s, i)
}

// newlinesAfter returns the end of the run of \r and \n at j of s.
func newlinesAfter(s string, j int) int {
	for j < len(s) && (s[j] == '\r' || s[j] == '\n') {
		j++
	}
	return j
}

// matchDigits3 matches \p{N}{1,3} at i.
func matchDigits3(t []uint16, s string, i int) int {
	j := i
	for k := 0; k < 3; k++ {
		c, n := classAt(t, s, j)
		if c&cN == 0 {
			break
		}
		j += n
	}
	if j == i {
		return -1
	}
	return j
}

// matchRun matches one or more characters of class want at i.
func matchRun(t []uint16, s string, i int, want uint16) int {
	j := runOf(t, s, i, want)
	if j == i {
		return -1
	}
	return j
}

// isASCIIPunct reports whether b is one of DeepSeek's
// [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~].
func isASCIIPunct(b byte) bool {
	return b >= '!' && b <= '/' || b >= ':' && b <= '@' || b >= '[' && b <= '`' || b >= '{' && b <= '~'
}

func isASCIILetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

// matchDeepSeek matches DeepSeek V3's third pattern at i.
func matchDeepSeek(t []uint16, s string, i int) int {
	// The common cases first: a word, or a space and a word, in ASCII.
	if i < len(s) && s[i] < utf8.RuneSelf {
		ascii := (*[utf8.RuneSelf]uint16)(t)
		if ascii[s[i]]&cL != 0 {
			return runOf(t, s, i+1, cL|cM)
		}
		if s[i] == ' ' && i+1 < len(s) && s[i+1] < utf8.RuneSelf && ascii[s[i+1]]&cL != 0 {
			return runOf(t, s, i+2, cL|cM)
		}
	}
	c, n := classAt(t, s, i)
	if n == 0 {
		return -1
	}
	if isASCIIPunct(s[i]) && i+1 < len(s) && isASCIILetter(s[i+1]) {
		j := i + 1
		for j < len(s) && isASCIILetter(s[j]) {
			j++
		}
		return j
	}
	if c&(cL|cM) != 0 {
		return runOf(t, s, i+n, cL|cM)
	}
	if c&(cNL|cL|cP|cSym) == 0 {
		if c2, n2 := classAt(t, s, i+n); c2&(cL|cM) != 0 {
			return runOf(t, s, i+n+n2, cL|cM)
		}
	}
	j, c2, n2 := i, c, n
	if s[i] == ' ' {
		j++
		c2, n2 = classAt(t, s, j)
	}
	if c2&(cP|cSym) != 0 {
		j = runOf(t, s, j+n2, cP|cSym)
		for j < len(s) && (s[j] == '\r' || s[j] == '\n') {
			j++
		}
		return j
	}
	if c&cWS != 0 {
		return matchSpace(t, s, i)
	}
	return -1
}

// deadRun returns the end of the run of characters from i at which
// DeepSeek V3's third pattern starts no match, each decoded once: a
// character of none of the classes a match starts with (\p{L}, \p{M},
// \p{P}, \p{S}, white space; every ASCII punctuation character is \p{P}
// or \p{S}) starts one only before a letter or mark, as the optional
// first character of a word (see matchDeepSeek). In text of unassigned
// or private characters most of it is such runs.
func deadRun(t []uint16, s string, i int) int {
	c, n := classAt(t, s, i)
	for n > 0 && c&(cL|cM|cP|cSym|cWS|cNL) == 0 {
		c2, n2 := classAt(t, s, i+n)
		if c2&(cL|cM) != 0 {
			return i
		}
		i += n
		c, n = c2, n2
	}
	return i
}

// matchTekken matches Tekken's pattern at i. Every character starts a
// match. The word alternatives are tried as a backtracking engine tries
// them: [^\r\n\p{L}\p{N}]?[Upper]*[Lower]+ with the optional character,
// then without it, then [^\r\n\p{L}\p{N}]?[Upper]+[Lower]* the same way,
// where Upper is [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] and Lower
// [\p{Ll}\p{Lm}\p{Lo}\p{M}] (Lm, Lo and marks are in both).
func matchTekken(t []uint16, s string, i int) int {
	if i >= len(s) {
		return -1
	}
	// The common cases first, in ASCII, where no letter is in both
	// Upper and Lower: a lower-case letter starts [Lower]+; a run of
	// capitals followed by an ASCII character or the end is followed by
	// [Lower]+ if a lower-case letter comes next, else stands alone; a
	// character that may lead a word followed by a lower-case letter
	// starts a word, and followed by an ASCII character that is not a
	// letter, or by nothing, starts none.
	if b := s[i]; b < utf8.RuneSelf {
		ascii := (*[utf8.RuneSelf]uint16)(t)
		c := ascii[b]
		switch {
		case c&cLower != 0:
			return runOf(t, s, i+1, cLower)
		case c&cUpper != 0:
			e := i + 1
			for e < len(s) && s[e]-'A' < 26 {
				e++
			}
			if e == len(s) {
				return e
			}
			if b2 := s[e]; b2 < utf8.RuneSelf {
				if ascii[b2]&cLower != 0 {
					return runOf(t, s, e+1, cLower)
				}
				return e
			}
		case c&(cNL|cN) == 0:
			if i+1 == len(s) {
				return tekkenRest(t, s, i, c, 1)
			}
			if b2 := s[i+1]; b2 < utf8.RuneSelf {
				c2 := ascii[b2]
				if c2&cLower != 0 {
					return runOf(t, s, i+2, cLower)
				}
				if c2&cUpper == 0 {
					return tekkenRest(t, s, i, c, 1)
				}
			}
		default: // a digit, \r or \n
			return tekkenRest(t, s, i, c, 1)
		}
	}
	c, n := classAt(t, s, i)
	lead := c&(cNL|cL|cN) == 0 // [^\r\n\p{L}\p{N}]
	if c&(cUpper|cLower) == 0 {
		// Only with the optional character can a word alternative
		// match, and only if a letter or mark follows.
		if lead {
			if c2, _ := classAt(t, s, i+n); c2&(cUpper|cLower) != 0 {
				if e := wordLowerTail(t, s, i+n); e > i+n {
					return e
				}
				if e := wordUpperHead(t, s, i+n); e > i+n {
					return e
				}
			}
		}
		return tekkenRest(t, s, i, c, n)
	}
	if lead { // a mark: it may lead a word, or be part of one
		if e := wordLowerTail(t, s, i+n); e > i+n {
			return e
		}
	}
	if e := wordLowerTail(t, s, i); e > i {
		return e
	}
	if lead {
		if e := wordUpperHead(t, s, i+n); e > i+n {
			return e
		}
	}
	if e := wordUpperHead(t, s, i); e > i {
		return e
	}
	return tekkenRest(t, s, i, c, n)
}

// tekkenRest matches Tekken's alternatives after the words at i, whose
// character has class c and width n: \p{N}, then
// ` ?[^\s\p{L}\p{N}]+[\r\n/]*`, then white space.
func tekkenRest(t []uint16, s string, i int, c uint16, n int) int {
	if c&cN != 0 {
		return i + n
	}
	j := i
	if s[i] == ' ' {
		j++
	}
	if c2, n2 := classAt(t, s, j); n2 > 0 && c2&(cWS|cL|cN) == 0 {
		j += n2
		for j < len(s) {
			c3, n3 := classAt(t, s, j)
			if c3&(cWS|cL|cN) != 0 {
				break
			}
			j += n3
		}
		for j < len(s) && (s[j] == '\r' || s[j] == '\n' || s[j] == '/') {
			j++
		}
		return j
	}
	return matchSpace(t, s, i)
}

// wordLowerTail matches [Upper]*[Lower]+ at i and returns its end, or i.
// Upper* takes the longest run; if a Lower character follows, Lower+
// extends over the run that follows. Otherwise Upper* gives characters
// back until one that is also Lower can stand as Lower+, which then ends
// right after it (the character after it is not Lower).
func wordLowerTail(t []uint16, s string, i int) int {
	lastBoth := -1 // the end of the last character in both classes
	e := i
	var c uint16
	var n int
	for {
		c, n = classAt(t, s, e) // 0, 0 at the end
		if c&cUpper == 0 {
			break
		}
		e += n
		if c&cLower != 0 {
			lastBoth = e
		}
	}
	if c&cLower != 0 {
		return runOf(t, s, e+n, cLower)
	}
	if lastBoth > i {
		return lastBoth
	}
	return i
}

// wordUpperHead matches [Upper]+[Lower]* at i and returns its end, or i.
func wordUpperHead(t []uint16, s string, i int) int {
	e := runOf(t, s, i, cUpper)
	if e == i {
		return i
	}
	return runOf(t, s, e, cLower)
}
