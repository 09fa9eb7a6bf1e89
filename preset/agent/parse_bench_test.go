package agent_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/preset/agent"
	"github.com/tessera-dev/tessera/preset/agent/reply"
)

// BenchmarkParseInputs reads the executor's input files as an agent's
// loop does at each step: a 50-entry memory file and a 20-tool file
// (JSON, through the YAML layer), a subtask (YAML), and a planner's
// 15-subtask reply inside prose. The "yaml" runs parse the memory and
// tools files alone, with nothing decoded or checked. Target: reading a
// file, decoded, checked and every field's place kept, costs at most
// 1.25 times its parse alone, in time and in allocations; a reply is read
// in well under a millisecond.
func BenchmarkParseInputs(b *testing.B) {
	in := benchInput()
	memory, err := json.MarshalIndent(in.Memory, "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	tools, err := json.MarshalIndent(in.Tools, "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	subtask := []byte("id: add-type-hints\ndescription: Add type hints to every function in src/slugkit/slug.py.\ndepends_on: [inspect-package]\nmodel_tier: 2\nverification_tier: 2\nis_critical_path: true\nacceptance_criteria: slugify has annotated parameters and return type; no behaviour changes.\ntools: [read_file, write_file, run_command]\n")
	var subtasks []string
	for i := range 15 {
		deps := "[]"
		if i > 0 {
			deps = fmt.Sprintf(`["step-%d"]`, i-1)
		}
		subtasks = append(subtasks, fmt.Sprintf(`    {"id": "step-%d", "description": "Do step %d of the work.", "depends_on": %s, "model_tier": 2, "verification_tier": 1, "is_critical_path": true, "acceptance_criteria": "Step %d is done."}`, i, i, deps, i))
	}
	plan := []byte("Here is the plan:\n\n```json\n{\n  \"subtasks\": [\n" + strings.Join(subtasks, ",\n") + "\n  ]\n}\n```\n")
	b.Run("memory", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := agent.ParseMemory("memory.json", memory); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, bc := range []struct {
		name string
		data []byte
	}{{"memory/yaml", memory}, {"tools/yaml", tools}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := (yamldoc.Parser{Columns: true}).Parse("f.json", bc.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("tools", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := agent.ParseTools("tools.json", tools); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("subtask", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := agent.ParseSubtask("subtask.yaml", subtask); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := reply.ParsePlan("plan.txt", plan); err != nil {
				b.Fatal(err)
			}
		}
	})
}
