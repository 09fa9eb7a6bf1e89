package engine_test

import (
	"path/filepath"
	"testing"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/presets"
)

// TestBuildProgress: Build calls Progress once a prompt, counting up to
// the number of prompts it builds, with each prompt's output path.
func TestBuildProgress(t *testing.T) {
	c, err := catalog.Open(t.Context(), filepath.Join("..", "examples"), presets.Default().Sections()...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var calls []int
	var outs []string
	e := &engine.Engine{Registry: presets.Default(), Progress: func(done, total int, out string) {
		calls = append(calls, done, total)
		outs = append(outs, out)
	}}
	built, err := e.Build(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != len(built) {
		t.Fatalf("%d progress calls for %d prompts", len(outs), len(built))
	}
	for i := range outs {
		if calls[2*i] != i+1 || calls[2*i+1] != len(built) || outs[i] != built[i].Unit.Out {
			t.Errorf("call %d: %d/%d %s, want %d/%d %s", i, calls[2*i], calls[2*i+1], outs[i], i+1, len(built), built[i].Unit.Out)
		}
	}
}
