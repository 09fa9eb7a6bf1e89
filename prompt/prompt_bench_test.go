package prompt_test

import (
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/prompt"
)

// benchProse returns 4 KB of prompt prose with the given line end.
func benchProse(eol string) []byte {
	var b strings.Builder
	lines := []string{
		"You are operating under a certified role prompt. Follow it exactly.",
		"Ask only questions whose answers change what discovery must explore.",
		"- Never say \"I recommend\"; state options and their consequences.",
		"Output must validate against the schema below; caf\u00e9 \u65e5\u672c \u2014 UTF-8 too.",
	}
	for i := 0; b.Len()+len(lines[i%len(lines)])+len(eol) <= 4096; i++ {
		b.WriteString(lines[i%len(lines)])
		b.WriteString(eol)
	}
	for b.Len() < 4096 {
		b.WriteByte('.')
	}
	return []byte(b.String())
}

// BenchmarkNormalize normalises a 4 KB file saved with Unix line ends
// (validation only, one copy) and with Windows line ends (rewritten).
func BenchmarkNormalize(b *testing.B) {
	for _, tc := range []struct{ name, eol string }{{"LF", "\n"}, {"CRLF", "\r\n"}} {
		b.Run(tc.name, func(b *testing.B) {
			data := benchProse(tc.eol)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := prompt.Normalize(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHash hashes a 4 KB prompt.
func BenchmarkHash(b *testing.B) {
	text := string(benchProse("\n"))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		prompt.Hash(text)
	}
}
