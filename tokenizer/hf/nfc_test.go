package hf

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/tokenizer/internal/vocabtab"
	"golang.org/x/text/unicode/norm"
)

// TestIsNFC checks isNFC and toNFC against the norm package: every inert
// character alone, random strings of inert characters mixed with ASCII,
// and random strings that mix in combining marks and Hangul jamo.
func TestIsNFC(t *testing.T) {
	var inert []rune
	table()
	for r := rune(0x80); r < bmp; r++ {
		if s := string(r); nfcInert[r/64]&(1<<(r%64)) != 0 {
			inert = append(inert, r)
			if !norm.NFC.IsNormalString(s) {
				t.Fatalf("U+%04X: isNFC says NFC, norm does not", r)
			}
		}
	}
	if len(inert) < 40_000 {
		t.Fatalf("only %d inert characters", len(inert))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for range 20_000 {
		b.Reset()
		for range 1 + rng.IntN(6) {
			if rng.IntN(4) == 0 {
				b.WriteByte(byte(' ' + rng.IntN(95)))
			} else {
				b.WriteRune(inert[rng.IntN(len(inert))])
			}
		}
		if s := b.String(); !isNFC(s, nil) || !norm.NFC.IsNormalString(s) {
			t.Fatalf("%q: isNFC %v, norm %v", s, isNFC(s, nil), norm.NFC.IsNormalString(s))
		}
	}
	for _, s := range []string{"e\u0301", "\u1100\u1161", "\uAC00\u11A8", "\u00E9\u0301", "\u0374", "a\u0301\u0300b\u0300\u0301"} {
		if isNFC(s, nil) != norm.NFC.IsNormalString(s) {
			t.Errorf("%q: isNFC %v, norm %v", s, isNFC(s, nil), norm.NFC.IsNormalString(s))
		}
	}
	other := []rune{0x300, 0x301, 0x308, 0x323, 0x327, 0x93C, 0x94D, 0x941, 0x1161, 0x11A8, 0x1100, 0x374, 0x0BD7, 0x0BCA, 0x1F600, 0x1D15E, 0x2126,
		0x1D165, 0x1D16E, 0x11131, 0x11127, 0x1112E, 0x2F800, 0x20000, 0x10000, 0x1F3FB, 0xE0041}
	for i := range 50_000 {
		b.Reset()
		for range 1 + rng.IntN(8) {
			switch rng.IntN(3) {
			case 0:
				b.WriteByte(byte('a' + rng.IntN(26)))
			case 1:
				b.WriteRune(inert[rng.IntN(len(inert))])
			default:
				b.WriteRune(other[rng.IntN(len(other))])
			}
		}
		if s := b.String(); isNFC(s, nil) != norm.NFC.IsNormalString(s) {
			t.Fatalf("%q: isNFC %v, norm %v", s, isNFC(s, nil), norm.NFC.IsNormalString(s))
		}
		if i%8 != 0 {
			continue
		}
		// toNFC normalizes the segments that need it: the same text as
		// norm's, with ASCII and inert characters before and after.
		s := "a" + b.String() + string(inert[rng.IntN(len(inert))]) + b.String() + "\u0301"
		if got, want := toNFC(s, nil), norm.NFC.String(s); got != want {
			t.Fatalf("%q: toNFC %q, norm %q", s, got, want)
		}
	}
}

// TestBlockSkip checks that blockSkip passes over no character that has
// a class it is asked about, in either class table, and that it passes
// over a character whole.
func TestBlockSkip(t *testing.T) {
	tables := [][]uint16{table(), referenceTable()}
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		if r >= 0xD800 && r < 0xE000 {
			continue
		}
		s := string(r) + "1"
		for _, first := range []uint16{cN, cCJK, cL} {
			w := blockSkip(s, 0, first)
			if w == 0 {
				continue
			}
			if w != utf8.RuneLen(r) {
				t.Fatalf("U+%04X: blockSkip passes over %d bytes", r, w)
			}
			for _, tab := range tables {
				if c, _ := classAtSlow(tab, s, 0); c&first != 0 {
					t.Fatalf("U+%04X: blockSkip passes over a character of class %b", r, first)
				}
			}
		}
	}
	// A leading byte without its continuation bytes is one byte.
	if w := blockSkip("\xd0A", 0, cN); w != 0 {
		t.Errorf("blockSkip of a truncated sequence = %d, want 0", w)
	}
}

// TestHasDigit checks hasDigit on every ASCII byte at every place of a
// word of letters, and on words of several digits.
func TestHasDigit(t *testing.T) {
	for b := range 128 {
		for at := range 8 {
			w := []byte("abcdefgh")
			w[at] = byte(b)
			if got, want := hasDigit(vocabtab.Load64(string(w), 0)), b >= '0' && b <= '9'; got != want {
				t.Fatalf("%q: hasDigit = %v", w, got)
			}
		}
	}
	for _, s := range []string{"01234567", "9.......", "\x00\x00\x00\x00\x00\x00\x005", "////::::"} {
		if got, want := hasDigit(vocabtab.Load64(s, 0)), strings.ContainsAny(s, "0123456789"); got != want {
			t.Errorf("%q: hasDigit = %v", s, got)
		}
	}
}

// TestNFCSupplementary checks that every character above the Basic
// Multilingual Plane that isInert passes as inert is inert for the norm
// package (in NFC alone, combining with nothing before it): the blocks it
// passes are chosen from the unicode package's marks and a list of
// decomposing ranges, so a new version of either package could change
// that. Under the race detector it checks every 13th character.
func TestNFCSupplementary(t *testing.T) {
	table()
	step := rune(1)
	if raceEnabled {
		step = 13
	}
	var buf [4]byte
	passed := 0
	for r := rune(bmp); r <= utf8.MaxRune; r += step {
		if !isInert(r) {
			continue
		}
		passed++
		n := utf8.EncodeRune(buf[:], r)
		if p := norm.NFC.Properties(buf[:n]); !p.BoundaryBefore() || !norm.NFC.IsNormal(buf[:n]) {
			t.Fatalf("U+%04X: isInert says inert, norm does not", r)
		}
	}
	if passed < 900_000/int(step) {
		t.Errorf("only %d characters above U+FFFF pass as inert", passed)
	}
}

// TestInertSkip checks that inertSkip passes over a character only if
// it is inert, and then over all its bytes, for every character, and
// over no invalid sequence.
func TestInertSkip(t *testing.T) {
	table()
	skipped := 0
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		if r >= 0xD800 && r < 0xE000 {
			continue
		}
		s := string(r)
		w := inertSkip(s, 0)
		if w == 0 {
			continue
		}
		skipped++
		if w != len(s) || !isInert(r) {
			t.Fatalf("U+%04X: inertSkip passes over %d bytes, isInert %v", r, w, isInert(r))
		}
	}
	if skipped < 900_000 {
		t.Errorf("inertSkip passes over only %d characters", skipped)
	}
	for _, s := range []string{"\xc2", "\xe0\x80\x80", "\xed\xa0\x80", "\xf0\x80\x80\x80", "\xf4\x90\x80\x80", "\xe4\xb8", "\xd0A", "\xf5\x80\x80\x80"} {
		if w := inertSkip(s, 0); w != 0 {
			t.Errorf("%q: inertSkip passes over %d bytes of an invalid sequence", s, w)
		}
	}
}
