package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/internal/diagtest"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/agent"
)

// TestInputColumns: every problem in an input file is reported at the
// line and column (in bytes, as editors count them) of the key or value
// it is about, in YAML and in JSON alike; a misspelt key gets the key
// meant.
func TestInputColumns(t *testing.T) {
	ignore := func(f func(string, []byte) (any, error)) func(string, []byte) error {
		return func(p string, d []byte) error { _, err := f(p, d); return err }
	}
	subtask := ignore(func(p string, d []byte) (any, error) { return agent.ParseSubtask(p, d) })
	memory := ignore(func(p string, d []byte) (any, error) { return agent.ParseMemory(p, d) })
	notes := ignore(func(p string, d []byte) (any, error) { return agent.ParseNotes(p, d) })
	tools := ignore(func(p string, d []byte) (any, error) { return agent.ParseTools(p, d) })
	calls := ignore(func(p string, d []byte) (any, error) { return agent.ParseToolCalls(p, d) })
	state := ignore(func(p string, d []byte) (any, error) { return agent.ParseTaskState(p, d) })
	for _, tc := range []struct {
		name  string
		parse func(string, []byte) error
		text  string
		want  []string
	}{
		{"subtask", subtask, "id: s\ndescription: Résumé\ndepends_on: [a, [b]]\nmodel_tier: two\nis_critical_path: yes\nacceptance_criterion: c\n", []string{
			`f:3:17: subtask depends_on: write text`,
			`f:4:13: subtask model_tier: write a whole number`,
			`f:5:19: subtask is_critical_path: write true or false`,
			`f:6:1: subtask: unknown key "acceptance_criterion": did you mean "acceptance_criteria"? use id, description, depends_on, model_tier, verification_tier, is_critical_path, acceptance_criteria, status and tools`,
		}},
		{"subtask not a mapping", subtask, "# a subtask\n- id: s\n", []string{
			`f:2:1: subtask: write a mapping (an object) with the keys id, description`,
		}},
		{"subtask written twice", subtask, "id: s\ndescription: d\n  # again\nid: t\n", []string{
			`f:4:1: key "id" is repeated (first at line 1): keep one`,
		}},
		{"memory in JSON, after wide characters", memory, "[\n  {\"summary\": \"Ça marche\", \"type\": \"hunch\", \"tags\": {}},\n  {\"summary\": \"ü\", \"typ\": \"error\", \"score\": .inf}\n]\n", []string{
			`f:2:29: memory entry 1: type "hunch": use decision, error, tool_result, discovery, artifact or context`,
			`f:2:54: memory entry 1 tags: write a list, or one comma-separated string`,
			`f:3:3: memory entry 2 has no type: add one`,
			`f:3:21: memory entry 2: unknown key "typ": did you mean "type"? use id`,
			`f:3:46: memory entry 2 score: write a finite number`,
		}},
		{"memory ids", memory, "- {id: a, type: error, summary: s}\n- {id: a, type: error, summary: t}\n- 3\n", []string{
			`f:2:4: memory entry 2: id "a" is used by entry 1 too: ids are unique`,
			`f:3:3: memory entry 3: write a mapping (an object) with the keys id, type`,
		}},
		{"memory not a list", memory, "type: error\n", []string{`f:1:1: write a list of memory entries ([] for none)`}},
		{"notes", notes, "- A plain note.\n- [x]\n- summary: s\n  type: guess\n- {}\n", []string{
			`f:2:3: entry 2: write a string, or a mapping (an object) with the keys id, type`,
			`f:4:3: entry 3: type "guess": use decision`,
			`f:5:3: entry 4 has no summary: add one`,
		}},
		{"tools", tools, "- name: ls\n  parameters: {type: object, type: object}\n- name: ls\n  description: [d]\n- parameters: [1]\n", []string{
			`f:2:30: key "[0].parameters.type" is repeated (first at line 2): keep one`,
		}},
		{"tools, one problem each", tools, "- name: ls\n- name: ls\n  description: [d]\n- parameters: [1]\n", []string{
			`f:2:3: tool 2: the name "ls" is taken by tool 1: names are unique`,
			`f:3:16: tool 2 description: write text`,
			`f:4:3: tool 3 has no name: add one`,
			`f:4:15: tool 3 parameters: write a JSON Schema object`,
		}},
		{"tool calls", calls, "- name: ls\n  arguments: {path: .}\n  result: [1, {a: b}]\n- arguments: *x\n", []string{
			`f:4:14: not valid YAML: unknown anchor 'x' referenced`,
		}},
		{"tool calls, one problem each", calls, "- name: ls\n  resul: x\n- error: e\n", []string{
			`f:2:3: tool call 1: unknown key "resul": did you mean "result"? use name, arguments, result and error`,
			`f:3:3: tool call 2 has no name: add the tool's name`,
		}},
		{"task state", state, "goal: g\nnotes:\n  a: 1\n  a: 2\n", []string{`f:4:3: key "notes.a" is repeated (first at line 3): keep one`}},
		{"task state not a mapping", state, "\n\n  [a, b]\n", []string{`f:3:3: the task state is a YAML mapping`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			diagtest.CheckProblems(t, tc.name, tc.parse("f", []byte(tc.text)), tc.want)
		})
	}
}

// TestSubtaskToolsColumns: a subtask that names a tool the tools file
// lacks is reported at its tools key, with the tools file beside it.
func TestSubtaskToolsColumns(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sub := write("sub.yaml", "id: s\ndescription: d\nacceptance_criteria: c\n# shown\ntools: [ls, grep, ls]\n")
	tools := write("tools.json", `[{"name": "ls"}]`)
	_, err := assemble(t, nil, preset.Args{agent.InputRole: "executor", "agent-state": write("state.yaml", "goal: g\n"), "agent-subtask": sub, "agent-tools": tools})
	want := sub + `:5:1: subtask tools: "grep" is not a tool of the tools file: define it there, or remove it from the subtask's tools [tools in ` + tools + `]`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	sub = write("sub.yaml", "id: s\ndescription: d\nacceptance_criteria: c\ntools: grep, find\n")
	_, err = assemble(t, nil, preset.Args{agent.InputRole: "executor", "agent-state": write("state.yaml", "goal: g\n"), "agent-subtask": sub, "agent-tools": tools})
	if err == nil || !strings.HasPrefix(err.Error(), sub+`:4:1: subtask tools: "grep" and "find" are not tools of the tools file: define them there`) {
		t.Errorf("two tools: %v", err)
	}
}
