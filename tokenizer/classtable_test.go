package tokenizer

import (
	"testing"
	"unicode"
	"unicode/utf8"
)

// refClass computes the class bits of r from the unicode package's
// tables, as the pre-tokenizer's regular expressions define them.
func refClass(r rune) uint16 {
	var c uint16
	isL, isN := unicode.IsLetter(r), unicode.IsNumber(r)
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
	if unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo) || isM {
		c |= clsUpper
	}
	if unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo) || isM {
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

// refClasses computes refClass for every code point at once, by walking
// the unicode package's range tables rather than searching them per
// code point.
func refClasses() []uint16 {
	set := func(dst []bool, tabs ...*unicode.RangeTable) {
		for _, t := range tabs {
			for _, r := range t.R16 {
				for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
					dst[c] = true
				}
			}
			for _, r := range t.R32 {
				for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
					dst[c] = true
				}
			}
		}
	}
	n := unicode.MaxRune + 1
	isL, isN, isS, up, low := make([]bool, n), make([]bool, n), make([]bool, n), make([]bool, n), make([]bool, n)
	set(isL, unicode.Letter)
	set(isN, unicode.Number)
	set(isS, unicode.White_Space)
	set(up, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.Mark)
	set(low, unicode.Ll, unicode.Lm, unicode.Lo, unicode.Mark)
	out := make([]uint16, n)
	for r := range out {
		var c uint16
		if isL[r] {
			c |= clsL
		}
		if isN[r] {
			c |= clsN
		}
		if isS[r] {
			c |= clsS
		}
		if up[r] {
			c |= clsUpper
		}
		if low[r] {
			c |= clsLower
		}
		if !isL[r] && !isN[r] && r != '\r' && r != '\n' {
			c |= clsPrefix
		}
		if !isS[r] && !isL[r] && !isN[r] {
			c |= clsPunct
		}
		out[r] = c
	}
	out['\r'] |= clsNL
	out['\n'] |= clsNL
	out['\''] |= clsApos
	out['/'] |= clsSlash
	return out
}

// TestClassTable checks the generated class table against the unicode
// package for every code point, and the pre-tokenizer's lookup of each
// code point's UTF-8 encoding.
func TestClassTable(t *testing.T) {
	if unicodeVersion != unicode.Version {
		t.Fatalf("classtable.go is for Unicode %s, Go's unicode package is %s: run go generate ./tokenizer", unicodeVersion, unicode.Version)
	}
	want := refClasses()
	// Every code point but the surrogates, which have no UTF-8 form, in
	// one text the lookup walks.
	var all []byte
	for r := range want {
		if utf8.ValidRune(rune(r)) {
			all = utf8.AppendRune(all, rune(r))
		}
	}
	text := string(all)
	bad, off := 0, 0
	for r, w := range want {
		if !utf8.ValidRune(rune(r)) {
			continue
		}
		got, n := class(text, off)
		off += n
		if got != w || n != utf8.RuneLen(rune(r)) {
			if bad++; bad <= 10 {
				t.Errorf("U+%04X: class %#x width %d, unicode says %#x (run go generate ./tokenizer)", r, got, n, w)
			}
		}
	}
	for _, r := range []rune{0, 'a', 'A', '\r', '\n', ' ', '\'', '/', 0x85, 0xA0, 0x2028, 0x3000, 0x0301, 0x02B0, 0x01C5, 0x4E2D, 0x1F600, 0xE0100, unicode.MaxRune} {
		if got, ref := want[r], refClass(r); got != ref {
			t.Errorf("U+%04X: range walk gives %#x, unicode.Is %#x", r, got, ref)
		}
	}
}

// TestDecode checks the pre-tokenizer's UTF-8 decoding against the
// unicode/utf8 package on every lead byte followed by continuation bytes
// at the edges of each valid range, and on truncated sequences.
func TestDecode(t *testing.T) {
	edges := []byte{0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xF4, 0xFF}
	check := func(s string) {
		t.Helper()
		// Alone (decoded byte by byte near the end of the text) and
		// followed by more bytes (decoded four at a time).
		for _, tail := range []string{"", "\x80\x80\x80", "abc"} {
			wr, wn := utf8.DecodeRuneInString(s + tail)
			r, n := decode(s+tail, 0)
			if n == 0 {
				r, n = utf8.RuneError, 1
			}
			if r != wr || n != wn {
				t.Fatalf("decode(%q) = %U, %d; utf8 says %U, %d", s+tail, r, n, wr, wn)
			}
		}
	}
	for b0 := 0x80; b0 <= 0xFF; b0++ {
		check(string([]byte{byte(b0)}))
		for _, b1 := range edges {
			check(string([]byte{byte(b0), b1}))
			for _, b2 := range edges {
				check(string([]byte{byte(b0), b1, b2}))
				if b0 < 0xF0 {
					continue
				}
				for _, b3 := range edges {
					check(string([]byte{byte(b0), b1, b2, b3}))
				}
			}
		}
	}
}
