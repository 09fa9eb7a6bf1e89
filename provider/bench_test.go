package provider

import "testing"

// BenchmarkEncode maps a realistic sectioned request to each provider's
// body: the seven-section fixture with two strict tools, a strict output
// schema (both checked for strict mode on the OpenAI formats), cache
// breakpoints and the stable prefix's hash and token count. The target is
// under 20 µs per body.
func BenchmarkEncode(b *testing.B) {
	req := fixtureRequest(b)
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
