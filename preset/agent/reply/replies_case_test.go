package reply_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/preset/agent/reply"
)

// TestReplyKeysAnyCase: every kind of reply reads its keys in any case,
// as a model may capitalise them.
func TestReplyKeysAnyCase(t *testing.T) {
	rep := reply.ParseExecutorReply(`{"Status": "BLOCKED", "Reason": "no network"}`)
	if !rep.Blocked || rep.Reason != "no network" {
		t.Errorf("executor reply %+v, want blocked for no network", rep)
	}
	if rep := reply.ParseExecutorReply(`{"STATUS": "blocked"}`); !rep.Blocked {
		t.Errorf("STATUS: %+v, want blocked", rep)
	}
	if rep := reply.ParseExecutorReply(`{"Status": "done"}`); rep.Blocked {
		t.Errorf("done: %+v, want not blocked", rep)
	}

	v, err := reply.ParseVerdict("v.json", []byte(`{"Passed": false, "REASON": "Tests fail.", "Issues": ["test_slug fails"]}`))
	if err != nil || v.Passed || v.Reason != "Tests fail." || !slices.Equal(v.Issues, []string{"test_slug fails"}) {
		t.Errorf("verdict %+v, %v", v, err)
	}

	es, err := reply.ParseExtraction("e.json", []byte(`[{"Type": "Decision", "Summary": "Use pytest.", "Tags": "a, b", "Relevance_To": ["s"]}]`))
	if err != nil || len(es) != 1 || es[0].Type != "decision" || es[0].Summary != "Use pytest." || !slices.Equal(es[0].Tags, []string{"a", "b"}) || !slices.Equal(es[0].RelevanceTo, []string{"s"}) {
		t.Errorf("extraction %+v, %v", es, err)
	}

	plan := `{"Subtasks": [
 {"ID": "a", "Description": "A.", "Depends_On": [], "Model_Tier": 1, "Verification_Tier": 1, "Is_Critical_Path": true, "Acceptance_Criteria": "A done.", "Status": "completed"},
 {"id": "b", "description": "B.", "depends_on": ["a"], "model_tier": 2, "verification_tier": 1, "is_critical_path": true, "acceptance_criteria": "B done."},
 {"id": "c", "description": "C.", "depends_on": ["b"], "model_tier": 3, "verification_tier": 2, "is_critical_path": false, "acceptance_criteria": "C done."}
]}`
	p, err := reply.ParsePlan("plan.json", []byte(plan))
	if err != nil {
		t.Fatalf("plan with capitalised keys: %v", err)
	}
	if s := p.Subtasks[0]; s.ID != "a" || s.ModelTier != 1 || s.AcceptanceCriteria != "A done." || s.Status != "completed" {
		t.Errorf("subtask read as %+v", s)
	}
	if err := reply.ValidateReplan(p, p); err != nil {
		t.Errorf("replan: %v", err)
	}
}

// TestReplyKeyRepeatedInAnyCase: a key written twice in different cases
// is one key written twice.
func TestReplyKeyRepeatedInAnyCase(t *testing.T) {
	_, err := reply.ParseVerdict("v.json", []byte(`{"passed": true, "Passed": false, "reason": "ok"}`))
	if err == nil || !strings.Contains(err.Error(), `v.json:1:18: the verdict: "Passed" is "passed" written again (keys match in any case): keep one`) {
		t.Errorf("repeated key: %v", err)
	}
}

// TestVerdictNeedsReason: a verdict with an empty reason is refused, at
// the reason, saying what to write.
func TestVerdictNeedsReason(t *testing.T) {
	for _, text := range []string{`{"passed": true, "reason": ""}`, `{"passed": true, "reason": "  "}`} {
		_, err := reply.ParseVerdict("v.json", []byte(text))
		if err == nil || !strings.Contains(err.Error(), `v.json:1:28: the verdict's "reason" is empty: say why it passed or failed, citing the evidence`) {
			t.Errorf("%s: %v", text, err)
		}
	}
}
