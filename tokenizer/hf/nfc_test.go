package hf

import (
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// TestIsNFC checks that isNFC never calls a string in NFC that is not:
// every inert character alone, and random strings of inert characters
// mixed with ASCII.
func TestIsNFC(t *testing.T) {
	var inert []rune
	for r := rune(0x80); r < bmp; r++ {
		if s := string(r); isNFC(s) {
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
		if s := b.String(); !isNFC(s) || !norm.NFC.IsNormalString(s) {
			t.Fatalf("%q: isNFC %v, norm %v", s, isNFC(s), norm.NFC.IsNormalString(s))
		}
	}
	for _, s := range []string{"e\u0301", "\u1100\u1161", "\uAC00\u11A8", "\u00E9\u0301", "\U0001F600"} {
		if isNFC(s) {
			t.Errorf("%q: isNFC says NFC", s)
		}
	}
}
