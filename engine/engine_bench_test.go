package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/preset"
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
	c, err := catalog.Open(ctx, filepath.Join("..", "examples"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	spec := filepath.Join("..", "examples", "canonical", "support-ticket.yaml")
	e := &engine.Engine{}
	for _, bc := range []struct {
		name string
		req  engine.Request
	}{
		{"template", engine.Request{Args: preset.Args{"workflow": "pm_discovery.v1", "node": "pgc"}, Catalog: c, NoLog: true, CorrelationID: "b"}},
		{"canonical", engine.Request{Args: preset.Args{"spec": spec}, NoLog: true, CorrelationID: "b"}},
		{"canonical+openai", engine.Request{Args: preset.Args{"spec": spec}, NoLog: true, CorrelationID: "b", Delivery: &engine.Delivery{Format: provider.OpenAIChat}}},
		{"template+budget", engine.Request{Args: preset.Args{"workflow": "pm_discovery.v1", "node": "pgc"}, Catalog: c, NoLog: true, CorrelationID: "b", Budget: &engine.Budget{Model: "gpt-4o", Context: 8000, Reserve: 1000}}},
		{"agent+budget", engine.Request{Args: agentArgs(b), NoLog: true, CorrelationID: "b", Budget: &engine.Budget{Context: 1000}}},
		{"agent+openai+budget", engine.Request{Args: agentArgs(b), NoLog: true, CorrelationID: "b", Budget: &engine.Budget{Context: 1000}, Delivery: &engine.Delivery{Format: provider.OpenAIChat}}},
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

// agentArgs are the inputs of an executor prompt with 50 memory entries
// and 20 tools, written under a temporary directory.
func agentArgs(b *testing.B) preset.Args {
	dir := b.TempDir()
	var mem, tools []string
	for i := range 50 {
		mem = append(mem, fmt.Sprintf(`{"id":"m%d","type":"discovery","summary":"Entry %d: module foo%d calls bar%d to parse the configuration and cache it."}`, i, i, i, i))
	}
	for i := range 20 {
		tools = append(tools, fmt.Sprintf(`{"name":"tool_%d","description":"Tool %d: runs operation %d on the workspace and reports what changed.","parameters":{"type":"object","properties":{"path":{"type":"string","description":"Path in the workspace"},"mode":{"type":"string","enum":["fast","slow"]}},"required":["path"]}}`, i, i, i))
	}
	files := map[string]string{
		"memory.json":  "[" + strings.Join(mem, ",") + "]",
		"tools.json":   "[" + strings.Join(tools, ",") + "]",
		"subtask.yaml": "id: add-type-hints\ndescription: Add type hints to slug.py.\nacceptance_criteria: slugify is annotated.\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return preset.Args{
		"agent-role": "executor", "agent-state": filepath.Join("..", "examples", "agent", "state.yaml"),
		"agent-subtask": filepath.Join(dir, "subtask.yaml"), "agent-memory": filepath.Join(dir, "memory.json"), "agent-tools": filepath.Join(dir, "tools.json"),
	}
}
