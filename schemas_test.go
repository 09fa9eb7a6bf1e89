package tessera_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/internal/golden"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/output"
	"github.com/tessera-dev/tessera/presets"
)

// TestSchemas checks that schemas/ holds the JSON Schema of each file
// format as its decoder generates it (regenerate with -update, never by
// hand), and that every example file of that format is valid under it.
func TestSchemas(t *testing.T) {
	for _, f := range schemaFormats(t) {
		t.Run(f.file, func(t *testing.T) {
			golden.Compare(t, filepath.Join("schemas", f.file), f.schema, *updateImports)
			s, err := output.Compile(f.file, f.schema)
			if err != nil {
				t.Fatal(err)
			}
			for _, ex := range f.examples {
				checkExample(t, s, f.file, ex)
			}
		})
	}
}

// schemaFile is a file format's JSON Schema: its file under schemas/, the
// schema as the format's decoder generates it, and the files of that
// format that the repository ships.
type schemaFile struct {
	file     string
	schema   []byte
	examples []string
}

// schemaExamples are the files of each format that the repository
// ships, by the format's name (presets.Schemas).
var schemaExamples = map[string][]string{
	"tessera":          {"examples/tessera.yaml"},
	"workflow":         {"examples/seed/workflows/*.json"},
	"canonical-spec":   {"examples/canonical/*.yaml"},
	"typed-template":   {"examples/typed/*.yaml"},
	"typed-overrides":  {"examples/typed/overrides/*.yaml"},
	"layered":          {"examples/layered/layered.yaml", "preset/layered/testdata/eval/catalog.yaml"},
	"layered-context":  {"examples/layered/context.yaml"},
	"layered-memory":   {"examples/layered/memories.jsonl"},
	"agent-planner":    {"preset/agent/defaults/planner.yaml"},
	"agent-executor":   {"preset/agent/defaults/executor.yaml"},
	"agent-replanner":  {"preset/agent/defaults/replanner.yaml"},
	"agent-extractor":  {"preset/agent/defaults/extractor.yaml"},
	"agent-verifier":   {"preset/agent/defaults/verifier.yaml"},
	"agent-subtask":    {"examples/agent/subtask.yaml"},
	"agent-memory":     {"examples/agent/memory.json"},
	"agent-tools":      {"examples/agent/tools.json"},
	"agent-tool-calls": {"examples/agent/tool-calls.json"},
	"agent-notes":      {"examples/agent/discoveries.json", "examples/agent/errors.json"},
}

// schemaFormats are presets.Schemas with their examples; a format
// without an example fails the test.
func schemaFormats(t *testing.T) []schemaFile {
	var out []schemaFile
	for _, s := range presets.Schemas() {
		pats, ok := schemaExamples[s.Name]
		if !ok {
			t.Errorf("schema %s: no example file: add one to schemaExamples", s.Name)
		}
		var examples []string
		for _, p := range pats {
			examples = append(examples, glob(t, p)...)
		}
		out = append(out, schemaFile{s.Name + ".schema.json", s.JSON, examples})
	}
	return out
}

// checkExample reports each way the YAML file ex is not valid under s,
// the schema of the file name under schemas/.
func checkExample(t *testing.T, s *output.Schema, name, ex string) {
	t.Helper()
	data, err := os.ReadFile(ex)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(ex, ".jsonl") {
		// JSON Lines: the schema is a line's.
		for n, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			for _, p := range s.Check([]byte(line)) {
				t.Errorf("%s:%d is not valid under %s: %s", ex, n+1, name, p)
			}
		}
		return
	}
	doc, err := yamldoc.ToJSON(ex, data)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Check(doc) {
		t.Errorf("%s is not valid under %s: %s", ex, name, p)
	}
}

// modeline is how a YAML file names its schema for an editor with the
// YAML language server, on its first line.
const modeline = "# yaml-language-server: $schema="

// examplesWithoutSchema are the YAML files under examples/ that do not
// name a schema on their first line, each with the reason.
var examplesWithoutSchema = map[string]string{
	"examples/agent/state.yaml":                 "a task state is any YAML mapping",
	"examples/agent/subtask.yaml":               "schemas/ has no schema of subtask files yet",
	"examples/layered/context.yaml":             "schemas/ has no schema of layered contexts yet",
	"examples/typed/params/code-review.yaml":    "a params file's keys are its template's parameters",
	"examples/typed/overrides/code-review.yaml": "schemas/ has no schema of overrides files yet",
	// TestSchemas validates it; preset/canonical's tests pin the lines
	// of its problems, which a first line would move.
	"examples/canonical/support-ticket.yaml": "its line numbers are pinned by preset/canonical's TestSchemaCheck",
}

// TestExampleSchemas checks every YAML file under examples/: one whose
// first line names its schema (a "# yaml-language-server: $schema=" line,
// a path relative to the file) names a file under schemas/, the one
// TestSchemas gives its format, and is valid under it; any other is
// listed, with the reason, in examplesWithoutSchema.
func TestExampleSchemas(t *testing.T) {
	formatOf := map[string]string{} // example file -> its format's schema file
	for _, f := range schemaFormats(t) {
		for _, ex := range f.examples {
			formatOf[ex] = f.file
		}
	}
	var files []string
	err := filepath.WalkDir("examples", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			files = append(files, filepath.ToSlash(path))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, ex := range files {
		data, err := os.ReadFile(ex)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		ref, ok := strings.CutPrefix(strings.TrimRight(first, "\r"), modeline)
		if !ok {
			if _, listed := examplesWithoutSchema[ex]; !listed {
				t.Errorf("%s: the first line does not name the file's schema: write %s with the path of its schema under schemas/, relative to the file (or list it in examplesWithoutSchema, with the reason)", ex, modeline)
			}
			continue
		}
		if reason, listed := examplesWithoutSchema[ex]; listed {
			t.Errorf("%s names its schema, yet examplesWithoutSchema lists it (%s): remove it from the list", ex, reason)
		}
		named++
		path := filepath.ToSlash(filepath.Join(filepath.Dir(ex), strings.TrimSpace(ref)))
		if dir, name := filepath.Split(path); dir != "schemas/" || !strings.HasSuffix(name, ".schema.json") {
			t.Errorf("%s:1: the schema %q is %s, not a file under schemas/", ex, ref, path)
			continue
		}
		if want, ok := formatOf[ex]; ok && path != "schemas/"+want {
			t.Errorf("%s:1: names %s, but it is a file of the format of schemas/%s", ex, path, want)
		}
		schema, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s:1: the schema %q: %v", ex, ref, err)
			continue
		}
		s, err := output.Compile(path, schema)
		if err != nil {
			t.Fatal(err)
		}
		checkExample(t, s, path, ex)
	}
	if named == 0 {
		t.Error("no example file names its schema")
	}
	for ex := range examplesWithoutSchema {
		if !slices.Contains(files, ex) {
			t.Errorf("examplesWithoutSchema lists %s, which is not a YAML file under examples/: remove it", ex)
		}
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
