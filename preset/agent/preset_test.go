package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/internal/diagtest"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/agent"
	"github.com/tessera-dev/tessera/preset/presettest"
	"github.com/tessera-dev/tessera/presets"
	"github.com/tessera-dev/tessera/schema"
)

// ex is the example task every role is built from.
const ex = "../../examples/agent/"

// exampleArgs are the example's inputs for each role.
func exampleArgs() map[agent.Role]preset.Args {
	return map[agent.Role]preset.Args{
		agent.Planner: {agent.InputRole: "planner", "agent-goal": "Add type hints to slugkit and check them with mypy",
			"agent-workspace": ex + "workspace", "agent-context": "Python 3.10+; keep the public API."},
		agent.Executor: {agent.InputRole: "executor", "agent-state": ex + "state.yaml", "agent-subtask": ex + "subtask.yaml",
			"agent-memory": ex + "memory.json", "agent-tools": ex + "tools.json"},
		agent.Replanner: {agent.InputRole: "replanner", "agent-goal": "Add type hints to slugkit and check them with mypy",
			"agent-state": ex + "state.yaml", "agent-plan": ex + "plan.json", "agent-discoveries": ex + "discoveries.json", "agent-errors": ex + "errors.json"},
		agent.Extractor: {agent.InputRole: "extractor", "agent-subtask": ex + "subtask.yaml", "agent-tool-calls": ex + "tool-calls.json", "agent-model-output": ex + "output.txt"},
		agent.Verifier:  {agent.InputRole: "verifier", "agent-subtask": ex + "subtask.yaml", "agent-tool-calls": ex + "tool-calls.json", "agent-result": ex + "output.txt"},
	}
}

// TestConformance: every role's prompt passes the preset conformance
// suite (determinism, hash, spans, fences, budget, replay, four provider
// bodies).
func TestConformance(t *testing.T) {
	var cases []presettest.Case
	for _, r := range agent.Roles() {
		cases = append(cases, presettest.Case{Name: string(r), Args: exampleArgs()[r]})
	}
	cases = append(cases,
		presettest.Case{Name: "executor with detail", Args: with(exampleArgs()[agent.Executor], "agent-detail", "true")},
		presettest.Case{Name: "executor bare", Args: preset.Args{agent.InputRole: "executor", "agent-state": ex + "state.yaml", "agent-subtask": ex + "subtask.yaml"}},
		presettest.Case{Name: "planner bare", Args: preset.Args{agent.InputRole: "planner", "agent-goal": "Say {hello} ~~~ twice }}"}},
	)
	presettest.Run(t, agent.New(), cases...)
}

func with(a preset.Args, kv ...string) preset.Args {
	out := preset.Args{}
	for k, v := range a {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func assemble(t *testing.T, c *catalog.Catalog, args preset.Args) (*engine.Result, error) {
	t.Helper()
	reg, err := preset.NewRegistry(agent.New())
	if err != nil {
		t.Fatal(err)
	}
	return (&engine.Engine{Registry: reg}).Assemble(context.Background(), engine.Request{Args: args, Catalog: c, NoLog: true})
}

// TestLoadInputs: the role's inputs are checked before any file is read,
// as usage errors naming the flag.
func TestLoadInputs(t *testing.T) {
	for _, tc := range []struct {
		args preset.Args
		want string
	}{
		{preset.Args{agent.InputRole: "coder"}, `--agent-role "coder" is not a role: use planner, executor, replanner, extractor or verifier`},
		{preset.Args{agent.InputRole: "planner"}, "--agent-goal is needed by the planner: the task's goal"},
		{preset.Args{agent.InputRole: "plan", "agent-goal": " "}, "--agent-goal is empty: say what the agent is to do"},
		{preset.Args{agent.InputRole: "planner", "agent-goal": "g", "agent-memory": "m.json"}, "--agent-memory is not read by the planner, which reads --agent-goal, --agent-workspace, --agent-context, --agent-listing-depth and --agent-listing-entries"},
		{preset.Args{agent.InputRole: "executor", "agent-subtask": "s.yaml"}, "--agent-state is needed by the executor: the task state, a YAML file"},
		{preset.Args{agent.InputRole: "extractor", "agent-subtask": "s.yaml"}, "--agent-model-output is needed by the extractor"},
		{preset.Args{agent.InputRole: "planner", "agent-goal": "g", "agent-listing-depth": "2"}, "--agent-listing-depth bounds the listing of --agent-workspace: give that too"},
		{preset.Args{agent.InputRole: "planner", "agent-goal": "g", "agent-workspace": ".", "agent-listing-entries": "0"}, `--agent-listing-entries "0": use a whole number, 1 or more`},
		{preset.Args{agent.InputRole: "planner", "agent-goal": "g", "agent-workspace": "nope"}, "--agent-workspace "},
	} {
		_, err := assemble(t, nil, tc.args)
		var ie *preset.InputError
		if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an input error %q", tc.args, err, tc.want)
		}
	}
}

// TestLoadFiles: every problem of every file, with its line.
func TestLoadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	state := write("state.yaml", "goal: g\n")
	sub := write("sub.yaml", "id: s\ndescription: d\nacceptance_criteria: c\n")
	memory := write("memory.json", "[\n  {\"type\": \"decision\", \"summary\": \"a\"},\n  {\"type\": \"guess\", \"summary\": \"b\", \"color\": \"red\"},\n  {\"id\": \"x\", \"type\": \"error\"}\n]\n")
	tools := write("tools.json", "[\n  {\"name\": \"ls\"},\n  {\"name\": \"ls\", \"parameters\": [1]},\n  {\"description\": \"d\"}\n]\n")
	_, err := assemble(t, nil, preset.Args{agent.InputRole: "executor", "agent-state": state, "agent-subtask": sub, "agent-memory": memory, "agent-tools": tools})
	want := []string{
		memory + `:3:4: memory entry 2: type "guess": use decision, error, tool_result, discovery, artifact or context`,
		memory + `:3:37: memory entry 2: unknown key "color": use id, type, summary, detail, tags, relevance_to, subtask and score`,
		memory + `:4:3: memory entry 3 has no summary: add one`,
		tools + `:3:4: tool 2: the name "ls" is taken by tool 1: names are unique`,
		tools + `:3:32: tool 2 parameters: write a JSON Schema object`,
		tools + `:4:3: tool 3 has no name: add one`,
	}
	diagtest.CheckProblems(t, "files", err, want)

	bad := write("bad.yaml", "id: s\nmodel_tier: high\n")
	_, err = assemble(t, nil, preset.Args{agent.InputRole: "verifier", "agent-subtask": bad, "agent-result": filepath.Join(dir, "missing.txt")})
	diagtest.CheckProblems(t, "verifier", err, []string{
		bad + ":2:13: subtask model_tier: write a whole number",
		filepath.Join(dir, "missing.txt") + ": cannot read it: no such file or directory",
	})
	_, err = assemble(t, nil, preset.Args{agent.InputRole: "verifier", "agent-subtask": write("s2.yaml", "id: s\n"), "agent-result": state})
	diagtest.CheckProblems(t, "verifier subtask", err, []string{filepath.Join(dir, "s2.yaml") + ":1:1: the subtask has no description and acceptance_criteria: the verifier shows them"})
	_, err = assemble(t, nil, preset.Args{agent.InputRole: "extractor", "agent-subtask": write("s3.yaml", "description: d\n"), "agent-model-output": write("out.txt", "ok \xff\n")})
	diagtest.CheckProblems(t, "extractor", err, []string{
		filepath.Join(dir, "out.txt") + ":1:4: invalid UTF-8 at byte offset 3 (line 1)",
		filepath.Join(dir, "s3.yaml") + ":1:1: the subtask has no id: add \"id\"",
	})
}

// TestCatalogTemplates: a catalog's agent/templates files replace the
// defaults, and compile (Units) reports what is wrong with them.
func TestCatalogTemplates(t *testing.T) {
	fsys := fstest.MapFS{
		"tessera.yaml":                     {Data: []byte("tasks: tasks\nworkflows: workflows\n")},
		"tasks/T.txt":                      {Data: []byte("hi")},
		"workflows/w.json":                 {Data: []byte(`{"nodes": []}`)},
		"agent/templates/planner.yaml":     {Data: []byte("role: Plan briefly.\ninstructions: 'GOAL: {goal}'\nconstraints: '- Be brief.'\n")},
		"agent/templates/constraints.yaml": {Data: []byte("none: '- None.'\napply: {planner: [], executor: [none], replanner: [], extractor: [], verifier: []}\n")},
	}
	c, err := catalog.OpenFS(context.Background(), fsys, presets.Default().Sections()...)
	if err != nil {
		t.Fatal(err)
	}
	res, err := assemble(t, c, preset.Args{agent.InputRole: "planner", "agent-goal": "Ship it."})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Plan briefly.\n\n---\n\nGOAL: Ship it.\n\n---\n\n- Be brief."; res.Prompt.Text != want {
		t.Errorf("catalog planner:\n%s\nwant:\n%s", res.Prompt.Text, want)
	}
	env, _ := engine.Env(c)
	if units, err := agent.New().Units(context.Background(), env); err != nil || units != nil {
		t.Errorf("Units of a valid catalog: %v, %v", units, err)
	}
	fsys["agent/templates/verifier.yaml"] = &fstest.MapFile{Data: []byte("role: r\ninstructions: '{result'\n")}
	c, _ = catalog.OpenFS(context.Background(), fsys, presets.Default().Sections()...)
	env, _ = engine.Env(c)
	_, err = agent.New().Units(context.Background(), env)
	diagtest.CheckProblems(t, "Units", err, []string{
		`agent/templates/verifier.yaml:1:1: missing key "constraints"`,
		`agent/templates/verifier.yaml:2:16: key "instructions": a single '{'`,
	})
	if _, err := assemble(t, c, preset.Args{agent.InputRole: "planner", "agent-goal": "g"}); err != nil {
		t.Errorf("a broken verifier stops the planner: %v", err)
	}
}

// TestRecord: the record holds the role's template and library texts and
// the inputs, redacted; the secret is counted, never kept.
func TestRecord(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.txt")
	secret := "sk-proj-" + strings.Repeat("A1b2C3d4", 6)
	if err := os.WriteFile(out, []byte("Set OPENAI_API_KEY="+secret+" and ran {goal}.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := preset.Args{agent.InputRole: "extractor", "agent-subtask": ex + "subtask.yaml", "agent-model-output": out}
	res, err := assemble(t, nil, args)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Prompt.Text, secret) || !strings.Contains(res.Prompt.Text, "[REDACTED:") || !strings.Contains(res.Prompt.Text, "ran {goal}.") {
		t.Errorf("prompt:\n%s", res.Prompt.Text)
	}
	data, err := res.Record.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), secret) || res.Record.Redactions["openai-key"] != 1 {
		t.Errorf("record keeps the secret or does not count it: %v", res.Record.Redactions)
	}
	var rec struct {
		Version  int
		Template struct{ Path, Text string }
		Library  struct{ Path, Text string }
		Input    agent.Input
	}
	if err := json.Unmarshal(res.Record.Inputs, &rec); err != nil {
		t.Fatal(err)
	}
	def, _ := agent.DefaultFile("extractor.yaml")
	if rec.Version != 1 || rec.Template.Path != "defaults/extractor.yaml" || rec.Template.Text != string(def) || rec.Library.Path != "defaults/constraints.yaml" || rec.Input.Role != agent.Extractor || rec.Input.Subtask.ID != "add-type-hints" {
		t.Errorf("record: %+v", rec)
	}
	for _, bad := range []string{``, `{"version": 2, "input": {"role": "planner"}}`, `{"version": 1}`, `{`,
		`{"version": 1, "template": {"path": "t", "text": "role: ["}, "input": {"role": "planner", "goal": "g"}}`} {
		if _, err := agent.New().Rebuild(context.Background(), nil, &audit.Record{Inputs: json.RawMessage(bad)}); err == nil {
			t.Errorf("Rebuild(%s) worked", bad)
		}
	}
}

// TestOutputSchemas: the planner and replanner ask for a plan, the
// verifier for a verdict, in a form strict modes accept.
func TestOutputSchemas(t *testing.T) {
	for r, want := range map[agent.Role]string{agent.Planner: "plan", agent.Replanner: "plan", agent.Verifier: "verdict", agent.Executor: "", agent.Extractor: ""} {
		l, err := agent.Build(nil, exampleInput(t, r))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case want == "" && l.Output != nil:
			t.Errorf("%s asks for %s", r, l.Output.Name)
		case want != "" && (l.Output == nil || l.Output.Name != want):
			t.Errorf("%s output %+v, want %s", r, l.Output, want)
		case want != "":
			if v := schema.CheckStrict(l.Output.Schema); len(v) > 0 {
				t.Errorf("%s schema is not strict: %v", r, v)
			}
		}
	}
}
