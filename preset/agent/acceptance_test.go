package agent_test

// The acceptance criteria of design 000 (Spec 12), one test each, run on
// the example task in examples/agent through the engine, as a user would.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/internal/diagtest"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/agent"
	"github.com/tessera-dev/tessera/preset/agent/reply"
	"github.com/tessera-dev/tessera/provider"
)

func assembleRole(t *testing.T, r agent.Role, extra ...string) *engine.Result {
	t.Helper()
	res, err := assemble(t, nil, with(exampleArgs()[r], extra...))
	if err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	return res
}

// "Executor prompt includes all 7 sections in correct order."
func TestAcceptance01ExecutorSections(t *testing.T) {
	res := assembleRole(t, agent.Executor)
	var got []string
	for _, s := range res.Sections {
		got = append(got, s.Key)
	}
	want := []string{"role", "task_state", "subtask", "memory", "tools", "output_format", "constraints"}
	if !slices.Equal(got, want) {
		t.Fatalf("sections %v, want %v", got, want)
	}
	for i := 1; i < len(res.Sections); i++ {
		a, b := res.Sections[i-1], res.Sections[i]
		if res.Prompt.Text[a.End:b.Start] != "\n\n---\n\n" {
			t.Errorf("between %s and %s: %q, want the --- rule", a.Key, b.Key, res.Prompt.Text[a.End:b.Start])
		}
	}
}

// "Planner produces valid subtask decomposition JSON": the planner asks
// for the format the plan check reads (its example subtask has every
// field, with the right types), sends the plan's schema to providers,
// and a reply in that format passes the check.
func TestAcceptance02PlannerJSON(t *testing.T) {
	res := assembleRole(t, agent.Planner)
	text := res.Prompt.Text
	i := strings.Index(text, "Respond with ONLY a JSON object:\n")
	if i < 0 {
		t.Fatalf("the planner does not ask for JSON:\n%s", text)
	}
	_, err := reply.ParsePlan("planner example", []byte(text[i:]))
	diagtest.CheckProblems(t, "the planner's own example", err, []string{
		"planner example:3:3: the plan has 1 subtask: make it 3 to 15",
		`planner example:7:22: subtask "short-kebab-id": depends_on names "ids-of-prerequisites"`,
	})
	if res.Output == nil || res.Output.Name != "plan" {
		t.Fatalf("no plan schema: %+v", res.Output)
	}
	p, err := reply.ParsePlan("plan.txt", read(t, "replies/plan.txt"))
	if err != nil || len(p.Subtasks) != 3 {
		t.Errorf("a planner's reply: %v", err)
	}
	var v any
	data, _, _ := reply.ExtractJSON(read(t, "replies/plan.txt"), '{')
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	body := string(assembleWith(t, agent.Planner, provider.OpenAIChat))
	if !strings.Contains(body, `"json_schema":{"name":"plan","schema":{"type":"object"`) || !strings.Contains(body, `"strict":true`) {
		t.Errorf("the OpenAI body does not ask for the strict plan schema:\n%.400s", body)
	}
}

func assembleWith(t *testing.T, r agent.Role, f provider.Format) []byte {
	t.Helper()
	reg, _ := preset.NewRegistry(agent.New())
	res, err := (&engine.Engine{Registry: reg}).Assemble(context.Background(), engine.Request{Args: exampleArgs()[r], NoLog: true, Delivery: &engine.Delivery{Format: f}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Body
}

// "Replanner preserves completed subtasks": the replanner is shown every
// subtask with its status and told to keep completed ones; a revised plan
// that keeps them passes the check, one that drops or changes them fails
// it, naming each.
func TestAcceptance03ReplannerPreserves(t *testing.T) {
	res := assembleRole(t, agent.Replanner)
	for _, want := range []string{`"id":"inspect-package"`, `"status":"completed"`, "Keep completed subtasks as-is.", "- Do NOT re-do completed subtasks."} {
		if !strings.Contains(res.Prompt.Text, want) {
			t.Errorf("the replanner's prompt lacks %q", want)
		}
	}
	orig, err := reply.ParsePlan("plan.json", read(t, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	good, _ := reply.ParsePlan("replan.json", read(t, "replies/replan.json"))
	if err := reply.ValidateReplan(orig, good); err != nil {
		t.Errorf("a good replan: %v", err)
	}
	bad, _ := reply.ParsePlan("drops.json", read(t, "replies/replan-drops.json"))
	err = reply.ValidateReplan(orig, bad)
	for _, want := range []string{`"add-mypy-config" is completed, but the revised plan drops it`, `"inspect-package" is completed, but the revised plan changes its description`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a replan that drops and changes completed work: %v, want %q", err, want)
		}
	}
}

// "Extractor produces structured memory entries": the extractor's reply
// becomes entries that the executor's memory reads back.
func TestAcceptance04ExtractorEntries(t *testing.T) {
	res := assembleRole(t, agent.Extractor)
	if !strings.Contains(res.Prompt.Text, `"type": "decision|error|tool_result|discovery|artifact|context"`) {
		t.Errorf("the extractor does not show the entry format:\n%s", res.Prompt.Text)
	}
	entries, err := reply.ParseExtraction("extract.txt", read(t, "replies/extract.txt"))
	if err != nil || len(entries) != 2 {
		t.Fatalf("entries %v, %v", entries, err)
	}
	data, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	back, err := agent.ParseMemory("entries.json", data)
	if err != nil || !slices.EqualFunc(back, entries, func(a, b reply.MemoryEntry) bool {
		return a.Type == b.Type && a.Summary == b.Summary && slices.Equal(a.Tags, b.Tags) && slices.Equal(a.RelevanceTo, b.RelevanceTo)
	}) {
		t.Errorf("entries do not read back as memory: %v, %v", back, err)
	}
}

// "Constraints section is present in every prompt."
func TestAcceptance05Constraints(t *testing.T) {
	for _, r := range agent.Roles() {
		res := assembleRole(t, r)
		last := res.Sections[len(res.Sections)-1]
		if last.Key != "constraints" || !strings.Contains(last.Text, "- Do NOT hallucinate file contents.") {
			t.Errorf("%s: last section %s:\n%s", r, last.Key, last.Text)
		}
	}
}

// "Memory entries are formatted concisely for context injection": one
// line each, type, summary and tags, no detail unless asked.
func TestAcceptance06ConciseMemory(t *testing.T) {
	res := assembleRole(t, agent.Executor)
	var mem string
	for _, s := range res.Sections {
		if s.Key == "memory" {
			mem = s.Text
		}
	}
	want := "RELEVANT CONTEXT FROM PRIOR WORK:\n~~~text\n" +
		"- [discovery] slug.py has one function, slugify(title, max_length=60), with no annotations. (tags: slugify, annotations)\n" +
		"- [decision] Use built-in generics (list[str]) and X | None: the project requires Python 3.10+. (tags: typing, python-version)\n" +
		"- [artifact] pyproject.toml now has [tool.mypy] with strict = true. (tags: mypy, config)\n" +
		"- [context] The tests import slugify from the package root: keep its name and signature. (tags: tests, api)\n" +
		"- [tool_result] pytest passed 1 test before any change. (tags: pytest)\n~~~"
	if mem != want {
		t.Errorf("memory:\n%s\nwant:\n%s", mem, want)
	}
}

// "Token budget is respected (prompts don't exceed model context)":
// every role, fitted to ever smaller budgets, fits, trimming what it may
// (for each role at least one budget makes it trim) until only what may
// not be trimmed is left, which is refused clearly.
func TestAcceptance07Budget(t *testing.T) {
	reg, _ := preset.NewRegistry(agent.New())
	e := &engine.Engine{Registry: reg}
	for _, r := range agent.Roles() {
		args := exampleArgs()[r]
		if r == agent.Executor || r == agent.Replanner {
			args = with(args, "agent-detail", "true")
		}
		fit := func(limit int) (*engine.Result, error) {
			return e.Assemble(context.Background(), engine.Request{Args: args, NoLog: true, Budget: &engine.Budget{Model: "gpt-4o", Context: limit}})
		}
		roomy, err := fit(100000)
		if err != nil {
			t.Fatal(err)
		}
		before, trimmed := roomy.Budget.Before, 0
		for limit := before; limit > 0; limit -= max(before/100, 1) {
			res, err := fit(limit)
			if err != nil {
				if !strings.Contains(err.Error(), "with every trimmable section trimmed") {
					t.Fatalf("%s at %d: %v", r, limit, err)
				}
				break
			}
			if res.Budget.Final > limit {
				t.Errorf("%s at %d: %d tokens", r, limit, res.Budget.Final)
			}
			if res.Prompt.Text != roomy.Prompt.Text {
				trimmed++
			}
		}
		if trimmed == 0 {
			t.Errorf("%s: no budget made it trim anything", r)
		}
	}
}

// "Templates are loaded from YAML files (editable without code changes)":
// an edited copy of a default template changes the prompt.
func TestAcceptance08EditableTemplates(t *testing.T) {
	dir := t.TempDir()
	def, err := agent.DefaultFile("executor.yaml")
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(def), "CURRENT TASK STATE:", "WHERE THINGS STAND:", 1)
	if err := os.WriteFile(filepath.Join(dir, "executor.yaml"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	res := assembleRole(t, agent.Executor, agent.InputTemplates, dir)
	if !strings.Contains(res.Prompt.Text, "WHERE THINGS STAND:\ngoal:") || strings.Contains(res.Prompt.Text, "CURRENT TASK STATE") {
		t.Errorf("the edited template is not used:\n%.600s", res.Prompt.Text)
	}
}

// "Prompt assembly is testable with mock data": every role builds from
// the example's mock files, the same bytes every time.
func TestAcceptance09MockData(t *testing.T) {
	for _, r := range agent.Roles() {
		a, b := assembleRole(t, r), assembleRole(t, r)
		if a.Prompt.Text == "" || a.Prompt.Hash != b.Prompt.Hash {
			t.Errorf("%s: empty or not deterministic", r)
		}
	}
}

// "Tool schemas are included only when tools are relevant": with no tools
// there is no tools section and no tool in the request; with tools, only
// the subtask's, in the text and in the request.
func TestAcceptance10RelevantTools(t *testing.T) {
	args := exampleArgs()[agent.Executor]
	delete(args, "agent-tools")
	res, err := assemble(t, nil, args)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 0 || strings.Contains(res.Prompt.Text, "AVAILABLE TOOLS") || strings.Contains(res.Prompt.Text, "parameters:") {
		t.Errorf("no tools given, yet tools shown: %v", res.Tools)
	}
	res = assembleRole(t, agent.Executor)
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"read_file", "write_file", "run_command"}) || strings.Contains(res.Prompt.Text, "search_web") {
		t.Errorf("tools %v", names)
	}
	body := string(assembleWith(t, agent.Executor, provider.Anthropic))
	if !strings.Contains(body, `"name":"read_file"`) || strings.Contains(body, "search_web") {
		t.Errorf("the request's tools are not the subtask's:\n%.300s", body)
	}
}
