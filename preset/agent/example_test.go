package agent_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/tessera-dev/tessera/preset/agent"
	"github.com/tessera-dev/tessera/preset/agent/reply"
)

// An executor's prompt within 600 tokens, in one call: the least relevant
// memory entries go first, and the report says which.
func ExampleFit() {
	score := func(f float64) *float64 { return &f }
	in := &agent.Input{
		Role:      agent.Executor,
		TaskState: "goal: Add type hints to slugkit\ncurrent_subtask: add-type-hints",
		Subtask: &reply.Subtask{ID: "add-type-hints", Description: "Add type hints to slugkit/slug.py.",
			AcceptanceCriteria: "mypy --strict passes on slugkit/slug.py."},
		Memory: []reply.MemoryEntry{
			{ID: "m1", Type: "decision", Summary: "Use built-in generics: the project requires Python 3.10+.", Score: score(0.9)},
			{ID: "m2", Type: "discovery", Summary: "slug.py has three functions: slugify, normalize and truncate.", Score: score(0.7)},
			{ID: "m3", Type: "tool_result", Summary: "pytest passed 12 tests before any change.", Score: score(0.2),
				Detail: strings.Repeat("test_slug.py::test_case PASSED\n", 40)},
		},
		Detail: true,
		Tools: []agent.Tool{
			{Name: "read_file", Description: "Read a file of the workspace.", Score: score(0.9)},
			{Name: "run_command", Description: "Run a shell command in the workspace.", Score: score(0.4)},
		},
	}
	p, err := agent.Fit(context.Background(), nil, in, "gpt-4o", 600)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("within 600 tokens:", p.Tokens <= 600)
	for _, s := range p.Report.Sections {
		if len(s.ItemsDropped) > 0 {
			fmt.Println(s.Key, "dropped", s.ItemsDropped)
		}
	}
	fmt.Println("m1 kept:", strings.Contains(p.Text, "- [decision] Use built-in generics"))
	fmt.Println("m3 kept:", strings.Contains(p.Text, "pytest passed"))
	// Output:
	// within 600 tokens: true
	// memory/entries dropped [m3]
	// m1 kept: true
	// m3 kept: false
}
