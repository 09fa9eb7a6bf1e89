package hf

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestCharParts checks that starting the merge from characters' parts
// gives the ids the merge from bytes gives, on random text in many
// scripts, for each byte-level model (under the race detector, which
// makes loading the others take seconds each, DeepSeek V3's alone on a
// tenth of the texts: one goroutine, where it finds nothing; .ci/run
// runs it all without).
func TestCharParts(t *testing.T) {
	ranges := [][2]rune{{0xA0, 0x24F}, {0x370, 0x3FF}, {0x400, 0x4FF}, {0x590, 0x6FF}, {0x900, 0x97F},
		{0xE00, 0xE7F}, {0x3040, 0x30FF}, {0x4E00, 0x9FFF}, {0xAC00, 0xD7A3}, {0xFF00, 0xFFEF},
		{0x1F300, 0x1FAFF}, {0x2000, 0x206F}, {0x10000, 0x1FFFF}}
	n := 3000
	if testing.Short() || lightRun() {
		n = 300
	}
	for _, m := range refModels {
		if lightRun() && m != "deepseek_v3" {
			continue
		}
		tk := testTokenizer(t, m)
		if tk.chars == nil {
			continue
		}
		plain := *tk
		plain.chars, plain.cache, plain.whole = nil, newWordCache(), newWholeTokens(len(tk.vocab))
		rng := rand.New(rand.NewPCG(3, 4))
		var b strings.Builder
		for range n {
			b.Reset()
			rs := ranges[rng.IntN(len(ranges))]
			for range 1 + rng.IntN(40) {
				switch rng.IntN(6) {
				case 0:
					b.WriteByte(byte(' ' + rng.IntN(95)))
				case 1:
					b.WriteByte(' ')
				default:
					b.WriteRune(rs[0] + rng.Int32N(rs[1]-rs[0]+1))
				}
			}
			s := b.String()
			if got, want := tk.Encode(s), plain.Encode(s); !slices.Equal(got, want) {
				t.Fatalf("%s: %q: from parts %v, from bytes %v", m, s, got, want)
			}
		}
	}
}

// TestMergeCut checks that merging a piece in parts cut where no merge
// joins two bytes (byte-level models, mergeCut) or around byte fallback
// tokens (SentencePiece-style ones, fallbackCuts) gives the ids of the
// merge of the whole piece: on random long runs of characters from every
// plane, symbols, stray bytes and emoji, for each model (DeepSeek V3's
// alone, on fewer texts, under the race detector).
func TestMergeCut(t *testing.T) {
	n := 2000
	if testing.Short() || lightRun() {
		n = 300
	}
	for _, m := range refModels {
		if lightRun() && m != "deepseek_v3" {
			continue
		}
		tk := testTokenizer(t, m)
		if tk.byteJoins == nil && tk.fallbackCuts == nil {
			continue
		}
		plain := *tk
		plain.byteJoins, plain.fallbackCuts = nil, nil
		plain.cache, plain.whole = newWordCache(), newWholeTokens(len(tk.vocab))
		rng := rand.New(rand.NewPCG(5, 6))
		var b strings.Builder
		for range n {
			b.Reset()
			for range 10 + rng.IntN(60) {
				switch rng.IntN(8) {
				case 0:
					b.WriteByte(byte(0x80 + rng.IntN(0x80))) // a stray byte
				case 1:
					b.WriteByte(byte('!' + rng.IntN(15)))
				case 2:
					b.WriteRune(0x1F300 + rng.Int32N(0x700))
				case 3:
					b.WriteRune(0x4E00 + rng.Int32N(0x5200))
				default:
					r := rng.Int32N(0x110000)
					if r >= 0xD800 && r < 0xE000 {
						r = 0xFFFD
					}
					b.WriteRune(r)
				}
			}
			s := b.String()
			if got, want := tk.Encode(s), plain.Encode(s); !slices.Equal(got, want) {
				t.Fatalf("%s: %q: cut %v, whole %v", m, s, got, want)
			}
		}
	}
}
