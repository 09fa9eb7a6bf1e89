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
)

// A matcher returns the end of the match that starts at i, or -1 if the
// pattern does not match at i.
type matcher func(t []uint8, s string, i int) int

// patternFirst holds, for a pattern whose matches all start with a
// character of certain classes, those classes: the splitter skips other
// characters without trying the pattern.
var patternFirst = map[string]uint8{
	patDigits3: cN,
	patCJK:     cCJK,
}

// knownPatterns maps each supported pattern to its matcher.
var knownPatterns = map[string]matcher{
	patLlama3:   func(t []uint8, s string, i int) int { return matchLlama(t, s, i, 3) },
	patQwen:     func(t []uint8, s string, i int) int { return matchLlama(t, s, i, 1) },
	patDigits3:  matchDigits3,
	patCJK:      func(t []uint8, s string, i int) int { return matchRun(t, s, i, cCJK) },
	patDeepSeek: matchDeepSeek,
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
func matchSpace(t []uint8, s string, i int) int {
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
func matchLlama(t []uint8, s string, i, digits int) int {
	// The common cases first: a word, or a space and a word, in ASCII.
	if i < len(s) && s[i] < utf8.RuneSelf {
		ascii := (*[utf8.RuneSelf]uint8)(t)
		if ascii[s[i]]&cL != 0 {
			return runOf(t, s, i+1, cL)
		}
		if s[i] == ' ' && i+1 < len(s) && s[i+1] < utf8.RuneSelf && ascii[s[i+1]]&cL != 0 {
			return runOf(t, s, i+2, cL)
		}
	}
	c, n := classAt(t, s, i)
	if n == 0 {
		return -1
	}
	if s[i] == '\'' {
		if k := contraction(s, i); k > 0 {
			return i + k
		}
	}
	if c&cL != 0 {
		return runOf(t, s, i+n, cL)
	}
	if c&(cNL|cN) == 0 {
		if c2, n2 := classAt(t, s, i+n); c2&cL != 0 {
			return runOf(t, s, i+n+n2, cL)
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
	j := i
	if s[i] == ' ' {
		j++
	}
	if c2, n2 := classAt(t, s, j); n2 > 0 && c2&(cWS|cL|cN) == 0 {
		j += n2
		for j < len(s) {
			c3, n3 := classAt(t, s, j)
			if n3 == 0 || c3&(cWS|cL|cN) != 0 {
				break
			}
			j += n3
		}
		for j < len(s) && (s[j] == '\r' || s[j] == '\n') {
			j++
		}
		return j
	}
	return matchSpace(t, s, i)
}

// matchDigits3 matches \p{N}{1,3} at i.
func matchDigits3(t []uint8, s string, i int) int {
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
func matchRun(t []uint8, s string, i int, want uint8) int {
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
func matchDeepSeek(t []uint8, s string, i int) int {
	// The common cases first: a word, or a space and a word, in ASCII.
	if i < len(s) && s[i] < utf8.RuneSelf {
		ascii := (*[utf8.RuneSelf]uint8)(t)
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
	j := i
	if s[i] == ' ' {
		j++
	}
	if c2, n2 := classAt(t, s, j); c2&(cP|cSym) != 0 {
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

// splitIsolated calls emit with the matches of m in s and the text
// between them, in order ("Isolated" behaviour). If first is not zero,
// every match starts with a character of one of its classes.
func splitIsolated(t []uint8, m matcher, first uint8, s string, emit func(string)) {
	ascii := (*[utf8.RuneSelf]uint8)(t)
	gap := 0
	for i := 0; i < len(s); {
		if first != 0 {
			for i < len(s) {
				if b := s[i]; b < utf8.RuneSelf {
					if ascii[b]&first != 0 {
						break
					}
					i++
					continue
				}
				c, n := classAtSlow(t, s, i)
				if c&first != 0 {
					break
				}
				i += n
			}
			if i == len(s) {
				break
			}
		}
		if j := m(t, s, i); j > i {
			if gap < i {
				emit(s[gap:i])
			}
			emit(s[i:j])
			i, gap = j, j
			continue
		}
		_, n := classAt(t, s, i)
		i += n
	}
	if gap < len(s) {
		emit(s[gap:])
	}
}
