package provider_test

import (
	"context"
	"github.com/tessera-dev/tessera/presets"
	"path/filepath"
	"testing"

	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/schema"
	"github.com/tessera-dev/tessera/tokenizer"
)

// canonicalRequest assembles examples/canonical/<name>.yaml with the
// canonical preset (design 004) and returns its request: its output
// schema and tool parameters strictified and marked strict, so that the
// same request encodes for every format.
func canonicalRequest(b *testing.B, name string) provider.Request {
	b.Helper()
	e := engine.Engine{Registry: presets.Default()}
	res, err := e.Assemble(context.Background(), engine.Request{
		Args:          preset.Args{"spec": filepath.Join("..", "examples", "canonical", name+".yaml")},
		NoLog:         true,
		CorrelationID: "bench-1",
	})
	if err != nil {
		b.Fatal(err)
	}
	req := res.Request()
	for i, tl := range req.Tools {
		fixed, left, err := schema.Strictify(tl.Parameters)
		if err != nil || len(left) > 0 {
			b.Fatalf("%s: tool %s: %v %v", name, tl.Name, err, left)
		}
		req.Tools[i].Parameters = fixed
	}
	req.StrictTools = len(req.Tools) > 0
	if req.Output != nil {
		fixed, left, err := schema.Strictify(req.Output.Schema)
		if err != nil || len(left) > 0 {
			b.Fatalf("%s: output schema: %v %v", name, err, left)
		}
		req.Output.Schema, req.Output.Strict = fixed, true
	}
	return req
}

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
// "counted/min" also leaves out the breakpoints under a minimum
// cacheable length of 1,024 tokens (all of them, for these examples),
// which costs nothing beyond the count.
func BenchmarkEncode(b *testing.B) {
	for _, example := range []string{"v2-example", "support-ticket"} {
		req := canonicalRequest(b, example)
		for _, f := range provider.Formats() {
			b.Run(example+"/"+f.String(), func(b *testing.B) {
				benchEncode(b, f, req, provider.Options{CacheBreakpoints: true})
			})
		}
		b.Run(example+"/anthropic/counted", func(b *testing.B) {
			benchEncode(b, provider.Anthropic, req, provider.Options{CacheBreakpoints: true, Counter: tokenizer.O200kBase()})
		})
		b.Run(example+"/anthropic/counted/min", func(b *testing.B) {
			benchEncode(b, provider.Anthropic, req, provider.Options{CacheBreakpoints: true, Counter: tokenizer.O200kBase(), MinCacheTokens: 1024})
		})
	}
}

func benchEncode(b *testing.B, f provider.Format, req provider.Request, opts provider.Options) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := provider.Encode(f, req, opts); err != nil {
			b.Fatal(err)
		}
	}
}
