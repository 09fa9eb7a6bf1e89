package layered_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/tessera-dev/tessera/embed"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/layered"
)

// counting is the lexical embedder under a name of its own, counting the
// calls made to it.
type counting struct {
	embed.Hash
	calls *atomic.Int64
}

func (c counting) Name() string { return "counting/256" }
func (c counting) Embed(ctx context.Context, texts []string) ([]embed.Vector, error) {
	c.calls.Add(1)
	return c.Hash.Embed(ctx, texts)
}

// TestWithEmbedder: the preset New(WithEmbedder(e)) returns selects with
// e, through the engine, in place of the embedder layered.yaml names.
func TestWithEmbedder(t *testing.T) {
	var calls atomic.Int64
	reg, err := preset.NewRegistry(layered.New(layered.WithEmbedder(counting{calls: &calls})))
	if err != nil {
		t.Fatal(err)
	}
	e := &engine.Engine{Registry: reg}
	res, err := e.Assemble(context.Background(), engine.Request{
		Args:  preset.Args{layered.InputTask: "Fix the failing invoice tests", layered.InputDir: ex, layered.InputReembed: "true"},
		NoLog: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() == 0 || res.Prompt.Text == "" {
		t.Errorf("the embedder given was not used: %d calls", calls.Load())
	}
}
