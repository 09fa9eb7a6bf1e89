package hf

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// Character classes the pre-tokenizer patterns test, one bit each.
const (
	cL   = 1 << iota // \p{L}
	cN               // \p{N}
	cWS              // \s: the Unicode White_Space property
	cP               // \p{P}
	cSym             // \p{S}
	cM               // \p{M}
	cNL              // \r or \n
	cCJK             // [一-龥぀-ゟ゠-ヿ], DeepSeek V3's second split
)

// tableLimit is how far the class table reaches; characters above it
// (planes 3 to 16) are looked up in the unicode package.
const tableLimit = 0x30000

var (
	classOnce  sync.Once
	classTable []uint8
	jsTable    []uint8
)

// table returns the class table, built on first use from the unicode
// package's range tables (about a millisecond, once per process).
func table() []uint8 {
	classOnce.Do(func() {
		t := make([]uint8, tableLimit)
		set := func(rt *unicode.RangeTable, bit uint8) {
			for _, r := range rt.R16 {
				for c := uint32(r.Lo); c <= uint32(r.Hi) && c < tableLimit; c += uint32(r.Stride) {
					t[c] |= bit
				}
			}
			for _, r := range rt.R32 {
				for c := r.Lo; c <= r.Hi && c < tableLimit; c += r.Stride {
					t[c] |= bit
				}
			}
		}
		set(unicode.L, cL)
		set(unicode.N, cN)
		set(unicode.White_Space, cWS)
		set(unicode.P, cP)
		set(unicode.S, cSym)
		set(unicode.M, cM)
		t['\r'] |= cNL
		t['\n'] |= cNL
		for _, r := range [][2]rune{{0x4E00, 0x9FA5}, {0x3040, 0x309F}, {0x30A0, 0x30FF}} {
			for c := r[0]; c <= r[1]; c++ {
				t[c] |= cCJK
			}
		}
		classTable = t
		// JavaScript's \s, which the transformers.js reference uses:
		// U+FEFF is white space there and U+0085 is not.
		js := append([]uint8(nil), t...)
		js[0xFEFF] |= cWS
		js[0x85] &^= cWS
		jsTable = js
	})
	return classTable
}

// referenceTable returns the class table with JavaScript's \s.
func referenceTable() []uint8 {
	table()
	return jsTable
}

// slowClass returns the class bits of a character above tableLimit.
func slowClass(r rune) uint8 {
	var c uint8
	switch {
	case unicode.IsLetter(r):
		c = cL
	case unicode.IsNumber(r):
		c = cN
	case unicode.IsPunct(r):
		c = cP
	case unicode.IsSymbol(r):
		c = cSym
	case unicode.IsMark(r):
		c = cM
	}
	return c
}

// classAt returns the class bits and width of the character at i of s;
// an invalid byte is one byte wide with no class (like a control
// character). At the end of s it returns 0, 0.
func classAt(t []uint8, s string, i int) (uint8, int) {
	if i >= len(s) {
		return 0, 0
	}
	if b := s[i]; b < utf8.RuneSelf {
		return t[b], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n <= 1 {
		return 0, 1
	}
	if r < tableLimit {
		return t[r], n
	}
	return slowClass(r), n
}

// runOf returns the end of the run of characters from i whose class has
// a bit of want.
func runOf(t []uint8, s string, i int, want uint8) int {
	for i < len(s) {
		c, n := classAt(t, s, i)
		if c&want == 0 {
			break
		}
		i += n
	}
	return i
}
