package agent_test

import (
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/preset/agent"
)

// TestInputJSONSchema: a role gives the schema of each file it reads,
// by flag name with or without the prefix, and none for an input it
// does not read or one without a schema of its own.
func TestInputJSONSchema(t *testing.T) {
	s, file := agent.Executor.InputJSONSchema("subtask")
	if file != "agent-subtask.schema.json" || !strings.Contains(string(s), `"acceptance_criteria"`) {
		t.Errorf("executor subtask: %s %.80s", file, s)
	}
	if s2, _ := agent.Executor.InputJSONSchema("agent-subtask"); string(s2) != string(s) {
		t.Error("the prefixed name gives another schema")
	}
	if _, file := agent.Replanner.InputJSONSchema("errors"); file != "agent-notes.schema.json" {
		t.Errorf("replanner errors: %q", file)
	}
	for _, c := range []struct {
		r     agent.Role
		input string
	}{{agent.Planner, "subtask"}, {agent.Executor, "state"}, {agent.Verifier, "nothing"}, {"", "memory"}} {
		if s, file := c.r.InputJSONSchema(c.input); s != nil || file != "" {
			t.Errorf("%s %s: %s", c.r, c.input, file)
		}
	}
}
