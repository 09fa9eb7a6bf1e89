package budget

import (
	"fmt"
	"testing"

	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/tokenizer"
)

// benchSections returns 200 sections, about 100 KB in all: a few that are
// never trimmed, some dropped whole, some with items by relevance or age,
// some truncated, at mixed priorities.
func benchSections() []prompt.Section {
	var out []prompt.Section
	for i := range 200 {
		s := prompt.Section{Key: fmt.Sprintf("s%03d", i), Title: fmt.Sprintf("Section %d", i), Priority: i % 7}
		switch i % 5 {
		case 0:
			if i < 20 {
				s.Trim = prompt.TrimNever
			} else {
				s.Trim = prompt.TrimDrop
			}
			s.Body = words(80, uint64(i))
		case 1:
			s.Trim = prompt.TrimDrop
			s.Body = words(80, uint64(i))
		case 2, 3:
			s.Trim = prompt.TrimLowestRelevance
			if i%5 == 3 {
				s.Trim = prompt.TrimOldest
			}
			for k := range 4 {
				s.Items = append(s.Items, prompt.Item{ID: fmt.Sprintf("i%d", k), Text: words(20, uint64(i*10+k)), Relevance: float64(k % 3), Seq: int64(k)})
			}
		case 4:
			s.Trim = prompt.TrimTruncate
			s.Body = words(80, uint64(i))
		}
		out = append(out, s)
	}
	return out
}

// BenchmarkFit fits a 200-section, 100 KB prompt into 8,000 tokens.
// "warm" shares a count cache across iterations, as a service assembling
// from the same catalog does; "cold" starts each fit with an empty cache,
// so every section and the final prompt are counted from scratch.
// Target: under 2 ms warm.
func BenchmarkFit(b *testing.B) {
	secs := benchSections()
	if n := len(plainRender(secs).Text); n < 90_000 || n > 110_000 {
		b.Fatalf("bench prompt is %d bytes, want about 100 KB", n)
	}
	bud := Budget{Context: 8000}
	c := tokenizer.O200kBase()
	b.Run("warm", func(b *testing.B) {
		cache := NewCache(0)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Fit(ctx, secs, plainRender, bud, Options{Counter: c, Cache: cache}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Fit(ctx, secs, plainRender, bud, Options{Counter: c}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
