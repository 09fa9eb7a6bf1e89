package typed

import (
	"context"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/render"
)

const examplesTemplate = `ns: t
key: k
sections:
  - key: task
    title: Task
    template: Classify the ticket.
    examples:
      - {input: "My card was charged twice.", output: billing}
      - {input: "The app crashes on start.", output: bug}
    tools:
      - name: find_ticket
        description: Find a ticket.
        parameters: {type: object, properties: {id: {type: string}}}
        examples:
          - {input: '{"id": "T-1"}', output: '{"subject": "Refund"}'}
`

// TestExamples: task and tool examples are written after the body and
// the description, hashed in the descriptor, and overridden by
// "path#index" and "tool#index" with the drift rules of every override.
func TestExamples(t *testing.T) {
	tpl := mustParse(t, examplesTemplate)
	text, l := layoutText(t, tpl, nil, Options{})
	want := "## 1. Task\nClassify the ticket.\n\nExample 1:\nInput: My card was charged twice.\nOutput: billing\n\nExample 2:\nInput: The app crashes on start.\nOutput: bug"
	if text != want {
		t.Errorf("text\n%q\nwant\n%q", text, want)
	}
	if got := l.Sections[0].Tools[0].Description; got != "Find a ticket.\n\nExample 1:\nInput: {\"id\": \"T-1\"}\nOutput: {\"subject\": \"Refund\"}" {
		t.Errorf("tool description %q", got)
	}
	d := tpl.Descriptor()
	if len(d.TaskExamples) != 2 || len(d.ToolExamples) != 1 || d.TaskExamples["task#1"] == "" || d.ToolExamples["find_ticket#0"] == "" {
		t.Fatalf("descriptor %+v", d)
	}
	src := "ns: t\nkey: k\ntask_examples:\n  - {path: task, index: 1, hash: " + d.TaskExamples["task#1"] + ", input: The page is blank., output: bug}\ntool_examples:\n  - {tool: find_ticket, index: 0, hash: " + strings.Repeat("0", 64) + ", input: x, output: y}\n"
	ov, err := tpl.ParseOverrides("o.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(ov.Notes) != 1 || !strings.Contains(ov.Notes[0], "tool example find_ticket#0 is stale") {
		t.Errorf("notes %q", ov.Notes)
	}
	text, l = layoutText(t, tpl, nil, Options{Overrides: ov})
	if !strings.Contains(text, "Example 2:\nInput: The page is blank.\nOutput: bug") || strings.Contains(text, "crashes") {
		t.Errorf("the task example override did not apply:\n%s", text)
	}
	// The record replays the applied override.
	var rec audit.Record
	if err := l.Record(&rec); err != nil {
		t.Fatal(err)
	}
	again, err := New().Rebuild(context.Background(), nil, &rec)
	if err != nil {
		t.Fatal(err)
	}
	if got := render.Render(again.Sections, again.Style).Text; got != text {
		t.Errorf("rebuilt\n%s\nwant\n%s", got, text)
	}
	for _, tt := range []struct{ src, want string }{
		{"task_examples:\n  - {path: task, index: 5, hash: x, input: a, output: b}\n", `o.yaml:4:18: task "task" has no example 5: its examples are task#0, task#1`},
		{"task_examples:\n  - {path: task, index: 0, hash: " + d.TaskExamples["task#0"] + ", input: a, output: b}\n  - {path: task, index: 0, hash: " + d.TaskExamples["task#0"] + ", input: c, output: d}\n", "task example task#0 is overridden twice, at lines 4 and 5"},
		{"tool_examples:\n  - {tool: find_ticket, index: 0, hash: ZZ, input: a, output: b}\n", `hash "ZZ"`},
		{"task_examples:\n  - {path: task, index: 0, hash: " + d.TaskExamples["task#0"] + ", input: a}\n", "needs an input and an output"},
	} {
		if _, err := tpl.ParseOverrides("o.yaml", []byte("ns: t\nkey: k\n"+tt.src)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.src, err, tt.want)
		}
	}
	if _, err := Parse("t.yaml", []byte(strings.Replace(examplesTemplate, "output: billing", "output: ''", 1))); err == nil || !strings.Contains(err.Error(), `section "task": example 1 needs an input and an output`) {
		t.Errorf("an empty output: %v", err)
	}
}
