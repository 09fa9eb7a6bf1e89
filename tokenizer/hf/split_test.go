package hf

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestFastWords checks that matching ASCII words in splitModel's own
// loop (see fastWords) cuts the text where leaving every piece to the
// pattern's matcher cuts it, and gives the same ids, on random text that
// mixes ASCII with letters, marks, digits and spaces of other scripts,
// for each pattern that has such words (with the model that uses it).
func TestFastWords(t *testing.T) {
	pieces := []string{"a", "Z", "q", "word", "Word", "WORD", " ", "  ", "'", "'s", "-", ".", "\n", "\r\n", "1", "42",
		"é", "É", "ß", "ǅ", "ʰ", "\u0301", "\u0903", "क", "ि", "中", "я", "Я", "١", "\u00a0", "\u3000", "/", "_",
		"\x01", "\xff", "\u200d", "\ue000", "\U00050000", "\U000E0001", "\U0010FFFD", "\U0001F600"}
	n := 5000
	if testing.Short() || raceEnabled {
		n = 500
	}
	for _, c := range []struct {
		model string
		pat   uint8
	}{{"llama3", pLlama3}, {"qwen3", pQwen}, {"deepseek_v3", pDeepSeek}, {"mistral_nemo", pTekken}} {
		if lightRun() && c.model != "deepseek_v3" {
			continue
		}
		tk := testTokenizer(t, c.model)
		slow := *tk
		slow.slowWords = true
		st := &mergeState{}
		rng := rand.New(rand.NewPCG(7, 8))
		var b strings.Builder
		for range n {
			s := joinRandom(rng, &b, pieces, 16)
			fast, plain := sink{keep: true, pieces: []string{}}, sink{keep: true, pieces: []string{}}
			tk.splitModel(st, s, c.pat, &fast)
			slow.splitModel(st, s, c.pat, &plain)
			if !slices.Equal(fast.pieces, plain.pieces) || !slices.Equal(fast.out, plain.out) {
				t.Fatalf("%s: %q: pieces %q, ids %v; from the matcher alone %q, %v", c.model, s, fast.pieces, fast.out, plain.pieces, plain.out)
			}
		}
	}
}

// TestRunOf checks runOf, which decodes characters of two and three
// bytes itself, against the same loop over classAt, on random strings
// of ASCII, valid characters of every length and invalid sequences
// (overlong, surrogates, cut short), for several sets of classes.
func TestRunOf(t *testing.T) {
	tab := table()
	ref := func(s string, i int, want uint16) int {
		for i < len(s) {
			c, n := classAt(tab, s, i)
			if c&want == 0 {
				break
			}
			i += n
		}
		return i
	}
	pieces := []string{"a", "1", " ", "\n", "é", "я", "ك", "\u0301", "\u094D", "क", "日", "。", "😀", "\U00010FFF",
		"\xe0\x80\x80", "\xed\xa0\x80", "\xc0\xaf", "\xc2", "\xe4\xb8", "\xf0\x9f", "\x80", "\xff", "\xef\xbf\xbd"}
	wants := []uint16{cL, cL | cM, cN, cL | cN | cP | cSym, cCJK, cWS}
	rng := rand.New(rand.NewPCG(7, 8))
	var b strings.Builder
	for range 100_000 {
		s := joinRandom(rng, &b, pieces, 10)
		for _, want := range wants {
			for i := range min(len(s), 3) {
				if got, exp := runOf(tab, s, i, want), ref(s, i, want); got != exp {
					t.Fatalf("runOf(%q, %d, %#x) = %d, want %d", s, i, want, got, exp)
				}
			}
		}
	}
}

// TestTwoSplits checks that DeepSeek V3's digits and CJK splits made in
// one pass (twoSplits) give the ids of the two passes, on random text of
// digits of several scripts, CJK, kana, letters, marks, emoji and spaces.
func TestTwoSplits(t *testing.T) {
	pieces := []string{"1", "42", "2024", "١٢", "४", "٣", "中", "文字", "ひら", "カタ", "ー", "〇", "a", "word", " ", "\n", ".", ",",
		"é", "я", "\u0301", "\U0001F600", "\U00050000", "\xff", "全角１２３", "Ⅻ", "²",
		"क", "ी", "्", "॰", "\ufffd", "\xef\xbf", "\xed\xa0\x80", "\xe0\x80\x80", "\u0966\u096f"}
	n := 3000
	if testing.Short() || raceEnabled {
		n = 300
	}
	tk := testTokenizer(t, "deepseek_v3")
	slow := *tk
	slow.slowSplits = true
	rng := rand.New(rand.NewPCG(9, 10))
	var b strings.Builder
	for range n {
		s := joinRandom(rng, &b, pieces, 24)
		if got, want := tk.Encode(s), slow.Encode(s); !slices.Equal(got, want) {
			t.Fatalf("%q: one pass %v, two %v", s, got, want)
		}
	}
}

// joinRandom joins one to most of pieces, chosen by rng, in b.
func joinRandom(rng *rand.Rand, b *strings.Builder, pieces []string, most int) string {
	b.Reset()
	for range 1 + rng.IntN(most) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// TestMatchLlama checks matchLlama, which reads each character's class
// once, against the pattern written alternative by alternative (each
// reading the classes it needs), at every position of random strings of
// ASCII, letters, marks, digits, spaces and punctuation of several
// scripts and invalid bytes, for both patterns it matches.
func TestMatchLlama(t *testing.T) {
	tab := table()
	ref := func(s string, i, digits int) int {
		c, n := classAt(tab, s, i)
		if n == 0 {
			return -1
		}
		if s[i] == '\'' {
			if k := contraction(s, i); k > 0 {
				return i + k
			}
		}
		if c&cL != 0 {
			return runOf(tab, s, i+n, cL)
		}
		if c&(cNL|cN) == 0 {
			if c2, n2 := classAt(tab, s, i+n); c2&cL != 0 {
				return runOf(tab, s, i+n+n2, cL)
			}
		}
		if c&cN != 0 {
			j := i + n
			for k := 1; k < digits; k++ {
				c2, n2 := classAt(tab, s, j)
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
		if c2, n2 := classAt(tab, s, j); n2 > 0 && c2&(cWS|cL|cN) == 0 {
			j += n2
			for j < len(s) {
				c3, n3 := classAt(tab, s, j)
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
		return matchSpace(tab, s, i)
	}
	pieces := []string{"a", "Z", "word", " ", "  ", "'", "'s", "'LL", "-", ".", "!?", "\n", "\r\n", "\r", "1", "42", "\t",
		"é", "ß", "\u0301", "\u0903", "\u093c", "क", "ि", "्", "।", "中", "я", "١", "\u00a0", "\u3000", "\u2028", "/", "_",
		"\x01", "\xff", "\xe0\xa4", "\u200d", "\ue000", "\U0001F600", "\U000E0001"}
	n := 20000
	if testing.Short() || raceEnabled {
		n = 2000
	}
	rng := rand.New(rand.NewPCG(9, 10))
	var b strings.Builder
	for range n {
		s := joinRandom(rng, &b, pieces, 12)
		for i := 0; i < len(s); i++ {
			for _, digits := range []int{1, 3} {
				if got, want := matchLlama(tab, s, i, digits), ref(s, i, digits); got != want {
					t.Fatalf("%q at %d (digits %d): %d, want %d", s, i, digits, got, want)
				}
			}
		}
	}
}
