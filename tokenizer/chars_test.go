package tokenizer

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestMergeFromCharacters checks the merge that starts from characters'
// parts against tiktoken's loop from the bytes, on pieces built to put
// characters the table lets start from parts beside every class of
// neighbour: other such characters, characters it does not, ASCII letters
// and punctuation, stray continuation and leading bytes, surrogates and
// overlong forms.
func TestMergeFromCharacters(t *testing.T) {
	for _, e := range encodings(t) {
		ct := e.ranks.charTable()
		var listed []rune
		for c := rune(0x80); c < charPoints; c++ {
			if utf8.ValidRune(c) && ct.entry(e.ranks, &ct.entries, c, string(c))&charUsable != 0 {
				listed = append(listed, c)
			}
		}
		if len(listed) < 1000 {
			t.Fatalf("%s: the merge may start from the parts of %d characters, want more", e.Name(), len(listed))
		}
		r := rand.New(rand.NewPCG(7, uint64(len(listed))))
		others := []string{"a", "Z", " ", ",", "'", "\n", "7", "é", "\x80", "\xbf", "\xe4", "\xe4\xb8", "\xf0\x9f", "\xf0\x9f\x98", "😀", "\u0301", "ـ", "\xed\xa0\x80", "\xe0\x80\x80", "\xf0\x8f\xbf\xbf", "𠀀"}
		var m merger
		pieces := 20_000
		if raceEnabled {
			pieces = 2_000
		}
		for range pieces {
			var b strings.Builder
			if r.IntN(2) == 0 {
				b.WriteByte(' ') // a space and a character start a piece as one unit
			}
			for n := 2 + r.IntN(40); n > 0; n-- {
				switch x := r.IntN(10); {
				case x < 6:
					b.WriteRune(listed[r.IntN(len(listed))])
				case x < 8:
					// A neighbour from the same block, listed or not.
					c := listed[r.IntN(len(listed))] + rune(r.IntN(64)) - 32
					if utf8.ValidRune(c) {
						b.WriteRune(c)
					}
				default:
					b.WriteString(others[r.IntN(len(others))])
				}
			}
			if piece := b.String(); len(piece) >= 2 && len(piece) <= treePiece {
				if msg := mergeEach(e, &m, piece); msg != "" {
					t.Fatal(msg)
				}
			}
		}
		// Tokens that hold parts of characters, joined at random: where
		// they join they make characters, with beside them the very
		// tokens that could take a part of one away.
		var high []string
		for _, tok := range e.vocab {
			if hasHighByte(tok) {
				high = append(high, tok)
			}
		}
		for range pieces {
			var b strings.Builder
			for n := 2 + r.IntN(10); n > 0; n-- {
				b.WriteString(high[r.IntN(len(high))])
			}
			if piece := b.String(); len(piece) <= treePiece {
				if msg := mergeEach(e, &m, piece); msg != "" {
					t.Fatal(msg)
				}
			}
		}
		m.release()
	}
}

// TestCharactersStartMerged checks that the merge does start from the
// parts of characters where it may: most characters of the Chinese,
// Cyrillic, Arabic and emoji texts, and nothing in an ASCII piece.
func TestCharactersStartMerged(t *testing.T) {
	e := O200kBase()
	for _, k := range []struct {
		file string
		min  float64 // the least share of multibyte characters started from parts
	}{{"kinds/cjk.txt", 0.6}, {"kinds/cyrillic.txt", 0.6}, {"kinds/arabic.txt", 0.8}, {"kinds/emoji.txt", 0.45}} {
		text := kind{file: k.file}.text(t)
		var g treeMerge
		merged, multi := 0, 0
		for i := 0; i < len(text); {
			j := e.next(text, i)
			if piece := text[i:j]; len(piece) >= 2 && len(piece) <= treePiece {
				g.start(e.ranks, piece)
				for p := 0; p < len(piece); p = int(g.next[p]) {
					if piece[p] >= 0xC0 {
						multi++
						if int(g.next[p])-p > 1 {
							merged++
						}
					}
				}
			}
			i = j
		}
		if share := float64(merged) / float64(multi); share < k.min {
			t.Errorf("%s: %d of %d multibyte characters start from parts (%.0f%%), want at least %.0f%%", k.file, merged, multi, 100*share, 100*k.min)
		}
	}
	var g treeMerge
	g.start(e.ranks, "hello")
	if g.count != 5 {
		t.Errorf("an ASCII piece starts as %d parts, want its 5 bytes", g.count)
	}
}

// TestCharacterTraps checks pieces where starting a unit (a character, or
// a space and a character at the start of a piece) from its parts would
// change the tokens: a neighbour takes a byte of the unit first
// (" \xd8" before "\xd8\xa1" makes " ء" two tokens from the bytes, and
// " " and "ء" from the parts of "ء"). The merge must start these from
// the bytes and agree with tiktoken's loop.
func TestCharacterTraps(t *testing.T) {
	e := O200kBase()
	var m merger
	for _, c := range []struct {
		piece string
		at, n int // the unit: piece[at:at+n]
	}{
		{" ء", 1, 2}, {" 区", 1, 3}, {" 窗", 1, 3}, {" 🐥", 1, 4}, {" ८", 1, 3},
		{"ाअ", 3, 3}, {"ाऔ", 3, 3},
		{"二\x80", 0, 3}, {"が\x80", 0, 3}, {"ौ\x80", 0, 3},
		{" ып", 0, 3}, {" 、\n", 0, 4}, {" が\x80", 0, 4},
	} {
		unit := c.piece[c.at : c.at+c.n]
		// The unit's parts, merged alone, then the piece from them.
		var bounds []int
		for i := range c.at {
			bounds = append(bounds, i)
		}
		parts := mergeFrom(e, unit, byteBounds(len(unit)))
		for _, b := range parts[:len(parts)-1] {
			bounds = append(bounds, c.at+b)
		}
		for i := c.at + c.n; i <= len(c.piece); i++ {
			bounds = append(bounds, i)
		}
		if slices.Equal(mergeFrom(e, c.piece, bounds), mergeFrom(e, c.piece, byteBounds(len(c.piece)))) {
			t.Errorf("%q: starting from the parts of %q gives the same tokens; not a trap", c.piece, unit)
		}
		if msg := mergeEach(e, &m, c.piece); msg != "" {
			t.Error(msg)
		}
	}
	m.release()
}

// byteBounds returns 0, 1, …, n: every byte a part.
func byteBounds(n int) []int {
	b := make([]int, n+1)
	for i := range b {
		b[i] = i
	}
	return b
}

// mergeFrom runs tiktoken's loop on piece from the parts that bounds
// delimit and returns the bounds of the tokens.
func mergeFrom(e *Encoding, piece string, bounds []int) []int {
	bounds = slices.Clone(bounds)
	for {
		best, bestRank := -1, uint32(noRank)
		for i := 0; i+2 < len(bounds); i++ {
			if r := e.ranks.rank(piece[bounds[i]:bounds[i+2]]); r < bestRank {
				best, bestRank = i, r
			}
		}
		if best < 0 {
			return bounds
		}
		bounds = slices.Delete(bounds, best+1, best+2)
	}
}
