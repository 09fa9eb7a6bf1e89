package layered_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/embed"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/layered"
	"github.com/tessera-dev/tessera/preset/presettest"
	"github.com/tessera-dev/tessera/presets"
)

const ex = "../../examples/layered"

// TestConformance: the layered preset keeps the engine's promises
// (determinism, hashes, spans, fences, budgets, replay, provider bodies).
func TestConformance(t *testing.T) {
	presettest.Run(t, layered.New(),
		presettest.Case{Name: "with context", Args: preset.Args{layered.InputTask: "Fix the failing invoice tests", layered.InputDir: ex, layered.InputContext: ex + "/context.yaml"}},
		presettest.Case{Name: "review, no context", Args: preset.Args{layered.InputTask: "Review the diff for security problems", layered.InputDir: ex}},
		presettest.Case{Name: "interactive", Args: preset.Args{layered.InputTask: "Corrija os testes", layered.InputDir: ex, layered.InputInteractive: "true", layered.InputContext: ex + "/context.yaml"}},
	)
}

// TestCustomEmbedderReplays: a selection made from Go with an embedder
// of one's own is assembled through engine.Request.Layout, logged, and
// replayed from its record alone, with no embedder.
func TestCustomEmbedderReplays(t *testing.T) {
	ctx := context.Background()
	s, err := layered.ParseSetup(func(name string) (string, []byte, error) {
		data, err := os.ReadFile(filepath.Join(ex, name))
		return name, data, err
	})
	if err != nil {
		t.Fatal(err)
	}
	a := &layered.Assembler{Setup: s, Embedder: embed.Hash{Dim: 512}}
	sel, err := a.Select(ctx, layered.Request{Task: "Review the diff for security problems"})
	if err != nil {
		t.Fatal(err)
	}
	if sel.Metrics.Embedder != "hash-v1/512" {
		t.Errorf("embedder %s", sel.Metrics.Embedder)
	}
	lg := &audit.Log{Path: filepath.Join(t.TempDir(), "a.jsonl")}
	e := &engine.Engine{Registry: presets.Default()}
	if _, err := e.Assemble(ctx, engine.Request{Preset: layered.Name, Layout: sel.Layout(), Log: lg, CorrelationID: "l-1"}); err != nil {
		t.Fatal(err)
	}
	rep, err := e.Replay(ctx, nil, lg, "l-1")
	if err != nil || !rep.OK() {
		t.Errorf("replay: %+v %v", rep, err)
	}
}
