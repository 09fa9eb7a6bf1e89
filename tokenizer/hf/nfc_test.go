package hf

import (
	"math/rand/v2"
	"slices"
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

// TestNFCQuick checks the quick check of segments that are not inert
// (nfcQuick, quickStep) against the norm package: random strings of
// characters of the Basic Multilingual Plane that are not inert, mixed
// with inert ones and ASCII, in runs long and short, must be in NFC for
// isNFC exactly when norm says so, and toNFC and nfcScratch's text
// must give norm's text.
func TestNFCQuick(t *testing.T) {
	table()
	var inert, other []rune
	for r := rune(0x80); r < bmp; r++ {
		if r >= 0xD800 && r < 0xE000 {
			continue
		}
		if isInert(r) {
			inert = append(inert, r)
		} else {
			other = append(other, r)
		}
	}
	// Marks of the scripts the per-script texts hold, often enough
	// that they meet each other in every order.
	common := []rune{0x93C, 0x94D, 0x941, 0x947, 0x902, 0x64B, 0x64E, 0x650, 0x651, 0x652, 0x670,
		0x300, 0x301, 0x308, 0x323, 0x327, 0x5B0, 0x5B4, 0x5BC, 0xE48, 0xE34, 0x1161, 0x11A8, 0x3099}
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	var sc nfcScratch
	n := 200_000
	if lightRun() {
		n = 20_000 // one goroutine, where the detector finds nothing: .ci/run runs it all without -race
	}
	for i := range n {
		b.Reset()
		for range 1 + rng.IntN(12) {
			switch rng.IntN(5) {
			case 0:
				b.WriteByte(byte('a' + rng.IntN(26)))
			case 1:
				b.WriteRune(inert[rng.IntN(len(inert))])
			case 2:
				b.WriteRune(other[rng.IntN(len(other))])
			default:
				for range 1 + rng.IntN(3) {
					b.WriteRune(common[rng.IntN(len(common))])
				}
			}
		}
		if i%50 == 0 {
			// A run of marks longer than quickStep passes.
			for range maxQuickRun + rng.IntN(40) {
				b.WriteRune(common[rng.IntN(len(common))])
			}
		}
		s := b.String()
		if got, want := isNFC(s, nil), norm.NFC.IsNormalString(s); got != want {
			t.Fatalf("%q: isNFC %v, norm %v", s, got, want)
		}
		if got, want := toNFC(s, nil), norm.NFC.String(s); got != want {
			t.Fatalf("%q: toNFC %q, norm %q", s, got, want)
		}
		if got, want := sc.text(s), norm.NFC.String(s); got != want { // sc's buffer reused
			t.Fatalf("%q: text %q, norm %q", s, got, want)
		}
	}
	// Runs of one mark, in order however long, around norm's limit of
	// 30 non-starters in a row.
	for n := 1; n < 40; n++ {
		for _, m := range []string{"\u0316", "\u094D", "\u0651", "\u05B0"} {
			s := "\u0915" + strings.Repeat(m, n) + "a"
			if got, want := isNFC(s, nil), norm.NFC.IsNormalString(s); got != want {
				t.Fatalf("%q: isNFC %v, norm %v", s, got, want)
			}
		}
	}
	// Every character that is not inert, alone and after an inert one.
	for _, r := range other {
		for _, s := range []string{string(r), "\u0915" + string(r), "a" + string(r) + string(r)} {
			if got, want := isNFC(s, nil), norm.NFC.IsNormalString(s); got != want {
				t.Fatalf("%q: isNFC %v, norm %v", s, got, want)
			}
		}
	}
}

// TestDecodeAt checks decodeAt against utf8.DecodeRuneInString on every
// character, and on every sequence of up to three bytes with a leading
// byte first.
func TestDecodeAt(t *testing.T) {
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		s := "a" + string(r) + "b"
		gr, gn := decodeAt(s, 1)
		wr, wn := utf8.DecodeRuneInString(s[1:])
		if gr != wr || gn != wn {
			t.Fatalf("U+%04X: decodeAt %U %d, utf8 %U %d", r, gr, gn, wr, wn)
		}
	}
	for b0 := 0x80; b0 < 0x100; b0++ {
		for b1 := 0; b1 < 0x100; b1++ {
			for _, b2 := range []int{0x00, 0x41, 0x80, 0x9F, 0xA0, 0xBF, 0xC0} {
				s := string([]byte{byte(b0), byte(b1), byte(b2)})
				for _, s := range []string{s, s[:2], s[:1]} {
					gr, gn := decodeAt(s, 0)
					wr, wn := utf8.DecodeRuneInString(s)
					if gr != wr || gn != wn {
						t.Fatalf("% x: decodeAt %U %d, utf8 %U %d", s, gr, gn, wr, wn)
					}
				}
			}
		}
	}
}

// TestNFCMaybeMarks checks what quickStep takes on trust for a mark of
// nfcMaybeMark: after every character of class 0 that markAlone passes
// and that is in NFC alone, the mark composes with nothing, by the norm package. It
// checks the characters the marks compose with too: nfcJoinsMark holds
// the first of each pair. Under the race detector, every 61st
// character.
func TestNFCMaybeMarks(t *testing.T) {
	table()
	var marks []rune
	for r := rune(0x80); r < bmp; r++ {
		if nfcQuick[r]&nfcMaybeMark != 0 {
			marks = append(marks, r)
		}
	}
	if !slices.Contains(marks, 0x93C) {
		t.Fatalf("U+093C is not among the marks that may compose (%d marks)", len(marks))
	}
	step := rune(1)
	if raceEnabled || testing.Short() {
		step = 61
	}
	passed := 0
	for p := rune(0); p < bmp; p += step {
		if p >= 0xD800 && p < 0xE000 || !markAlone(p) || !norm.NFC.IsNormalString(string(p)) ||
			norm.NFC.PropertiesString(string(p)).CCC() != 0 {
			continue
		}
		passed++
		for _, m := range marks {
			if s := string(p) + string(m); !norm.NFC.IsNormalString(s) {
				t.Fatalf("%q (U+%04X U+%04X): markAlone passes U+%04X, but norm composes the pair", s, p, m, p)
			}
		}
	}
	if passed < int(bmp/step)/2 {
		t.Errorf("markAlone passes %d characters of %d", passed, bmp/step)
	}
	// The Devanagari letters the nukta composes with, and some it does
	// not.
	for _, c := range []struct {
		r     rune
		alone bool
	}{{0x928, false}, {0x930, false}, {0x933, false}, {0x915, true}, {0x91C, true}, {0x92B, true}, {'a', false}} {
		if got := markAlone(c.r); got != c.alone {
			t.Errorf("markAlone(U+%04X) = %v, want %v", c.r, got, c.alone)
		}
	}
	for _, s := range []string{"फ़", "क़िला", "ऩ", "न\u093C", "र\u093Cा", "ऴ", "a\u093C", "\u093C", "\xf7\u093C", "क\u094D\u093C", "क\u093C\u093C", "ज़्यादा"} {
		if got, want := isNFC(s, nil), norm.NFC.IsNormalString(s); got != want {
			t.Errorf("%q: isNFC %v, norm %v", s, got, want)
		}
		if got, want := toNFC(s, nil), norm.NFC.String(s); got != want {
			t.Errorf("%q: toNFC %q, norm %q", s, got, want)
		}
	}
}
