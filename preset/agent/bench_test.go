package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/preset/agent"
	"github.com/tessera-dev/tessera/preset/agent/reply"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
	"github.com/tessera-dev/tessera/tokenizer"
)

// benchInput is an executor's input with 50 memory entries and 20 tools.
func benchInput() *agent.Input {
	in := &agent.Input{
		Role:      agent.Executor,
		TaskState: "goal: Add type hints to slugkit and check them with mypy\nstatus: in_progress\ncurrent_subtask: add-type-hints\ncompleted:\n  - inspect-package\n  - add-mypy-config",
		Subtask:   &reply.Subtask{ID: "add-type-hints", Description: "Add type hints to every function in src/slugkit/slug.py.", AcceptanceCriteria: "slugify is annotated; no behaviour changes."},
	}
	types := reply.MemoryTypes()
	for i := range 50 {
		in.Memory = append(in.Memory, reply.MemoryEntry{
			ID:          fmt.Sprintf("m%d", i),
			Type:        types[i%len(types)],
			Summary:     fmt.Sprintf("Finding %d: slug.py line %d uses re.sub with a pattern that needs a str argument.", i, 10+i),
			Detail:      "def slugify(title, max_length=60):\n    ...",
			Tags:        []string{"slugify", "typing", fmt.Sprintf("line-%d", i)},
			RelevanceTo: []string{[]string{"add-type-hints", "run-mypy", "run-tests"}[i%3]},
		})
	}
	for i := range 20 {
		in.Tools = append(in.Tools, agent.Tool{
			Name:        fmt.Sprintf("tool_%02d", i),
			Description: "Read, write or run something in the workspace and return what came of it.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"Path relative to the workspace"},"text":{"type":"string"}},"required":["path"],"additionalProperties":false}`),
		})
	}
	return in
}

// BenchmarkExecutor builds an executor's prompt with 50 memory entries
// and 20 tools from parsed templates: laid out as sections ("layout"),
// laid out and rendered ("text": the prompt without a budget), and
// laid out and fitted to a budget that fits it whole ("budget/fits") or
// that makes it drop most memory entries ("budget/trims"). The budget
// keeps its section counts in a cache across builds, as an Engine with a
// Cache does in an agent's loop, where the role, constraints and tools
// stay the same from step to step.
func BenchmarkExecutor(b *testing.B) {
	in := benchInput()
	ts := agent.DefaultTemplates()
	b.Run("layout", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := agent.Build(ts, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("text", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			l, err := agent.Build(ts, in)
			if err != nil {
				b.Fatal(err)
			}
			if p := render.Render(l.Sections, l.Style); p.Text == "" {
				b.Fatal("empty")
			}
		}
	})
	l, err := agent.Build(ts, in)
	if err != nil {
		b.Fatal(err)
	}
	full := tokenizer.O200kBase().Count(render.Render(l.Sections, l.Style).Text)
	for _, bc := range []struct {
		name  string
		limit int
	}{{"budget/fits", full + 100}, {"budget/trims", full * 2 / 3}} {
		b.Run(bc.name, func(b *testing.B) {
			opts := budget.Options{Counter: tokenizer.O200kBase(), Cache: budget.NewCache(0)}
			b.ReportAllocs()
			for b.Loop() {
				l, err := agent.Build(ts, in)
				if err != nil {
					b.Fatal(err)
				}
				res, err := budget.Fit(context.Background(), l.Sections, func(s []prompt.Section) prompt.Prompt { return render.Render(s, l.Style) },
					budget.Budget{Context: bc.limit}, opts)
				if err != nil {
					b.Fatal(err)
				}
				if res.Report.Final > bc.limit {
					b.Fatal("over budget")
				}
			}
		})
	}
}
