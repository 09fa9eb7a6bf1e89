package typed_test

import (
	"context"
	"github.com/tessera-dev/tessera/presets"
	"path/filepath"
	"testing"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/presettest"
	"github.com/tessera-dev/tessera/preset/typed"
)

// TestConformance: the typed preset keeps the engine's promises
// (determinism, hashes, spans, fences, budgets, replay, provider bodies)
// on every fixture of the example, its params file, an expansion and the
// example overrides, stale one included.
func TestConformance(t *testing.T) {
	const ex = "../../examples/typed/"
	tpl := ex + "code-review.yaml"
	presettest.Run(t, typed.New(),
		presettest.Case{Name: "small-change", Args: preset.Args{typed.InputTemplate: tpl, typed.InputFixture: "small-change"}},
		presettest.Case{Name: "strict-expanded", Args: preset.Args{typed.InputTemplate: tpl, typed.InputFixture: "strict-expanded"}},
		presettest.Case{Name: "params", Args: preset.Args{typed.InputTemplate: tpl, typed.InputParams: ex + "params/code-review.yaml", "typed-expand": "rules"}},
		presettest.Case{Name: "overrides", Args: preset.Args{typed.InputTemplate: tpl, typed.InputFixture: "small-change", "typed-overrides": ex + "overrides/code-review.yaml"}},
	)
}

// TestLayoutRequestReplays: a prompt bound from Go values and assembled
// with engine.Request.Layout is logged and replays to the same bytes from
// its record alone, and a request with both a Layout and Args is refused.
func TestLayoutRequestReplays(t *testing.T) {
	ctx := context.Background()
	tpl, err := typed.Parse("t.yaml", []byte("ns: t\nkey: k\nparams: [{name: who, type: string}, {name: on, type: boolean}]\nsections:\n  - {key: a, title: A, template: Hello $who}\n  - {key: b, title: B, template: on, enabled: on}\n"))
	if err != nil {
		t.Fatal(err)
	}
	vals, err := tpl.Bind(struct {
		Who string
		On  bool
	}{"Ada", true})
	if err != nil {
		t.Fatal(err)
	}
	l, err := tpl.Layout(vals, typed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lg := &audit.Log{Path: filepath.Join(t.TempDir(), "a.jsonl")}
	e := &engine.Engine{Registry: presets.Default()}
	res, err := e.Assemble(ctx, engine.Request{Preset: typed.Name, Layout: l, Log: lg, CorrelationID: "bound-1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Prompt.Text != "## 1. A\nHello Ada\n\n## 2. B\non" {
		t.Errorf("text %q", res.Prompt.Text)
	}
	rep, err := e.Replay(ctx, nil, lg, "bound-1")
	if err != nil || !rep.OK() {
		t.Errorf("replay: %+v %v", rep, err)
	}
	if _, err := e.Assemble(ctx, engine.Request{Preset: typed.Name, Layout: l, Args: preset.Args{"typed": "x"}, NoLog: true}); err == nil {
		t.Error("a request with a Layout and Args was accepted")
	}
}
