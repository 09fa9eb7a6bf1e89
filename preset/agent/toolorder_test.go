package agent_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/preset/agent"
	"github.com/tessera-dev/tessera/preset/agent/reply"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
	"github.com/tessera-dev/tessera/tokenizer"
)

// toolInput is an executor's input with tools and nothing else to trim.
func toolInput(tools []agent.Tool) *agent.Input {
	return &agent.Input{Role: agent.Executor, TaskState: "goal: g",
		Subtask: &reply.Subtask{ID: "s", Description: "d", AcceptanceCriteria: "c"}, Tools: tools}
}

// toolOrder returns the names of the tools of in's prompt, in the order
// they are laid out.
func toolOrder(t *testing.T, in *agent.Input) []string {
	t.Helper()
	l, err := agent.Build(nil, in)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range l.Sections {
		for _, c := range s.Children {
			for _, tl := range c.Tools {
				names = append(names, tl.Name)
			}
		}
	}
	return names
}

// TestToolOrderPartialScores: with some tools scored and some not, the
// scored come first, highest score first, and the unscored after them in
// the order given; so the budget, which drops the last tool first, drops
// an unscored tool before the best-scored one.
func TestToolOrderPartialScores(t *testing.T) {
	lo, hi := 0.1, 0.9
	tools := []agent.Tool{
		{Name: "a_low", Description: "Low.", Score: &lo},
		{Name: "b_none", Description: "None."},
		{Name: "c_high", Description: "High.", Score: &hi},
	}
	in := toolInput(tools)
	if got, want := toolOrder(t, in), []string{"c_high", "a_low", "b_none"}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	l, err := agent.Build(nil, in)
	if err != nil {
		t.Fatal(err)
	}
	full := tokenizer.O200kBase().Count(render.Render(l.Sections, l.Style).Text)
	res, err := budget.Fit(context.Background(), l.Sections, func(s []prompt.Section) prompt.Prompt { return render.Render(s, l.Style) },
		budget.Budget{Context: full - 1}, budget.Options{Counter: tokenizer.O200kBase()})
	if err != nil {
		t.Fatal(err)
	}
	var dropped []string
	for _, s := range res.Report.Sections {
		if s.Dropped {
			dropped = append(dropped, s.Key)
		}
	}
	if want := []string{"tools/tool.b_none"}; !slices.Equal(dropped, want) {
		t.Errorf("one token over: dropped %v, want %v", dropped, want)
	}
}

// TestToolOrderProperty: for random tools, some scored (with distinct
// scores) and some not, in random input order, the order laid out is the
// scored tools by score, highest first, whatever their input order, then
// the unscored tools in their input order.
func TestToolOrderProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 500 {
		n := 1 + rng.IntN(9)
		scores := rng.Perm(n) // distinct
		var tools []agent.Tool
		var scored []string
		var unscored []string
		for i := range n {
			tl := agent.Tool{Name: fmt.Sprintf("t%d", i)}
			if rng.IntN(2) == 0 {
				sc := float64(scores[i]) / 10
				tl.Score = &sc
				scored = append(scored, tl.Name)
			}
			tools = append(tools, tl)
		}
		// Shuffle the input order.
		rng.Shuffle(len(tools), func(i, j int) { tools[i], tools[j] = tools[j], tools[i] })
		unscored = unscored[:0]
		for _, tl := range tools {
			if tl.Score == nil {
				unscored = append(unscored, tl.Name)
			}
		}
		byName := map[string]*float64{}
		for _, tl := range tools {
			byName[tl.Name] = tl.Score
		}
		slices.SortFunc(scored, func(a, b string) int {
			if *byName[a] > *byName[b] {
				return -1
			}
			return 1
		})
		want := append(slices.Clone(scored), unscored...)
		got := toolOrder(t, toolInput(tools))
		if !slices.Equal(got, want) {
			var in []string
			for _, tl := range tools {
				if tl.Score != nil {
					in = append(in, fmt.Sprintf("%s(%.1f)", tl.Name, *tl.Score))
				} else {
					in = append(in, tl.Name)
				}
			}
			t.Fatalf("iteration %d: tools %v laid out as %v, want %v", iter, in, got, want)
		}
		// Another input order of the same tools gives the scored ones
		// in the same order.
		again := slices.Clone(tools)
		rng.Shuffle(len(again), func(i, j int) { again[i], again[j] = again[j], again[i] })
		got2 := toolOrder(t, toolInput(again))
		if !slices.Equal(got2[:len(scored)], got[:len(scored)]) {
			t.Fatalf("iteration %d: scored tools %v in one input order, %v in another", iter, got[:len(scored)], got2[:len(scored)])
		}
	}
}
