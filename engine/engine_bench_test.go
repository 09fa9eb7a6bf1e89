package engine_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/presets"
	"github.com/tessera-dev/tessera/provider"
)

// BenchmarkEngineAssemble measures the whole library call behind
// tessera assemble: lay out, render, hash and record (and encode, for the
// body cases), without logging. Targets: template node under 15 µs,
// canonical support-ticket spec under 60 µs, with an OpenAI body under
// 80 µs; an agent executor with 50 memory entries and 20 tools fitted
// into 1,000 tokens as the OpenAI request counts them, its native tools
// included, under 5 ms (the engine has no count cache here: every
// assembly counts from scratch).
func BenchmarkEngineAssemble(b *testing.B) {
	ctx := context.Background()
	c, err := catalog.Open(ctx, filepath.Join("..", "examples"), presets.Default().Sections()...)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	spec := filepath.Join("..", "examples", "canonical", "support-ticket.yaml")
	e := &engine.Engine{Registry: presets.Default()}
	for _, bc := range []struct {
		name string
		req  engine.Request
	}{
		{"template", engine.Request{Args: preset.Args{"workflow": "pm_discovery.v1", "node": "pgc"}, Catalog: c, NoLog: true, CorrelationID: "b"}},
		{"canonical", engine.Request{Args: preset.Args{"spec": spec}, NoLog: true, CorrelationID: "b"}},
		{"canonical+openai", engine.Request{Args: preset.Args{"spec": spec}, NoLog: true, CorrelationID: "b", Delivery: &engine.Delivery{Format: provider.OpenAIChat}}},
		{"template+budget", engine.Request{Args: preset.Args{"workflow": "pm_discovery.v1", "node": "pgc"}, Catalog: c, NoLog: true, CorrelationID: "b", Budget: &engine.Budget{Model: "gpt-4o", Context: 8000, Reserve: 1000}}},
		{"agent+budget", engine.Request{Args: engine.AgentToolsArgs(b), NoLog: true, CorrelationID: "b", Budget: &engine.Budget{Context: 1000}}},
		{"agent+openai+budget", engine.Request{Args: engine.AgentToolsArgs(b), NoLog: true, CorrelationID: "b", Budget: &engine.Budget{Context: 1000}, Delivery: &engine.Delivery{Format: provider.OpenAIChat}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			res, err := e.Assemble(ctx, bc.req)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(res.Prompt.Text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Assemble(ctx, bc.req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
