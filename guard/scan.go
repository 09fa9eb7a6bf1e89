package guard

import (
	"strings"
	"unicode/utf8"
)

// The built-in patterns are found by scanners written by hand rather than
// by their expressions. Each scanner looks for what every match must hold
// (a literal prefix with strings.Index, an '@', a digit), then reads
// forward or back from there a bounded distance, or to the end of a run
// it never reads twice. That keeps every scanner linear in the length of
// the text, including text built to be slow: long runs of digits,
// separators or '@', repeated prefixes. Go's expressions are linear too,
// but rescan long runs once per match attempt, which made hostile text
// a thousand times slower than prose.

// A hit is one match of a built-in pattern: the match is text[from:to],
// and text[start:end] is the part replaced: the password of
// "scheme://user:password@host", the whole match for most patterns.
type hit struct{ from, start, end, to int }

// A finder appends the hits of a built-in pattern in text to dst, in any
// order.
type finder func(text string, dst []hit) []hit

// byteSet is a set of bytes, indexed by byte.
type byteSet [256]bool

const (
	digitChars = "0123456789"
	upperChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lowerChars = "abcdefghijklmnopqrstuvwxyz"
	alnumChars = digitChars + upperChars + lowerChars
)

func newByteSet(chars ...string) (s byteSet) {
	for _, cs := range chars {
		for i := 0; i < len(cs); i++ {
			s[cs[i]] = true
		}
	}
	return s
}

var (
	alnumBytes      = newByteSet(alnumChars)
	wordBytes       = newByteSet(alnumChars, "_")
	keyBytes        = newByteSet(alnumChars, "_-")
	alnumDashBytes  = newByteSet(alnumChars, "-")
	upperDigitBytes = newByteSet(upperChars, digitChars)
	schemeBytes     = newByteSet(alnumChars, "+.-")
	token68Bytes    = newByteSet(alnumChars, "._~+/=-")
	base64Bytes     = newByteSet(alnumChars, "+/")
	localBytes      = newByteSet(alnumChars, "._%+-")
	domainBytes     = newByteSet(alnumChars, "-")
	pemLabelBytes   = newByteSet(upperChars, digitChars, " ")
	// reSpace is \s in Go's expressions.
	reSpace = newByteSet("\t\n\f\r ")
	// blank is [ \t]: the white space inside a header line.
	blank = newByteSet(" \t")
	// authorityEnd ends the authority of a URL: \s and the bytes the
	// url-password expression excludes.
	authorityEnd = newByteSet("\t\n\f\r /?#\"<>`")
)

func isDigit(c byte) bool       { return '0' <= c && c <= '9' }
func isUpper(c byte) bool       { return 'A' <= c && c <= 'Z' }
func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isWord(c byte) bool        { return wordBytes[c] }

// boundary reports whether \b holds at text[i]: a word byte on one side
// of it and not on the other.
func boundary(text string, i int) bool {
	return (i > 0 && isWord(text[i-1])) != (i < len(text) && isWord(text[i]))
}

// runEnd returns the end of the run of bytes of set that starts at i.
func runEnd(text string, i int, set *byteSet) int {
	for i < len(text) && set[text[i]] {
		i++
	}
	return i
}

// afterRune returns the end of the rune at i (an invalid byte counts as
// one, as in Go's expressions), or i at the end of the text.
func afterRune(text string, i int) int {
	if i >= len(text) {
		return i
	}
	_, n := utf8.DecodeRuneInString(text[i:])
	return i + n
}

// spacesEnd returns the end of the run of \s that starts at i.
func spacesEnd(text string, i int) int { return runEnd(text, i, &reSpace) }

// blanksEnd returns the end of the run of [ \t] that starts at i.
func blanksEnd(text string, i int) int { return runEnd(text, i, &blank) }

// hasFoldAt reports whether text holds word (lower-case ASCII) at i, in
// any case.
func hasFoldAt(text string, i int, word string) bool {
	return i >= 0 && i+len(word) <= len(text) && strings.EqualFold(text[i:i+len(word)], word)
}

// eachFold calls fn with the start of each occurrence of word (lower-case
// ASCII letters) in text, in order, written in lower case, in upper case,
// or capitalised: "bearer", "BEARER", "Bearer". The lower-case and the
// capitalised word, and the upper-case tail (then the first letter in
// either case), are each looked for with indexRare, much faster than
// comparing at every byte. title is word capitalised and upperTail is
// word less its first letter, in upper case (given, so no call allocates
// them).
func eachFold(text, word, title, upperTail string, fn func(i int)) {
	wk, tk, uk := rareByte(word), rareByte(title), rareByte(upperTail)
	nextWord := func(w string, k, from int) int {
		if j := indexRare(text[from:], w, k); j >= 0 {
			return from + j
		}
		return len(text)
	}
	nextUpper := func(from int) int {
		for from < len(text) {
			j := indexRare(text[from:], upperTail, uk)
			if j < 0 {
				break
			}
			if i := from + j - 1; i >= 0 && text[i]|0x20 == word[0] {
				return i
			}
			from += j + 1
		}
		return len(text)
	}
	lo, ti, up := nextWord(word, wk, 0), nextWord(title, tk, 0), nextUpper(1)
	for lo < len(text) || ti < len(text) || up < len(text) {
		i := min(lo, ti, up)
		fn(i)
		if lo == i {
			lo = nextWord(word, wk, i+1)
		}
		if ti == i {
			ti = nextWord(title, tk, i+1)
		}
		if up == i {
			up = nextUpper(i + 2)
		}
	}
}

// commonBytes are the bytes most common in prose, code and markup, the
// most common first; the others are rarer still.
const commonBytes = " etaoinsrhldcum\n.,-_/:fpgwyb'\"()vkTIASECx"

// rareByte returns the index of the byte of needle least common in
// ordinary text (the first of equals): looking for it rather than the
// first byte stops far less often at a place that does not match.
func rareByte(needle string) int {
	best, rank := 0, -1
	for i := 0; i < len(needle); i++ {
		r := len(commonBytes) // not listed: rarer than every listed byte
		if j := strings.IndexByte(commonBytes, needle[i]); j >= 0 {
			r = j
		}
		if r > rank {
			best, rank = i, r
		}
	}
	return best
}

// indexRare is strings.Index(s, needle), found by looking for needle[k]
// with strings.IndexByte and comparing around it. When that stops too
// often at bytes that do not start a match, it leaves the rest to
// strings.Index, so that text full of needle[k] stays linear and fast.
func indexRare(s, needle string, k int) int {
	c := needle[k]
	fails := 0
	for i := k; i < len(s); {
		j := strings.IndexByte(s[i:], c)
		if j < 0 {
			return -1
		}
		p := i + j - k
		if p+len(needle) > len(s) {
			return -1
		}
		if s[p:p+len(needle)] == needle {
			return p
		}
		i += j + 1
		// No match starts before p+1: each one's needle[k] is before i.
		if fails++; fails > 4+(i>>4) {
			if r := strings.Index(s[p+1:], needle); r >= 0 {
				return p + 1 + r
			}
			return -1
		}
	}
	return -1
}

// hasDigit requires a digit: generated tokens have them, words do not.
func hasDigit(s string) bool { return strings.ContainsAny(s, digitChars) }

// hasUpperAndLower requires both cases of letter, as a random token of
// letters has and an identifier in snake_case does not.
func hasUpperAndLower(s string) bool {
	return strings.ContainsAny(s, upperChars) && strings.ContainsAny(s, lowerChars)
}

// tokenSpec is a token that starts with a literal prefix at a word
// boundary and goes on with a run of body bytes.
type tokenSpec struct {
	prefix string
	body   *byteSet
	min    int // body bytes at least
	// exact: the body is exactly min bytes, followed by neither a body
	// byte nor a word byte, as in `ghp_[A-Za-z0-9]{36}\b` or
	// `AIza[0-9A-Za-z_-]{35}(?:[^0-9A-Za-z_-]|$)`.
	exact bool
	// wordEnd: the whole run is followed by a word boundary, as in
	// `hf_[A-Za-z0-9]{34,}\b`; body must be word bytes only.
	wordEnd bool
	check   func(body string) bool // nil: any body
}

// findTokens finds the tokens of specs. When there are several and they
// share an anchor (see tokenAnchor), one pass looks for it with
// indexRare; otherwise each prefix is looked for in turn.
func findTokens(specs ...tokenSpec) finder {
	anchor, offsets := tokenAnchor(specs)
	ak := rareByte(anchor)
	rare := make([]int, len(specs))
	for i, s := range specs {
		rare[i] = rareByte(s.prefix)
	}
	return func(text string, dst []hit) []hit {
		var (
			buf    [8]tokenState
			states []tokenState
		)
		if len(specs) <= len(buf) {
			states = buf[:len(specs)]
		} else {
			states = make([]tokenState, len(specs))
		}
		if anchor == "" {
			for i := range specs {
				s, st := &specs[i], &states[i]
				for st.next < len(text) {
					j := indexRare(text[st.next:], s.prefix, rare[i])
					if j < 0 {
						break
					}
					dst = s.at(text, st.next+j, st, dst)
				}
			}
			return dst
		}
		for off := 0; off < len(text); {
			j := indexRare(text[off:], anchor, ak)
			if j < 0 {
				break
			}
			k := off + j
			off = k + 1
			for i := range specs {
				s, st := &specs[i], &states[i]
				if p := k - offsets[i]; p >= st.next && text[p] == s.prefix[0] && strings.HasPrefix(text[p:], s.prefix) {
					dst = s.at(text, p, st, dst)
				}
			}
		}
		return dst
	}
}

// tokenAnchor returns what every prefix of specs holds, when there are
// several, and where in each: a '_' (rare in prose), else the longest
// common prefix or suffix of two bytes or more ("xox" of "xoxb-" and
// "xoxp-", "IA" of "AKIA" and "ASIA"); or "".
func tokenAnchor(specs []tokenSpec) (string, []int) {
	if len(specs) < 2 {
		return "", nil
	}
	offsets := make([]int, len(specs))
	under := true
	pre, suf := specs[0].prefix, specs[0].prefix
	for i, s := range specs {
		k := strings.IndexByte(s.prefix, '_')
		under = under && k >= 0
		offsets[i] = k
		for !strings.HasPrefix(s.prefix, pre) {
			pre = pre[:len(pre)-1]
		}
		for !strings.HasSuffix(s.prefix, suf) {
			suf = suf[1:]
		}
	}
	switch {
	case under:
		return "_", offsets
	case len(pre) >= 2 && len(pre) >= len(suf):
		for i := range offsets {
			offsets[i] = 0
		}
		return pre, offsets
	case len(suf) >= 2:
		for i, s := range specs {
			offsets[i] = len(s.prefix) - len(suf)
		}
		return suf, offsets
	}
	return "", nil
}

// tokenState is where a tokenSpec's search has got to in a text.
type tokenState struct {
	next int // where the next prefix may start
	run  int // end of the body run last read
}

// at reads a token whose prefix is at i.
func (s *tokenSpec) at(text string, i int, st *tokenState, dst []hit) []hit {
	st.next = i + 1
	if i > 0 && isWord(text[i-1]) {
		return dst
	}
	b := i + len(s.prefix)
	// A prefix inside the run last read ends where that run ends:
	// reading it again would make a run of prefixes quadratic.
	if b > st.run {
		st.run = runEnd(text, b, s.body)
	}
	end := st.run
	if s.exact {
		// A later prefix in this run may have a body of the right
		// length ("AIza…-AIza…"): go on to it.
		if end-b != s.min || end < len(text) && isWord(text[end]) || s.check != nil && !s.check(text[b:end]) {
			return dst
		}
	} else if end-b < s.min || s.wordEnd && end < len(text) && isWord(text[end]) || s.check != nil && !s.check(text[b:end]) {
		// A later prefix in this run has a shorter body, a suffix of
		// this one, with the same end: it fails too.
		st.next = st.run
		return dst
	}
	st.next = end
	to := end
	if s.exact && s.body[byte('-')] {
		to = afterRune(text, end) // the expression ends with (?:[^...]|$)
	}
	return append(dst, hit{i, i, end, to})
}

// findJWTs finds JSON Web Tokens: three base64url parts separated by
// dots, the first two starting with "eyJ" (`{"`).
func findJWTs(text string, dst []hit) []hit {
	for off := 0; off < len(text); {
		j := indexRare(text[off:], "eyJ", 2)
		if j < 0 {
			break
		}
		i := off + j
		off = i + 1
		if i > 0 && isWord(text[i-1]) {
			continue
		}
		e1 := runEnd(text, i+3, &keyBytes)
		// Every later "eyJ" in this run has a shorter first part and
		// the same other two: none can match if this one does not.
		off = e1
		if e1-i-3 < 8 || !strings.HasPrefix(text[e1:], ".eyJ") {
			continue
		}
		e2 := runEnd(text, e1+4, &keyBytes)
		if e2-e1-4 < 8 || e2 == len(text) || text[e2] != '.' {
			continue
		}
		e3 := runEnd(text, e2+1, &keyBytes)
		if e3-e2-1 < 16 {
			continue
		}
		dst = append(dst, hit{i, i, e3, e3})
		off = e3
	}
	return dst
}

// findEmails finds e-mail addresses, except the user and host of a URL
// ("https://user:password@host"), which are url-password's.
func findEmails(text string, dst []hit) []hit {
	floor := 0
	url := urlAuthority{last: -1}
	for off := 0; off < len(text); {
		j := strings.IndexByte(text[off:], '@')
		if j < 0 {
			break
		}
		at := off + j
		off = at + 1
		// The local part runs back to a byte it cannot hold, at the
		// latest the previous '@': no byte is read back twice.
		s := at
		for s > floor && localBytes[text[s-1]] {
			s--
		}
		for s < at && !boundary(text, s) {
			s++
		}
		if s == at {
			continue
		}
		e := domainEnd(text, at+1)
		if e < 0 || url.in(text, s) {
			continue
		}
		dst = append(dst, hit{s, s, e, e})
		floor, off = e, e
	}
	return dst
}

// domainEnd returns the end of `[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b`
// at i, the longest, or -1.
func domainEnd(text string, i int) int {
	end := -1
	q := runEnd(text, i, &domainBytes)
	if q == i {
		return -1
	}
	for q < len(text) && text[q] == '.' {
		t := q + 1
		for t < len(text) && isASCIILetter(text[t]) {
			t++
		}
		if t-q-1 >= 2 && boundary(text, t) {
			end = t
		}
		r := runEnd(text, q+1, &domainBytes)
		if r == q+1 {
			break
		}
		q = r
	}
	return end
}

// urlAuthority tells whether a position is in the authority of a URL
// (after "://" and before the path), moving forward through the text so
// that each byte is read once.
type urlAuthority struct {
	pos  int // the text before pos has been read
	last int // the last byte before pos that ends an authority, or -1
}

func (u *urlAuthority) in(text string, i int) bool {
	for k := i; k > u.pos; k-- {
		if authorityEnd[text[k-1]] {
			u.last = k - 1
			break
		}
	}
	u.pos = i
	return u.last >= 2 && text[u.last-2:u.last+1] == "://"
}
