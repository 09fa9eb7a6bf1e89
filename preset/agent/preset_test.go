package agent_test

import (
	"testing"

	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/agent"
	"github.com/tessera-dev/tessera/preset/presettest"
)

// ex is the example task every role is built from.
const ex = "../../examples/agent/"

// exampleArgs are the example's inputs for each role.
func exampleArgs() map[agent.Role]preset.Args {
	return map[agent.Role]preset.Args{
		agent.Planner: {agent.InputRole: "planner", agent.InputGoal: "Add type hints to slugkit and check them with mypy",
			agent.InputWorkspace: ex + "workspace", agent.InputContext: "Python 3.10+; keep the public API."},
		agent.Executor: {agent.InputRole: "executor", agent.InputState: ex + "state.yaml", agent.InputSubtask: ex + "subtask.yaml",
			agent.InputMemory: ex + "memory.json", agent.InputTools: ex + "tools.json"},
		agent.Replanner: {agent.InputRole: "replanner", agent.InputGoal: "Add type hints to slugkit and check them with mypy",
			agent.InputState: ex + "state.yaml", agent.InputPlan: ex + "plan.json", agent.InputDiscoveries: ex + "discoveries.json", agent.InputErrors: ex + "errors.json"},
		agent.Extractor: {agent.InputRole: "extractor", agent.InputSubtask: ex + "subtask.yaml", agent.InputToolCalls: ex + "tool-calls.json", agent.InputModelOutput: ex + "output.txt"},
		agent.Verifier:  {agent.InputRole: "verifier", agent.InputSubtask: ex + "subtask.yaml", agent.InputToolCalls: ex + "tool-calls.json", agent.InputResult: ex + "output.txt"},
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
		presettest.Case{Name: "executor with detail", Args: with(exampleArgs()[agent.Executor], agent.InputDetail, "true")},
		presettest.Case{Name: "executor bare", Args: preset.Args{agent.InputRole: "executor", agent.InputState: ex + "state.yaml", agent.InputSubtask: ex + "subtask.yaml"}},
		presettest.Case{Name: "planner bare", Args: preset.Args{agent.InputRole: "planner", agent.InputGoal: "Say {hello} ~~~ twice }}"}},
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
