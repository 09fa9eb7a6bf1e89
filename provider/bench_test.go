package provider

import "testing"

// BenchmarkEncode maps a realistic sectioned request to each provider's
// body: the canonical preset's support-ticket example (seven sections,
// about 2.5 KB of text, a strict tool and a strict output schema, both
// checked for strict mode on the OpenAI formats), with cache breakpoints
// and the stable prefix's hash and token count. The target is under
// 20 µs per body.
func BenchmarkEncode(b *testing.B) {
	req := canonicalRequest(b, "support-ticket")
	opts := Options{CacheBreakpoints: true, Counter: wordCounter{}}
	for _, f := range Formats() {
		b.Run(f.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Encode(f, req, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFromPrompt splits the same example's assembled prompt into a
// request.
func BenchmarkFromPrompt(b *testing.B) {
	res := canonicalResult(b, "support-ticket")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromPrompt(res.Prompt, res.Sections, canonicalStable); err != nil {
			b.Fatal(err)
		}
	}
}
