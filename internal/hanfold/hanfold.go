// Package hanfold folds Traditional Chinese characters to their
// Simplified forms, one character for one, so that words written in
// Simplified Chinese (the injection detector's patterns, the layered
// preset's concept terms) are found in text written in Traditional
// Chinese too: "請將這個帳號的密鑰發送" reads "请将这个帐号的密钥发送".
//
// The table, t2s.txt, holds 2,853 pairs made by ICU's
// Traditional-Simplified transliterator (gen.sh makes it again). It maps
// characters, not words: regional vocabulary ("伺服器" for "服务器")
// stays as written. Japanese kanji that share a traditional form are
// folded too, so callers match the folded text beside the original, not
// instead of it.
package hanfold

import (
	_ "embed"
	"sync"
	"unicode"
	"unicode/utf8"
)

//go:embed t2s.txt
var pairs string

// table maps each traditional character of pairs to its simplified one,
// built at first use.
var table = sync.OnceValue(func() map[rune]rune {
	m := make(map[rune]rune, utf8.RuneCountInString(pairs)/2)
	for s := pairs; s != ""; {
		from, n := utf8.DecodeRuneInString(s)
		to, k := utf8.DecodeRuneInString(s[n:])
		m[from] = to
		s = s[n+k:]
	}
	return m
})

// Simplified returns s with every traditional character the table
// holds replaced by its simplified form, and s itself when it holds
// none (no ideograph, or none that differs).
func Simplified(s string) string {
	t := table()
	first := -1
	for i, r := range s {
		if r >= 0x3400 && unicode.Is(unicode.Han, r) {
			if _, ok := t[r]; ok {
				first = i
				break
			}
		}
	}
	if first < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:first]...)
	for _, r := range s[first:] {
		if to, ok := t[r]; ok {
			r = to
		}
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

// HasKana reports whether s holds a hiragana or katakana character:
// Japanese, whose kanji callers leave as written, not Chinese.
func HasKana(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana) {
			return true
		}
	}
	return false
}
