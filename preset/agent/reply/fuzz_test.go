package reply

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/internal/diagtest"
)

// FuzzValidatePlan checks the plan reader and validator on any reply: no
// panic; every problem names the reply and a line inside it; a plan
// accepted is valid by ValidatePlan, has 3 to 15 subtasks with unique
// ids, and reads back the same from its own JSON.
//
// Its seeds are small: the fuzzer minimizes each new input it finds
// interesting by trying to remove every run of its bytes, so a seed of a
// few kilobytes (the example plans) kept it minimizing for its whole
// minutes, at a few execs a second. The example plans and replies are
// read by the acceptance tests.
func FuzzValidatePlan(f *testing.F) {
	sub := func(id, deps string, tier int) string {
		return fmt.Sprintf(`{"id":%q,"description":"d","depends_on":[%s],"model_tier":%d,"verification_tier":1,"is_critical_path":true,"acceptance_criteria":"c"}`, id, deps, tier)
	}
	f.Add([]byte(`{"subtasks":[` + sub("a", "", 1) + "," + sub("b", `"a"`, 2) + "," + sub("c", `"b"`, 3) + "]}"))
	f.Add([]byte("Here is the plan:\n```json\n{\"subtasks\":[" + sub("x", `"z"`, 4) + "," + sub("x", `"x"`, 0) + "]}\n```"))
	f.Add([]byte(`{"Subtasks":[{"ID":"a","status":"completed","tools":["t",1]}],"subtasks":2}`))
	for _, s := range []string{"", "{}", `{"subtasks": []}`, `{"subtasks": [{"id": "a", "depends_on": ["a"]}]}`, "```json\n{\"subtasks\": [1, \"x\", null]}\n```", `{"subtasks": [{"id": 1e999}]}`, "[[[[{"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePlan("p", data)
		for _, line := range diagtest.Problems(err) {
			if !strings.HasPrefix(line, "p:") && !strings.HasPrefix(line, "p ") {
				t.Fatalf("problem does not name the reply: %q", line)
			}
		}
		if err != nil {
			if list, ok := err.(interface{ Error() string }); ok && list == nil {
				t.Fatal("typed nil error")
			}
			diagtest.CheckPlaces(t, "p", data, err)
			return
		}
		if n := len(p.Subtasks); n < MinSubtasks || n > MaxSubtasks {
			t.Fatalf("accepted a plan of %d subtasks", n)
		}
		seen := map[string]bool{}
		for _, s := range p.Subtasks {
			if seen[s.ID] || !kebab.MatchString(s.ID) {
				t.Fatalf("accepted id %q", s.ID)
			}
			seen[s.ID] = true
		}
		if err := ValidatePlan(p); err != nil {
			t.Fatalf("accepted, yet ValidatePlan says: %v", err)
		}
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := ParsePlan("p", again)
		if err != nil || len(q.Subtasks) != len(p.Subtasks) {
			t.Fatalf("the accepted plan does not read back: %v\n%s", err, again)
		}
		for i := range q.Subtasks {
			a, b := p.Subtasks[i], q.Subtasks[i]
			a.at, b.at = nil, nil
			if a.ID != b.ID || a.Description != b.Description || a.ModelTier != b.ModelTier || !sameSet(a.DependsOn, b.DependsOn) {
				t.Fatalf("subtask %d reads back as %+v, was %+v", i, b, a)
			}
		}
	})
}
