package agent

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/internal/diagtest"
)

// FuzzScan checks the {name} scanner: it never panics; without errors,
// its segments written back ({ and } doubled in literal text, {name} for
// placeholders) are the input exactly; every error points at a brace; and
// a template that parses lays out with any values, each written as it is.
func FuzzScan(f *testing.F) {
	for _, s := range []string{"", "GOAL:\n{goal}\n", "{{\"a\": 1}}", "{ a}", "}", "{", "{goal}}", "{{{goal}}}", "a{b_1}c{D}", "{é}", "{\n}", "{goal"} {
		f.Add(s, "Add {goal} }}{{ ~~~")
	}
	for _, r := range Roles() {
		data, _ := defaultFile(fileName(r))
		f.Add(string(data), "{workspace_listing}")
	}
	name := regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	f.Fuzz(func(t *testing.T, s, value string) {
		segs, errs := scan(s)
		for _, e := range errs {
			if e.off < 0 || e.off >= len(s) || (s[e.off] != '{' && s[e.off] != '}') {
				t.Fatalf("error at %d of %q is not at a brace", e.off, s)
			}
		}
		last := -1
		for _, sg := range segs {
			if sg.off <= last || sg.off > len(s) {
				t.Fatalf("segment offsets out of order: %+v", segs)
			}
			last = sg.off
			if sg.name != "" && !name.MatchString(sg.name) {
				t.Fatalf("placeholder name %q", sg.name)
			}
			if sg.name == "" && sg.text == "" {
				t.Fatalf("empty literal segment")
			}
		}
		if len(errs) == 0 {
			var b strings.Builder
			for _, sg := range segs {
				if sg.name != "" {
					b.WriteString("{" + sg.name + "}")
				} else {
					b.WriteString(strings.NewReplacer("{", "{{", "}", "}}").Replace(sg.text))
				}
			}
			if b.String() != s {
				t.Fatalf("segments of %q write back as %q", s, b.String())
			}
		}
		// As a planner's instructions: a template that parses lays out,
		// and values are written once, as they are.
		tmpl, err := ParseTemplate(Planner, "f.yaml", []byte("role: r\nconstraints: c\ninstructions: "+quote(s)+"\n"))
		if err != nil {
			return
		}
		in := &Input{Role: Planner, Goal: "goal " + value, UserContext: value, Workspace: "w", Listing: value}
		text, err := Text(DefaultTemplates().With(tmpl), in)
		if err != nil {
			t.Fatalf("a parsed template does not lay out: %v", err)
		}
		// The prompt shows the goal on one line, its control characters
		// made visible (see Build).
		if v := cleanControls(inlineText(in.Goal)); strings.Contains(s, "{goal}") && !strings.Contains(text, v) {
			t.Fatalf("the goal %q is not in the prompt:\n%s", v, text)
		}
	})
}

// quote writes s as a YAML double-quoted scalar.
func quote(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}

// FuzzInputFiles reads any text as each of the agent's input files, its
// templates and its constraint library: no panic, and every problem at a
// line and column of the file (Normalize aside: the fuzzer's text is
// valid UTF-8 with '\n' line ends).
//
// Its seeds are the example files of at most 512 bytes and short texts:
// the fuzzer minimizes each new input it finds interesting by trying to
// cut every run of its bytes, and the kilobyte-sized role templates and
// example lists kept it minimizing most of its run. The other tests read
// those files.
func FuzzInputFiles(f *testing.F) {
	for _, name := range []string{"state.yaml", "subtask.yaml", "tool-calls.json", "discoveries.json", "errors.json"} {
		data, err := os.ReadFile("../../examples/agent/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		`[{"type": "decision", "summary": "Use A.", "tags": ["a"], "relevance_to": "x, y"}]`,
		`[{"name": "read_file", "description": "Read a file.", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}]`,
		"role: planner\ninstructions: |\n  Plan {goal} in {max_subtasks} steps.\nconstraints: Be brief.\n",
		"constraints:\n  - id: c1\n    text: Run the tests.\n    apply: [executor]\n",
	} {
		f.Add([]byte(s))
	}
	for _, s := range []string{"", "- {type: hunch, summary: é, tags: {}}\n- x\n", "id: s\ndepends_on: a, b\nmodel_tier: two\n", "[{\"name\": \"ls\", \"parameters\": [1], \"score\": .nan}]",
		"- name: x\n  arguments: &a {b: [1, 0x10]}\n  result: *a\n", "role: r\ninstructions: |\n  Ça {gaol} }\nconstraints: c\napply: {planner: [x]}\n"} {
		f.Add([]byte(s))
	}
	parsers := map[string]func(string, []byte) error{
		"state":      func(p string, d []byte) error { _, err := ParseTaskState(p, d); return err },
		"subtask":    func(p string, d []byte) error { _, err := ParseSubtask(p, d); return err },
		"memory":     func(p string, d []byte) error { _, err := ParseMemory(p, d); return err },
		"notes":      func(p string, d []byte) error { _, err := ParseNotes(p, d); return err },
		"tools":      func(p string, d []byte) error { _, err := ParseTools(p, d); return err },
		"tool calls": func(p string, d []byte) error { _, err := ParseToolCalls(p, d); return err },
		"library":    func(p string, d []byte) error { _, err := ParseLibrary(p, d); return err },
	}
	for _, r := range Roles() {
		parsers[string(r)] = func(p string, d []byte) error { _, err := ParseTemplate(r, p, d); return err }
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) || bytes.ContainsAny(data, "\r\ufeff") {
			return
		}
		for _, name := range slices.Sorted(maps.Keys(parsers)) {
			if err := parsers[name]("f", data); err != nil {
				diagtest.CheckPlaces(t, "f", data, err)
			}
		}
	})
}
