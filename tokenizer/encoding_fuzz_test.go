package tokenizer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzEncode checks, on any input, that both encodings: split the text
// into the pieces the reference pre-tokenizer makes, which partition it; decode their tokens back to the text;
// agree between Count and Encode; merge every piece with each merge
// implementation exactly as tiktoken's loop does; and truncate to a prefix
// within the limit.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{
		"", "a\n \nb", "hello world", "It's 'S 'ſ 'LL", "  \t\n\r\n  x", "\ufeff\u0085\u2028",
		"日本語のテキスト", "👨‍👩‍👧 🇫🇷 1️⃣", "e\u0301\u0308", "ǅungla ʰa ABCdef", "12345678 ٣٣٣ ²",
		"a//b\n//\n/", "\xff\xfe\xc3", strings.Repeat("a", 300), strings.Repeat(" ", 200) + "x",
	} {
		f.Add(s, uint16(3))
	}
	encs := encodings(f)
	f.Fuzz(func(t *testing.T, text string, max uint16) {
		for _, e := range encs {
			if at, got, want := splitDiff(e, text); at >= 0 {
				t.Fatalf("%s: the piece at %d ends at %d, the reference pre-tokenizer ends it at %d", e.Name(), at, got, want)
			}
			end := 0
			for end < len(text) {
				next := e.next(text, end)
				if next <= end || next > len(text) {
					t.Fatalf("%s: piece at %d ends at %d", e.Name(), end, next)
				}
				end = next
			}
			toks := e.Encode(text)
			back, err := e.Decode(toks)
			if err != nil || string(back) != text {
				t.Fatalf("%s: round trip of %q gave %q, %v", e.Name(), text, back, err)
			}
			if n := e.Count(text); n != len(toks) {
				t.Fatalf("%s: Count %d, Encode %d tokens", e.Name(), n, len(toks))
			}
			var m merger
			for i := 0; i < len(text); {
				j := e.next(text, i)
				if piece := text[i:min(j, i+160)]; len(piece) >= 2 {
					if msg := mergeEach(e, &m, piece); msg != "" {
						t.Fatal(msg)
					}
				}
				i = j
			}
			m.release()
			limit := int(max) % (len(toks) + 2)
			cut, n := e.Truncate(text, limit)
			if !strings.HasPrefix(text, cut) || n > limit {
				t.Fatalf("%s: Truncate(%d) = %q (%d tokens)", e.Name(), limit, cut, n)
			}
			if utf8.ValidString(text) && !utf8.ValidString(cut) {
				t.Fatalf("%s: Truncate(%d) cut inside a character", e.Name(), limit)
			}
		}
	})
}
