package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/preset/agent"
	"github.com/tessera-dev/tessera/presets"
)

// TestFitIsTheEngines: Fit gives the bytes the engine gives for the same
// layout and budget, so the one-call helper and "tessera agent ROLE
// --budget N" agree, at budgets that trim nothing, some memory, and
// memory and tools.
func TestFitIsTheEngines(t *testing.T) {
	in := exampleInput(t, agent.Executor)
	full, err := agent.Text(nil, in)
	if err != nil {
		t.Fatal(err)
	}
	e := &engine.Engine{Registry: presets.Default()}
	for _, tokens := range []int{4000, 700, 640, 560} {
		got, err := agent.Fit(context.Background(), nil, in, "", tokens)
		if err != nil {
			t.Fatalf("budget %d: %v", tokens, err)
		}
		l, err := agent.Build(nil, in)
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Assemble(context.Background(), engine.Request{Preset: agent.Name, Layout: l, Budget: &engine.Budget{Context: tokens}, NoLog: true})
		if err != nil {
			t.Fatalf("budget %d: engine: %v", tokens, err)
		}
		if got.Text != res.Prompt.Text {
			t.Errorf("budget %d: Fit differs from the engine:\n%s\n---- engine:\n%s", tokens, got.Text, res.Prompt.Text)
		}
		if got.Tokens > tokens || got.Tokens != res.Budget.Final {
			t.Errorf("budget %d: %d tokens, engine %d", tokens, got.Tokens, res.Budget.Final)
		}
		if tokens == 4000 && got.Text != full {
			t.Errorf("budget 4000 trims the prompt")
		}
	}
}

// TestFitErrors: a budget that is not positive, an unknown model, and a
// budget the never-trimmed sections do not fit are errors that say so.
func TestFitErrors(t *testing.T) {
	in := exampleInput(t, agent.Executor)
	for _, c := range []struct {
		model  string
		tokens int
		want   string
	}{
		{"", 0, "agent: a budget of 0 tokens: give the number of tokens the prompt may take, 1 or more"},
		{"no-such-model", 100, "agent: "},
		{"", 50, "agent: the executor's prompt does not fit in 50 tokens: "},
	} {
		if _, err := agent.Fit(context.Background(), nil, in, c.model, c.tokens); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Fit(%q, %d): %v, want %q", c.model, c.tokens, err, c.want)
		}
	}
}
