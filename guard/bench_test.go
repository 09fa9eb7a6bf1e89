package guard

import (
	"strings"
	"testing"
)

// BenchmarkRedact redacts 4 KB of prose with the built-in patterns:
// clean text (the common case, where the hints skip every expression) and
// the same text with a key, an e-mail address and a phone number in it.
func BenchmarkRedact(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 4096 {
		sb.WriteString("Discussed prompt assembly v1; the user wants a v2 layer for conversation state (see section 4). ")
	}
	clean := sb.String()
	dirty := clean[:2000] + " key " + fake("sk-proj-", 48) + " mail ann@example.com call 415-555-2671 " + clean[2000:]
	for _, tc := range []struct{ name, text string }{{"clean", clean}, {"secrets", dirty}} {
		b.Run(tc.name, func(b *testing.B) {
			r := Default()
			b.SetBytes(int64(len(tc.text)))
			b.ReportAllocs()
			for b.Loop() {
				r.Redact(tc.text)
			}
		})
	}
}
