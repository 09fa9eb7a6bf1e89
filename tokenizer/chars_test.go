package tokenizer

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestMergeFromCharacters checks the merge that starts from whole
// characters against tiktoken's loop from the bytes, on pieces built to
// put every character the table lets start whole beside every class of
// neighbour: other such characters, characters it does not list, ASCII
// letters and punctuation, stray continuation and leading bytes.
func TestMergeFromCharacters(t *testing.T) {
	for _, e := range encodings(t) {
		chars := e.ranks.charTable()
		var listed []rune
		for c, entry := range chars {
			if entry != 0 {
				listed = append(listed, rune(c))
			}
		}
		if len(listed) < 1000 {
			t.Fatalf("%s: %d characters may start whole; the table is not being built", e.Name(), len(listed))
		}
		r := rand.New(rand.NewPCG(7, uint64(len(listed))))
		others := []string{"a", "Z", " ", ",", "'", "\n", "7", "é", "\x80", "\xbf", "\xe4", "\xe4\xb8", "\xf0\x9f", "😀", "\u0301", "ـ"}
		var m merger
		pieces := 20_000
		if raceEnabled {
			pieces = 2_000
		}
		for range pieces {
			var b strings.Builder
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
		m.release()
	}
}

// TestCharactersStartWhole checks that the merge does start from whole
// characters where it may: most characters of the Chinese, Cyrillic and
// Arabic texts, and none of an ASCII one.
func TestCharactersStartWhole(t *testing.T) {
	e := O200kBase()
	for _, k := range []struct {
		file string
		min  float64 // the least share of multibyte characters started whole
	}{{"kinds/cjk.txt", 0.5}, {"kinds/cyrillic.txt", 0.5}, {"kinds/arabic.txt", 0.5}} {
		text := kind{file: k.file}.text(t)
		var g treeMerge
		whole, multi := 0, 0
		for i := 0; i < len(text); {
			j := e.next(text, i)
			if piece := text[i:j]; len(piece) >= 2 && len(piece) <= treePiece {
				g.start(e.ranks, piece)
				for p := 0; p < len(piece); p = int(g.next[p]) {
					if piece[p] >= 0xC0 {
						multi++
						if _, w := utf8.DecodeRuneInString(piece[p:]); int(g.next[p])-p == w {
							whole++
						}
					}
				}
			}
			i = j
		}
		if share := float64(whole) / float64(multi); share < k.min {
			t.Errorf("%s: %d of %d multibyte characters start whole (%.0f%%), want at least %.0f%%", k.file, whole, multi, 100*share, 100*k.min)
		}
	}
	var g treeMerge
	g.start(e.ranks, "hello")
	if g.count != 5 {
		t.Errorf("an ASCII piece starts as %d parts, want its 5 bytes", g.count)
	}
}
