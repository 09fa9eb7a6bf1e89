package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDefaultTemplates(t *testing.T) {
	ts := DefaultTemplates()
	want := map[Role][]string{
		Planner:   {"role", "instructions", "constraints"},
		Executor:  {"role", "task_state", "subtask", "memory", "tools", "output_format", "constraints"},
		Replanner: {"role", "instructions", "constraints"},
		Extractor: {"role", "instructions", "constraints"},
		Verifier:  {"role", "instructions", "constraints"},
	}
	for _, r := range Roles() {
		tmpl := ts.Template(r)
		if tmpl == nil {
			t.Fatalf("no default %s template", r)
		}
		if got := tmpl.Keys(); !slices.Equal(got, want[r]) {
			t.Errorf("%s keys = %v, want %v", r, got, want[r])
		}
		if tmpl.Role() != r || tmpl.Path() != "defaults/"+fileName(r) {
			t.Errorf("%s: role %s, path %s", r, tmpl.Role(), tmpl.Path())
		}
		if ts.Library().For(r) == "" {
			t.Errorf("%s gets no constraints from the library", r)
		}
	}
	lib := ts.Library()
	for r, sets := range map[Role][]string{
		Planner: {"common", "safety"}, Executor: {"common", "executor", "safety"},
		Replanner: {"common", "safety"}, Extractor: {"common"}, Verifier: {"common"},
	} {
		if got := lib.Sets(r); !slices.Equal(got, sets) {
			t.Errorf("library sets of %s = %v, want %v", r, got, sets)
		}
	}
	if !strings.Contains(lib.For(Executor), "- Do NOT install system-level packages.") {
		t.Errorf("the executor lacks the safety set:\n%s", lib.For(Executor))
	}
	for _, name := range append(roleFiles(), libraryFile) {
		if _, err := defaultFile(name); err != nil {
			t.Errorf("DefaultFile(%q): %v", name, err)
		}
	}
}

func TestParseRole(t *testing.T) {
	for _, r := range Roles() {
		if got, err := ParseRole(string(r)); got != r || err != nil {
			t.Errorf("ParseRole(%q) = %q, %v", r, got, err)
		}
		if got, err := ParseRole(r.Verb()); got != r || err != nil {
			t.Errorf("ParseRole(%q) = %q, %v", r.Verb(), got, err)
		}
	}
	if _, err := ParseRole("coder"); err == nil || !strings.Contains(err.Error(), "use planner, executor, replanner, extractor or verifier") {
		t.Errorf("ParseRole(coder): %v", err)
	}
}

func TestScan(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // segments: literal text as is, placeholders as <name>
		errs []int  // offsets of errors
	}{
		{"", "", nil},
		{"plain text", "plain text", nil},
		{"{goal}", "<goal>", nil},
		{"GOAL:\n{goal}\n", "GOAL:\n|<goal>|\n", nil},
		{"a {{b}} c", "a {b} c", nil},
		{"{{{goal}}}", "{|<goal>|}", nil},
		{"{{\"status\": \"blocked\"}}", "{\"status\": \"blocked\"}", nil},
		{"x{a_1}{B}y", "x|<a_1>|<B>|y", nil},
		{"{ goal}", "{ goal}", []int{0, 6}},
		{"{}", "{}", []int{0, 1}},
		{"a } b", "a } b", []int{2}},
		{"{goal", "{goal", []int{0}},
		{"{goal}}", "<goal>|}", []int{6}},
		{"{go-al}", "{go-al}", []int{0, 6}},
		{"{\"a\": 1}", "{\"a\": 1}", []int{0, 7}},
		{"end {", "end {", []int{4}},
	} {
		segs, errs := scan(tc.in)
		var parts []string
		for _, s := range segs {
			if s.name != "" {
				parts = append(parts, "<"+s.name+">")
			} else {
				parts = append(parts, s.text)
			}
		}
		if got := strings.Join(parts, "|"); got != tc.want {
			t.Errorf("scan(%q) = %q, want %q", tc.in, got, tc.want)
		}
		var offs []int
		for _, e := range errs {
			offs = append(offs, e.off)
		}
		if !slices.Equal(offs, tc.errs) {
			t.Errorf("scan(%q) errors at %v, want %v", tc.in, offs, tc.errs)
		}
	}
}

// executorYAML is a valid executor template to break in tests.
const executorYAML = `role: You execute.
task_state: |
  STATE:
  {task_state_yaml}
subtask: |
  ID: {subtask_id}
memory: |
  MEMORY:
  {memory_entries_formatted}
output_format: Say what you did.
constraints: |
  - Never guess.
`

func TestParseTemplateErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		role Role
		text string
		want []string
	}{
		{"valid", Executor, executorYAML, nil},
		{"unknown key", Executor, executorYAML + "notes: x\n",
			[]string{`e.yaml:13:1: unknown key "notes": an executor template has the keys role, task_state, subtask, memory, tools, output_format and constraints`}},
		{"instructions in the executor", Executor, executorYAML + "instructions: x\n",
			[]string{`e.yaml:13:1: unknown key "instructions"`}},
		{"missing key", Executor, strings.Replace(executorYAML, "output_format: Say what you did.\n", "", 1),
			[]string{`e.yaml:1:1: missing key "output_format": an executor template needs role, task_state, subtask, memory, output_format and constraints`}},
		{"missing keys", Planner, "role: r\n",
			[]string{`e.yaml:1:1: missing key "constraints": a planner template needs role, instructions and constraints`, `e.yaml:1:1: missing key "instructions"`}},
		{"not text", Planner, "role: r\ninstructions: [a, b]\nconstraints:\n",
			[]string{`e.yaml:2:15: key "instructions": write its text as a string (a literal block, "instructions: |", keeps the lines as written)`, `e.yaml:3:1: key "constraints": write its text as a string`}},
		{"unknown placeholder", Planner, "role: r\ninstructions: |\n  GOAL:\n    {goal} and {gaol}\nconstraints: c\n",
			[]string{`e.yaml:4:16: key "instructions": {gaol} is not a placeholder the planner provides: use {goal}, {workspace_path}, {user_context} or {workspace_listing}`}},
		{"another role's placeholder", Extractor, "role: r\ninstructions: '{goal}'\nconstraints: c\n",
			[]string{`e.yaml:2:16: key "instructions": {goal} is not a placeholder the extractor provides`}},
		{"braces", Planner, "role: r\ninstructions: |\n  {goal}\n  Reply {\"a\": 1}\nconstraints: c\n",
			[]string{`e.yaml:4:9: key "instructions": a single '{' that does not start a {name} placeholder: write '{{' for a literal brace`, `e.yaml:4:16: key "instructions": a single '}' outside a placeholder: write '}}' for a literal brace`}},
		{"plain scalar column", Planner, "role: r\ninstructions: Do {it}\nconstraints: c\n",
			[]string{`e.yaml:2:18: key "instructions": {it} is not a placeholder`}},
		{"not alone", Planner, "role: r\ninstructions: |\n  Files: {workspace_listing}\nconstraints: c\n",
			[]string{`e.yaml:3:10: key "instructions": {workspace_listing} must stand alone on its line: its value is written as a fenced block of data`}},
		{"twice", Planner, "role: r\ninstructions: |\n  {workspace_listing}\n  {workspace_listing}\nconstraints: c\n",
			[]string{`e.yaml:4:3: key "instructions": {workspace_listing} is used twice (first at line 3)`}},
		{"wrong key", Executor, strings.Replace(executorYAML, "You execute.", "|\n  {memory_entries_formatted}", 1),
			[]string{`e.yaml:2:3: key "role": {memory_entries_formatted} stands only in the "memory" key`}},
		{"memory without entries", Executor, strings.Replace(executorYAML, "{memory_entries_formatted}", "none", 1),
			[]string{`e.yaml:7:1: key "memory" does not use {memory_entries_formatted}: write it on a line of its own where the memory_entries go`}},
		{"tools without tools", Executor, executorYAML + "tools: Tools here.\n",
			[]string{`e.yaml:13:1: key "tools" does not use {tools_formatted}`}},
		{"not a mapping", Planner, "- role\n", []string{`e.yaml:1:1: a planner template is a mapping of the keys role, instructions, output_format and constraints to text`}},
		{"empty", Planner, "# nothing\n", []string{`e.yaml:1:1: a planner template is a mapping`}},
		{"repeated key", Planner, "role: a\nrole: b\ninstructions: i\nconstraints: c\n", []string{`e.yaml:2:1: key "role" is repeated (first at line 1): keep one`}},
		{"syntax", Planner, "role: [a\n", []string{`e.yaml:1:9: not valid YAML`}},
		{"misspelt key", Planner, "role: r\ninstructions: i\n  # c\ncontraints: c\n",
			[]string{`e.yaml:1:1: missing key "constraints"`, `e.yaml:4:1: unknown key "contraints": did you mean "constraints"? a planner template has the keys role, instructions, output_format and constraints`}},
		{"columns in bytes", Planner, "role: r\ninstructions: Résumé {gaol}\nconstraints: c\n",
			[]string{`e.yaml:2:24: key "instructions": {gaol} is not a placeholder`}},
		{"columns in bytes, literal block", Planner, "role: r\ninstructions: |\n  Ça {gaol}\nconstraints: c\n",
			[]string{`e.yaml:3:7: key "instructions": {gaol} is not a placeholder`}},
		{"folded block", Planner, "role: r\ninstructions: >\n  Do\n  {gaol}\nconstraints: c\n",
			[]string{`e.yaml:2:15: key "instructions": {gaol} is not a placeholder`}},
		{"escapes", Planner, "role: r\ninstructions: \"\\tDo {gaol}\"\nconstraints: c\n",
			[]string{`e.yaml:2:15: key "instructions": {gaol} is not a placeholder`}},
		{"value empty", Planner, "role: ''\ninstructions: i\nconstraints: c\n",
			[]string{`e.yaml:1:7: key "role": write its text as a string`}},
		{"alias", Planner, "role: &r r\ninstructions: *r\nconstraints: c\n",
			[]string{`e.yaml:2:15: key "instructions": aliases (*r) are not supported in a template: write the value out`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTemplate(tc.role, "e.yaml", []byte(tc.text))
			if tc.want == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			got := strings.Split(err.Error(), "\n")
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems:\n%v\nwant %d", len(got), err, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("problem %d:\n got %s\nwant %s…", i, got[i], w)
				}
			}
		})
	}
}

func TestParseLibraryErrors(t *testing.T) {
	const apply = "apply:\n  planner: [common]\n  executor: [common]\n  replanner: [common]\n  extractor: [common]\n  verifier: []\n"
	if _, err := ParseLibrary("c.yaml", []byte("common: |\n  - Be careful.\n"+apply)); err != nil {
		t.Fatalf("valid library: %v", err)
	}
	for _, tc := range []struct{ text, want string }{
		{"common: x\n", `c.yaml:1:1: missing key "apply"`},
		{"common: x\napply: [common]\n", `c.yaml:2:1: "apply" maps each role to a list of sets`},
		{"common: x\n" + strings.Replace(apply, "planner: [common]", "planner: [comon]", 1), `c.yaml:3:13: apply: planner: no set "comon" in this file: define it, or use common`},
		{"common: x\n" + strings.Replace(apply, "  verifier: []\n", "", 1), `c.yaml:2:1: apply: role verifier is missing: list its sets ([] for none)`},
		{"common: x\n" + apply + "  coder: []\n", `c.yaml:8:3: apply: "coder" is not a role: use planner`},
		{"common: x\n" + strings.Replace(apply, "planner: [common]", "planner: common", 1), `c.yaml:3:3: apply: planner: write a list of sets`},
		{"Common: x\n" + apply, `c.yaml:1:1: set name "Common": use lower-case letters`},
		{"empty: ''\n" + apply, `c.yaml:1:1: set "empty": write its constraints as text`},
		{"- a\n", `c.yaml:1:1: the constraint library is a mapping`},
		{"common: x\n" + strings.Replace(apply, "extractor:", "extracter:", 1), `c.yaml:6:3: apply: "extracter" is not a role: did you mean "extractor"? use planner`},
		{"common: x\n" + strings.Replace(apply, "[common]", "[[common]]", 1), `c.yaml:3:13: apply: planner: a set is named by its key`},
		{"Common: x\n" + apply, `c.yaml:3:13: apply: planner: no set "common" in this file: define it` + "\n"},
	} {
		_, err := ParseLibrary("c.yaml", []byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseLibrary(%q):\n got %v\nwant %s", tc.text, err, tc.want)
		}
	}
}

func TestLoadDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("executor.yaml", executorYAML)
	write("notes.txt", "not a template, not read")
	ts, err := LoadDir(DefaultTemplates(), dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p := ts.Template(Executor).Path(); p != filepath.ToSlash(filepath.Join(dir, "executor.yaml")) {
		t.Errorf("executor from %s", p)
	}
	if p := ts.Template(Planner).Path(); p != "defaults/planner.yaml" {
		t.Errorf("planner from %s, want the default", p)
	}
	if DefaultTemplates().Template(Executor).Path() != "defaults/executor.yaml" {
		t.Error("LoadDir changed the defaults")
	}

	// Only the roles asked for are read: a broken planner does not stop
	// the executor.
	write("planner.yaml", "role: [\n")
	if _, err := LoadDir(DefaultTemplates(), dir, 0, Executor); err != nil {
		t.Errorf("executor only: %v", err)
	}
	if _, err := LoadDir(DefaultTemplates(), dir, 0); err == nil || !strings.Contains(err.Error(), "planner.yaml:1:8: not valid YAML") {
		t.Errorf("all roles: %v, want the planner's syntax error", err)
	}

	write("planer.yaml", executorYAML)
	_, err = LoadDir(DefaultTemplates(), dir, 0)
	if err == nil || !strings.Contains(err.Error(), "planer.yaml: not a template file: name it after a role (planner.yaml, executor.yaml, replanner.yaml, extractor.yaml and verifier.yaml) or constraints.yaml") {
		t.Errorf("misspelt file: %v", err)
	}
	if _, err := LoadDir(DefaultTemplates(), filepath.Join(dir, "nope"), 0); err == nil {
		t.Error("a missing directory loaded")
	}

	// A file over the size cap is refused with its name.
	big := t.TempDir()
	if err := os.WriteFile(filepath.Join(big, "verifier.yaml"), []byte(strings.Repeat("# x\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDir(DefaultTemplates(), big, 64); err == nil || !strings.Contains(err.Error(), "verifier.yaml: is 400 bytes, over the 64-byte cap") {
		t.Errorf("over the cap: %v", err)
	}
}

func TestTemplatesWith(t *testing.T) {
	tmpl, err := ParseTemplate(Executor, "mine.yaml", []byte(executorYAML))
	if err != nil {
		t.Fatal(err)
	}
	ts := DefaultTemplates().With(tmpl)
	if ts.Template(Executor) != tmpl || DefaultTemplates().Template(Executor) == tmpl {
		t.Error("With did not replace the executor in a copy only")
	}
	if _, err := ParseTemplate("coder", "x.yaml", []byte(executorYAML)); err == nil {
		t.Error("a template for an unknown role parsed")
	}
}
