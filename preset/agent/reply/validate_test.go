package reply_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/internal/diagtest"
	"github.com/tessera-dev/tessera/preset/agent/reply"
)

// subtaskJSON writes one subtask of a plan reply.
func subtaskJSON(id string, deps ...string) string {
	d, _ := json.Marshal(deps)
	if deps == nil {
		d = []byte("[]")
	}
	return fmt.Sprintf(`{"id": %q, "description": "Do %s.", "depends_on": %s, "model_tier": 1, "verification_tier": 1, "is_critical_path": true, "acceptance_criteria": "%s is done."}`, id, id, d, id)
}

func planJSON(subtasks ...string) string {
	return "{\"subtasks\": [\n  " + strings.Join(subtasks, ",\n  ") + "\n]}"
}

func TestParsePlanValid(t *testing.T) {
	p, err := reply.ParsePlan("plan.txt", read(t, "replies/plan.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range p.Subtasks {
		ids = append(ids, s.ID)
	}
	if !slices.Equal(ids, []string{"inspect-package", "add-type-hints", "run-mypy"}) {
		t.Errorf("ids %v", ids)
	}
	s := p.Subtask("add-type-hints")
	if s == nil || s.ModelTier != 2 || s.VerificationTier != 2 || !s.IsCriticalPath || !slices.Equal(s.DependsOn, []string{"inspect-package"}) || s.AcceptanceCriteria == "" {
		t.Errorf("add-type-hints: %+v", s)
	}
	if p.Subtask("nope") != nil {
		t.Error("Subtask(nope) found one")
	}
	if err := reply.ValidatePlan(p); err != nil {
		t.Errorf("ValidatePlan: %v", err)
	}
	// Unknown fields are the model's business; status and tools are read.
	p, err = reply.ParsePlan("p", []byte(planJSON(subtaskJSON("a"), subtaskJSON("b", "a"), strings.Replace(subtaskJSON("c", "b"), `"id"`, `"status": "pending", "tools": ["ls"], "notes": "x", "id"`, 1))))
	if err != nil || p.Subtasks[2].Status != "pending" || !slices.Equal(p.Subtasks[2].Tools, []string{"ls"}) {
		t.Errorf("extra fields: %v %+v", err, p)
	}
}

func TestParsePlanRules(t *testing.T) {
	three := []string{subtaskJSON("a"), subtaskJSON("b", "a"), subtaskJSON("c", "b")}
	many := []string{}
	for i := range 16 {
		many = append(many, subtaskJSON(fmt.Sprintf("s%d", i)))
	}
	for _, tc := range []struct {
		name string
		text string
		want []string
	}{
		{"two subtasks", planJSON(three[:2]...), []string{"p:1:2: the plan has 2 subtasks: make it 3 to 15"}},
		{"sixteen subtasks", planJSON(many...), []string{"p:1:2: the plan has 16 subtasks: make it 3 to 15"}},
		{"duplicate id", planJSON(three[0], three[1], subtaskJSON("a")), []string{`p:4:10: subtask "a": the id is used by subtask 1 too: ids are unique`}},
		{"not kebab", planJSON(three[0], three[1], subtaskJSON("Run_Tests")), []string{`p:4:10: subtask "Run_Tests": the id is not kebab-case`}},
		{"double hyphen", planJSON(three[0], three[1], subtaskJSON("run--tests")), []string{`p:4:10: subtask "run--tests": the id is not kebab-case`}},
		{"too long", planJSON(three[0], three[1], subtaskJSON(strings.Repeat("a", 65))), []string{`p:4:10: subtask "aaaa`}},
		{"empty id", planJSON(three[0], three[1], subtaskJSON("")), []string{`p:4:10: subtask 3 has an empty id`}},
		{"unknown dependency", planJSON(three[0], three[1], subtaskJSON("c", "b", "z")), []string{`p:4:58: subtask "c": depends_on names "z", which is not a subtask of the plan`}},
		{"self dependency", planJSON(three[0], three[1], subtaskJSON("c", "c")), []string{`p:4:54: subtask "c" depends on itself: remove "c" from depends_on`}},
		{"cycle", planJSON(subtaskJSON("a", "c"), subtaskJSON("b", "a"), subtaskJSON("c", "b")), []string{`p:2:53: subtask "a": the dependencies form a cycle, a → c → b → a: remove one of them`}},
		{"two cycles", planJSON(subtaskJSON("a", "b"), subtaskJSON("b", "a"), subtaskJSON("c", "d"), subtaskJSON("d", "c")),
			[]string{`p:2:53: subtask "a": the dependencies form a cycle, a → b → a`, `p:4:53: subtask "c": the dependencies form a cycle, c → d → c`}},
		{"model tier", planJSON(three[0], three[1], strings.Replace(three[2], `"model_tier": 1`, `"model_tier": 4`, 1)), []string{`p:4:74: subtask "c": model_tier is 4: use 1 (simple file operations), 2 (code generation) or 3 (complex reasoning)`}},
		{"verification tier", planJSON(three[0], three[1], strings.Replace(three[2], `"verification_tier": 1`, `"verification_tier": 0`, 1)), []string{`p:4:98: subtask "c": verification_tier is 0: use 1 (file checks) or 2 (review by a model)`}},
		{"tier not whole", planJSON(three[0], three[1], strings.Replace(three[2], `"model_tier": 1`, `"model_tier": 1.5`, 1)), []string{`p:4:74: subtask "c": model_tier is a number: write a whole number`}},
		{"tier a string", planJSON(three[0], three[1], strings.Replace(three[2], `"model_tier": 1`, `"model_tier": "1"`, 1)), []string{`p:4:74: subtask "c": model_tier is a string: write a whole number`}},
		{"missing fields", planJSON(three[0], three[1], `{"id": "c", "description": "d"}`),
			[]string{`p:4:3: subtask "c" has no acceptance_criteria: add it`, `p:4:3: subtask "c" has no depends_on: add it`, `p:4:3: subtask "c" has no is_critical_path: add it`, `p:4:3: subtask "c" has no model_tier: add it`, `p:4:3: subtask "c" has no verification_tier: add it`}},
		{"empty texts", planJSON(three[0], three[1], strings.NewReplacer(`"Do c."`, `" "`, `"c is done."`, `""`).Replace(three[2])),
			[]string{`p:4:30: subtask "c": the description is empty`, `p:4:146: subtask "c": the acceptance_criteria are empty`}},
		{"wrong types", planJSON(three[0], three[1], `{"id": 3, "description": "d", "depends_on": "a", "model_tier": 1, "verification_tier": 1, "is_critical_path": "yes", "acceptance_criteria": "c"}`),
			[]string{`p:4:10: subtask 3: id is a number: write a string`, `p:4:47: subtask 3: depends_on is a string: write an array of subtask ids ([] for none)`, `p:4:113: subtask 3: is_critical_path is a string: write true or false`}},
		{"subtask not an object", planJSON(three[0], three[1], `"c"`), []string{`p:4:3: subtask 3 is a string: write an object`}},
		{"repeated key", planJSON(three[0], three[1], strings.Replace(three[2], `"model_tier": 1`, `"model_tier": 1, "model_tier": 2`, 1)), []string{`p:4:77: subtask "c": "model_tier" is written twice: keep one`}},
		{"no subtasks", `{"steps": []}`, []string{`p:1:1: the plan has no "subtasks"`}},
		{"subtasks not an array", `{"subtasks": {}}`, []string{`p:1:14: "subtasks" is an object: write an array of subtasks`}},
		{"no JSON", "I will first read the files.", []string{`p: the reply holds no JSON object: the plan is one JSON object, {"subtasks": [...]}`}},
		{"empty reply", " \n", []string{`p: the reply is empty`}},
		{"invalid JSON", "Plan:\n```json\n{\"subtasks\": [\n  {\"id\": \"a\",}\n]}\n```\n", []string{`p:4:14: not valid JSON: invalid character '}'`}},
		{"every problem", planJSON(subtaskJSON("A"), subtaskJSON("b", "x")),
			[]string{"p:1:2: the plan has 2 subtasks", `p:2:10: subtask "A": the id is not kebab-case`, `p:3:54: subtask "b": depends_on names "x"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := reply.ParsePlan("p", []byte(tc.text))
			diagtest.CheckProblems(t, tc.name, err, tc.want)
		})
	}
}

func TestValidatePlanGo(t *testing.T) {
	p := &reply.Plan{Subtasks: []reply.Subtask{
		{ID: "a", Description: "d", AcceptanceCriteria: "c", ModelTier: 1, VerificationTier: 1},
		{ID: "b", Description: "d", AcceptanceCriteria: "c", ModelTier: 3, VerificationTier: 2, DependsOn: []string{"a"}},
		{ID: "c", Description: "d", AcceptanceCriteria: "c", ModelTier: 2, VerificationTier: 1, DependsOn: []string{"a", "b"}},
	}}
	if err := reply.ValidatePlan(p); err != nil {
		t.Fatalf("valid plan: %v", err)
	}
	p.Subtasks[0].DependsOn = []string{"c"}
	p.Subtasks[2].ModelTier = 0
	diagtest.CheckProblems(t, "Go plan", reply.ValidatePlan(p), []string{
		`subtask "a": the dependencies form a cycle, a → c → a: remove one of them`,
		`subtask "a": the dependencies form a cycle, a → c → b → a: remove one of them`,
		`subtask "c": model_tier is 0`,
	})
}

func TestValidateReplan(t *testing.T) {
	orig, err := reply.ParsePlan("plan.json", read(t, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	rev, err := reply.ParsePlan("replan.json", read(t, "replies/replan.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := reply.ValidateReplan(orig, rev); err != nil {
		t.Errorf("a replan that keeps the completed subtasks: %v", err)
	}
	drops, err := reply.ParsePlan("drops.json", read(t, "replies/replan-drops.json"))
	if err != nil {
		t.Fatal(err)
	}
	diagtest.CheckProblems(t, "drops", reply.ValidateReplan(orig, drops), []string{
		`drops.json:2:3: subtask "add-mypy-config" is completed, but the revised plan drops it: keep it, unchanged [original at plan.json:13:5]`,
		`drops.json:3:5: subtask "inspect-package" is completed, but the revised plan changes its description: keep it as it was [original at plan.json:3:5]`,
	})
	// --completed adds to the statuses; an id the plan lacks is named.
	diagtest.CheckProblems(t, "completed", reply.ValidateReplan(orig, drops, "run-tests", "nope"), []string{
		`drops.json:2:3: subtask "add-mypy-config" is completed, but the revised plan drops it`,
		`drops.json:2:3: subtask "run-tests" is completed, but the revised plan drops it: keep it, unchanged [original at plan.json:43:5]`,
		`drops.json:3:5: subtask "inspect-package" is completed`,
		`plan.json:2:3: subtask "nope" is given as completed, but the original plan has no such subtask`,
	})
	// Every field of a completed subtask is compared; dependencies in
	// any order, status only when it says something else.
	changed := *rev
	changed.Subtasks = slices.Clone(rev.Subtasks)
	s := &changed.Subtasks[1]
	s.DependsOn = []string{"inspect-package", "inspect-package"}
	if err := reply.ValidateReplan(orig, &changed); err != nil {
		t.Errorf("same dependencies: %v", err)
	}
	s.ModelTier, s.VerificationTier, s.IsCriticalPath, s.AcceptanceCriteria, s.Status = 2, 2, true, "other", "pending"
	s.DependsOn = nil
	diagtest.CheckProblems(t, "changed", reply.ValidateReplan(orig, &changed), []string{
		`replan.json:4:5: subtask "add-mypy-config" is completed, but the revised plan changes its depends_on, model_tier, verification_tier, is_critical_path, acceptance_criteria and status: keep it as it was [original at plan.json:13:5]`,
	})
	// The revised plan is a plan: its own problems are reported too.
	bad := &reply.Plan{Subtasks: slices.Clone(rev.Subtasks[:2])}
	diagtest.CheckProblems(t, "short", reply.ValidateReplan(orig, bad), []string{"the plan has 2 subtasks"})
}

func TestParseExtraction(t *testing.T) {
	entries, err := reply.ParseExtraction("x", read(t, "replies/extract.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("%d entries", len(entries))
	}
	e := entries[0]
	if e.Type != "artifact" || !slices.Equal(e.Tags, []string{"slugify", "annotations", "typing"}) || !slices.Equal(e.RelevanceTo, []string{"run-mypy", "run-tests"}) || e.Detail == "" {
		t.Errorf("entry 1: %+v", e)
	}
	for _, empty := range []string{"[]", "Nothing worth keeping: []", "```json\n[]\n```", " [ ] "} {
		entries, err := reply.ParseExtraction("x", []byte(empty))
		if err != nil || entries == nil || len(entries) != 0 {
			t.Errorf("%q: %v, %v; want no entries, no error", empty, entries, err)
		}
	}
	entries, err = reply.ParseExtraction("x", []byte(`[{"type": " Decision ", "summary": "  Chose A.  ", "tags": ["a", " b ", ""], "relevance_to": " s1 ,, s2 "}]`))
	if err != nil || entries[0].Type != "decision" || entries[0].Summary != "Chose A." || !slices.Equal(entries[0].Tags, []string{"a", "b"}) || !slices.Equal(entries[0].RelevanceTo, []string{"s1", "s2"}) {
		t.Errorf("trimmed: %+v, %v", entries, err)
	}
	long := strings.Repeat("é", reply.MaxSummary)
	if _, err := reply.ParseExtraction("x", []byte(`[{"type": "context", "summary": "`+long+`"}]`)); err != nil {
		t.Errorf("a summary of exactly %d characters: %v", reply.MaxSummary, err)
	}
	entries, err = reply.ParseExtraction("bad.json", read(t, "replies/extract-bad.json"))
	diagtest.CheckProblems(t, "bad", err, []string{
		`bad.json:2:12: entry 1: type "note": use decision, error, tool_result, discovery, artifact or context`,
		`bad.json:3:35: entry 2: the summary is 175 characters, over 150: shorten it, and put the rest in detail`,
		`bad.json:4:3: entry 3 has no summary: add it`,
	})
	if len(entries) != 0 {
		t.Errorf("bad entries kept: %+v", entries)
	}
	for _, tc := range []struct{ text, want string }{
		{`{"type": "x"}`, `x: the reply holds no JSON array`},
		{`["a"]`, `x:1:2: entry 1 is a string: write an object with type and summary`},
		{`[{"summary": "s"}]`, `x:1:2: entry 1 has no type: add it`},
		{`[{"type": 1, "summary": "s"}]`, `x:1:11: entry 1: type is a number: write a string`},
		{`[{"type": "error", "summary": ""}]`, `x:1:31: entry 1: the summary is empty`},
		{`[{"type": "error", "summary": "s", "tags": 3}]`, `x:1:44: entry 1: tags is a number: write a comma-separated string or an array of strings`},
		{`[{"type": "error", "summary": "s", "tags": [3]}]`, `x:1:45: entry 1: an item of tags is a number: write strings`},
		{`[{"type": "error", "summary": "s", "detail": {}}]`, `x:1:46: entry 1: detail is an object: write a string`},
	} {
		_, err := reply.ParseExtraction("x", []byte(tc.text))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %s", tc.text, err, tc.want)
		}
	}
}

func TestParseExecutorReply(t *testing.T) {
	for _, tc := range []struct {
		text string
		want reply.ExecutorReply
	}{
		{string(read(t, "replies/blocked.txt")), reply.ExecutorReply{Blocked: true, Reason: "mypy is not installed and the tools cannot install packages."}},
		{`{"status": "blocked", "reason": "no access"}`, reply.ExecutorReply{Blocked: true, Reason: "no access"}},
		{"```json\n{\"status\": \"BLOCKED\", \"reason\": {\"missing\": \"x\"}}\n```", reply.ExecutorReply{Blocked: true, Reason: `{"missing":"x"}`}},
		{`{"status": "blocked"}`, reply.ExecutorReply{Blocked: true}},
		{"Added the hints. Tests pass.\n", reply.ExecutorReply{Summary: "Added the hints. Tests pass."}},
		{`Done; wrote {"a": 1} to config.json.`, reply.ExecutorReply{Summary: `Done; wrote {"a": 1} to config.json.`}},
		{`{"status": "done"}`, reply.ExecutorReply{Summary: `{"status": "done"}`}},
		{`{"status": "blocked", "reason": "x"`, reply.ExecutorReply{Summary: `{"status": "blocked", "reason": "x"`}},
	} {
		if got := reply.ParseExecutorReply(tc.text); got != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.text, got, tc.want)
		}
	}
}

func TestParseVerdict(t *testing.T) {
	v, err := reply.ParseVerdict("v", read(t, "replies/verdict.json"))
	if err != nil || !v.Passed || v.Reason == "" || len(v.Issues) != 0 {
		t.Errorf("verdict: %+v, %v", v, err)
	}
	v, err = reply.ParseVerdict("v", []byte("Verdict:\n{\"passed\": false, \"reason\": \"No test ran.\", \"issues\": \"pytest was not run\"}"))
	if err != nil || v.Passed || !slices.Equal(v.Issues, []string{"pytest was not run"}) {
		t.Errorf("one issue as a string: %+v, %v", v, err)
	}
	_, err = reply.ParseVerdict("v", []byte(`{"passed": "yes", "issues": [1]}`))
	diagtest.CheckProblems(t, "bad verdict", err, []string{
		`v:1:1: the verdict has no "reason": add one`,
		`v:1:12: "passed" is a string: write true or false`,
		`v:1:30: an item of "issues" is a number: write strings`,
	})
}

func TestExtractJSON(t *testing.T) {
	for _, tc := range []struct {
		reply string
		open  byte
		want  string // "" when none
	}{
		{`{"a": 1}`, '{', `{"a": 1}`},
		{"Sure!\n```json\n{\"a\": 1}\n```\nDone.", '{', `{"a": 1}`},
		{"```\n[1, 2]\n```", '[', `[1, 2]`},
		{"~~~json\n{\"a\": \"```\"}\n~~~", '{', `{"a": "` + "```" + `"}`},
		{"```python\nx = {1: 2}\n```\nThe plan: {\"a\": 1}", '{', `{"a": 1}`},
		{"```json\n{\"a\": 1,}\n```\n{\"b\": 2}", '{', `{"a": 1,}`},
		{"Use {braces} and then {\"a\": \"}\"}", '{', `{"a": "}"}`},
		{"{ not json } then {\"a\": [1, {\"b\": 2}]} and {\"c\": 3}", '{', `{"a": [1, {"b": 2}]}`},
		{"{ not json }", '{', `{ not json }`},
		{"{\"a\": [1}", '{', ""},
		{"no json here", '{', ""},
		{"[1, 2] then {\"a\": 1}", '[', `[1, 2]`},
		{"text [] text", '[', `[]`},
		{`{"a": "\"}"}`, '{', `{"a": "\"}"}`},
		{"```json", '{', ""},
		{`{"a": 1}`, 'x', ""},
	} {
		got, off, ok := reply.ExtractJSON([]byte(tc.reply), tc.open)
		if tc.want == "" {
			if ok {
				t.Errorf("ExtractJSON(%q) = %q, want none", tc.reply, got)
			}
			continue
		}
		if !ok || string(got) != tc.want {
			t.Errorf("ExtractJSON(%q) = %q, %v; want %q", tc.reply, got, ok, tc.want)
			continue
		}
		if tc.reply[off:off+len(got)] != string(got) {
			t.Errorf("ExtractJSON(%q): offset %d does not locate %q", tc.reply, off, got)
		}
	}
}

// ex is the example task's directory.
const ex = "../../../examples/agent/"

// read returns the example file name's bytes.
func read(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(ex + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
