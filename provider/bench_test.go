package provider

import (
	"testing"

	"github.com/tessera-dev/tessera/tokenizer"
)

// BenchmarkEncode maps canonical requests to each provider's body: the
// design's own example (design 004's "v2 Canonical Text": seven sections,
// no tools or schema) and the support-ticket example (about 2.5 KB of
// text, a strict tool and a strict output schema, both checked for strict
// mode on the OpenAI formats), with cache breakpoints and the stable
// prefix's hash. The target is under 20 µs per body.
//
// "counted" adds the stable prefix's exact token count with o200k_base,
// which the command line does for its metadata; the count is the
// tokenizer's work, linear in the prefix, and not part of the target.
func BenchmarkEncode(b *testing.B) {
	for _, example := range []string{"v2-example", "support-ticket"} {
		req := canonicalRequest(b, example)
		for _, f := range Formats() {
			b.Run(example+"/"+f.String(), func(b *testing.B) {
				benchEncode(b, f, req, Options{CacheBreakpoints: true})
			})
		}
		b.Run(example+"/anthropic/counted", func(b *testing.B) {
			benchEncode(b, Anthropic, req, Options{CacheBreakpoints: true, Counter: tokenizer.O200kBase()})
		})
	}
}

func benchEncode(b *testing.B, f Format, req Request, opts Options) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(f, req, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFromPrompt splits the support-ticket example's assembled
// prompt into a request.
func BenchmarkFromPrompt(b *testing.B) {
	res := canonicalResult(b, "support-ticket")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromPrompt(res.Prompt, res.Sections, canonicalStable); err != nil {
			b.Fatal(err)
		}
	}
}
