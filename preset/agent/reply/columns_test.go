package reply_test

import (
	"testing"

	"github.com/tessera-dev/tessera/internal/diagtest"
	"github.com/tessera-dev/tessera/preset/agent/reply"
)

// TestReplyColumns: a problem in a reply is placed in the reply file,
// wherever the JSON sits in it: bare, after prose, in a fenced block;
// the column counts bytes, a byte-order mark and a carriage return
// included.
func TestReplyColumns(t *testing.T) {
	item := `{"id": "Ünïcode", "description": "d", "depends_on": ["a", "zz"], "model_tier": 7, "verification_tier": 1, "is_critical_path": true, "acceptance_criteria": "c"}`
	three := `{"subtasks": [{"id": "a", "description": "d", "depends_on": [], "model_tier": 1, "verification_tier": 1, "is_critical_path": true, "acceptance_criteria": "c"}, ` +
		`{"id": "b", "description": "d", "depends_on": [], "model_tier": 1, "verification_tier": 1, "is_critical_path": true, "acceptance_criteria": "c"}, ` + item + `]}`
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"bare", three, []string{
			`r:1:314: subtask "Ünïcode": the id is not kebab-case`,
			`r:1:367: subtask "Ünïcode": depends_on names "zz"`,
			`r:1:388: subtask "Ünïcode": model_tier is 7`,
		}},
		{"after prose", "Voilà le plan — trois étapes : " + three, []string{
			`r:1:349: subtask "Ünïcode": the id is not kebab-case`,
			`r:1:402: subtask "Ünïcode": depends_on names "zz"`,
			`r:1:423: subtask "Ünïcode": model_tier is 7`,
		}},
		{"fenced", "\ufeffPlan:\r\n\r\n```json\r\n{\"subtasks\": [\r\n  {\"id\": \"a\"},\r\n  " + item + "\r\n]}\r\n```\r\n", []string{
			`r:4:2: the plan has 2 subtasks: make it 3 to 15`,
			`r:5:3: subtask "a" has no acceptance_criteria: add it`,
			`r:5:3: subtask "a" has no depends_on: add it`,
			`r:5:3: subtask "a" has no description: add it`,
			`r:5:3: subtask "a" has no is_critical_path: add it`,
			`r:5:3: subtask "a" has no model_tier: add it`,
			`r:5:3: subtask "a" has no verification_tier: add it`,
			`r:6:10: subtask "Ünïcode": the id is not kebab-case`,
			`r:6:63: subtask "Ünïcode": depends_on names "zz"`,
			`r:6:84: subtask "Ünïcode": model_tier is 7`,
		}},
		{"syntax error in a fence", "One.\nTwo:\n~~~\n{\"subtasks\": [\n  {\"id\": \"a\",\n  ]}\n~~~\n", []string{
			`r:6:3: not valid JSON: invalid character ']' looking for beginning of object key string`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := reply.ParsePlan("r", []byte(tc.text))
			diagtest.CheckProblems(t, tc.name, err, tc.want)
		})
	}
	_, err := reply.ParseExtraction("x", []byte("Entries:\n\n```\n[\n  {\"type\": \"error\",\n   \"summary\": 5}\n]\n```\n"))
	diagtest.CheckProblems(t, "extraction", err, []string{`x:6:15: entry 1: summary is a number: write a string`})
	_, err = reply.ParseVerdict("v", []byte("Verdict — {\"passed\": \"nö\", \"reason\": \"r\", \"issues\": [\"a\", null]}"))
	diagtest.CheckProblems(t, "verdict", err, []string{`v:1:24: "passed" is a string: write true or false`, `v:1:62: an item of "issues" is null: write strings`})
}
