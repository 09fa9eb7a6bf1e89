package tessera_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/internal/golden"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/output"
	"github.com/tessera-dev/tessera/preset/agent"
	"github.com/tessera-dev/tessera/preset/canonical"
	"github.com/tessera-dev/tessera/preset/layered"
	"github.com/tessera-dev/tessera/preset/typed"
)

// TestSchemas checks that schemas/ holds the JSON Schema of each file
// format as its decoder generates it (regenerate with -update, never by
// hand), and that every example file of that format is valid under it.
func TestSchemas(t *testing.T) {
	for _, f := range []struct {
		file     string
		schema   []byte
		examples []string
	}{
		{"tessera.schema.json", catalog.JSONSchema(), []string{"examples/tessera.yaml"}},
		{"canonical-spec.schema.json", canonical.JSONSchema(), glob(t, "examples/canonical/*.yaml")},
		{"typed-template.schema.json", typed.JSONSchema(), glob(t, "examples/typed/*.yaml")},
		{"layered.schema.json", layered.JSONSchema(), []string{"examples/layered/layered.yaml", "preset/layered/testdata/eval/catalog.yaml"}},
		{"agent-executor.schema.json", agent.JSONSchema(agent.Executor), []string{"preset/agent/defaults/executor.yaml"}},
		{"agent-planner.schema.json", agent.JSONSchema(agent.Planner), []string{"preset/agent/defaults/planner.yaml"}},
		{"agent-replanner.schema.json", agent.JSONSchema(agent.Replanner), []string{"preset/agent/defaults/replanner.yaml"}},
		{"agent-extractor.schema.json", agent.JSONSchema(agent.Extractor), []string{"preset/agent/defaults/extractor.yaml"}},
		{"agent-verifier.schema.json", agent.JSONSchema(agent.Verifier), []string{"preset/agent/defaults/verifier.yaml"}},
	} {
		t.Run(f.file, func(t *testing.T) {
			golden.Compare(t, filepath.Join("schemas", f.file), f.schema, *updateImports)
			s, err := output.Compile(f.file, f.schema)
			if err != nil {
				t.Fatal(err)
			}
			for _, ex := range f.examples {
				data, err := os.ReadFile(ex)
				if err != nil {
					t.Fatal(err)
				}
				doc, err := yamldoc.ToJSON(ex, data)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range s.Check(doc) {
					t.Errorf("%s is not valid under %s: %s", ex, f.file, p)
				}
			}
		})
	}
}

func glob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		t.Fatalf("no files match %s: %v", pattern, err)
	}
	return m
}
