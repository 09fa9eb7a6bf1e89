package agent_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/preset/agent"
)

// randValue returns a random JSON value for a field of an input file:
// mostly what the field wants, sometimes a value of another type.
func randValue(r *rand.Rand, depth int) string {
	pool := []string{`"decision"`, `"error"`, `"tool_result"`, `"colour"`, `""`, `"  "`, `"a, b,, c"`, `"line 1\nline 2 \"quoted\" \u00e9"`,
		`"read_file"`, `7`, `-0`, `2.5`, `1e3`, `true`, `null`, `"12345"`}
	if depth > 0 {
		switch r.IntN(6) {
		case 0:
			return "[" + strings.Join([]string{randValue(r, depth-1), randValue(r, depth-1)}[:r.IntN(3)], ", ") + "]"
		case 1:
			return `{"type": "object", "properties": {"path": {"type": "string"}}, "n": ` + randValue(r, depth-1) + `}`
		}
	}
	return pool[r.IntN(len(pool))]
}

// randList returns a random JSON list of objects with keys drawn from
// keys (and a stranger), each at most once, items sometimes not objects.
func randList(r *rand.Rand, keys []string) string {
	var items []string
	for range r.IntN(6) {
		if r.IntN(10) == 0 {
			items = append(items, randValue(r, 1))
			continue
		}
		var members []string
		for _, k := range append(keys, "colour") {
			if r.IntN(3) > 0 {
				members = append(members, fmt.Sprintf("%q: %s", k, randValue(r, 2)))
			}
		}
		items = append(items, "{"+strings.Join(members, ",\n    ")+"}")
	}
	return "[\n  " + strings.Join(items, ",\n  ") + "\n]\n"
}

// TestJSONInputsMatchYAML: every agent input written as JSON gives, read
// as JSON (.json), the values and problems (at the same lines and
// columns) that the YAML layer gives reading the same text (.yaml).
func TestJSONInputsMatchYAML(t *testing.T) {
	type parse func(path string, data []byte) (any, error)
	inputs := []struct {
		name  string
		keys  []string
		parse parse
	}{
		{"memory", []string{"id", "type", "summary", "detail", "tags", "relevance_to", "subtask", "score"}, func(p string, d []byte) (any, error) { return agent.ParseMemory(p, d) }},
		{"notes", []string{"id", "type", "summary", "detail", "tags"}, func(p string, d []byte) (any, error) { return agent.ParseNotes(p, d) }},
		{"tool calls", []string{"name", "arguments", "result", "error"}, func(p string, d []byte) (any, error) { return agent.ParseToolCalls(p, d) }},
		{"tools", []string{"name", "description", "parameters", "score"}, func(p string, d []byte) (any, error) { return agent.ParseTools(p, d) }},
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, in := range inputs {
		for range 300 {
			text := randList(r, in.keys)
			if r.IntN(8) == 0 {
				text = randValue(r, 2) // not a list
			}
			gotV, gotErr := in.parse("in.json", []byte(text))
			wantV, wantErr := in.parse("in.yaml", []byte(text))
			if g, w := errText(gotErr, "in.json"), errText(wantErr, "in.yaml"); g != w {
				t.Fatalf("%s %s:\nJSON: %s\nYAML: %s", in.name, text, g, w)
			}
			if !reflect.DeepEqual(gotV, wantV) {
				t.Fatalf("%s %s:\nJSON: %#v\nYAML: %#v", in.name, text, gotV, wantV)
			}
		}
	}
	// A subtask and a task state, mappings.
	for range 300 {
		var members []string
		for _, k := range []string{"id", "description", "depends_on", "model_tier", "verification_tier", "is_critical_path", "acceptance_criteria", "status", "tools", "colour"} {
			if r.IntN(3) > 0 {
				members = append(members, fmt.Sprintf("%q: %s", k, randValue(r, 2)))
			}
		}
		text := "{\n  " + strings.Join(members, ",\n  ") + "\n}\n"
		gotS, gotErr := agent.ParseSubtask("in.json", []byte(text))
		wantS, wantErr := agent.ParseSubtask("in.yaml", []byte(text))
		if g, w := errText(gotErr, "in.json"), errText(wantErr, "in.yaml"); g != w {
			t.Fatalf("subtask %s:\nJSON: %s\nYAML: %s", text, g, w)
		}
		if !reflect.DeepEqual(gotS, wantS) {
			t.Fatalf("subtask %s:\nJSON: %#v\nYAML: %#v", text, gotS, wantS)
		}
		gotT, gotErr := agent.ParseTaskState("in.json", []byte(text))
		wantT, wantErr := agent.ParseTaskState("in.yaml", []byte(text))
		if g, w := errText(gotErr, "in.json"), errText(wantErr, "in.yaml"); g != w || gotT != wantT {
			t.Fatalf("task state %s:\nJSON: %s %q\nYAML: %s %q", text, g, gotT, w, wantT)
		}
	}
}

// errText is err's text with the file's name taken out.
func errText(err error, path string) string {
	if err == nil {
		return ""
	}
	return strings.ReplaceAll(err.Error(), path, "FILE")
}

// TestJSONInputErrors: a problem deep in a large JSON input is reported
// at its line and column, with what to do; a repeated key is refused.
func TestJSONInputErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString("[\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "  {\"type\": \"decision\", \"summary\": \"entry %d\", \"tags\": [\"a\", \"b\"]},\n", i)
	}
	b.WriteString("  {\"type\": \"decision\", \"summary\": \"last\", \"tags\": [\"a\", {\"b\": 1}]}\n]\n")
	_, err := agent.ParseMemory("memory.json", []byte(b.String()))
	const want = "memory.json:2002:57: memory entry 2001 tags: write text"
	if err == nil || err.Error() != want {
		t.Errorf("deep bad value:\n got %v\nwant %s", err, want)
	}
	for _, c := range []struct{ text, want string }{
		{"[\n  {\"type\": \"decision\", \"summary\": \"a\",\n   \"summary\": \"b\"}\n]", `memory.json:3:4: key "[0].summary" is repeated (first at line 2): keep one`},
		{"[\n  {\"type\": \"decision\", \"summary\": \"a\"},\n  {\"type\": \"decision\" \"summary\": \"b\"}\n]", `memory.json:3:23: not valid JSON: found "\"" after a value in an object`},
		{"[\n  {\"type\": \"decision\", \"summary\": \"a\"}\n", "memory.json:3:1: not valid JSON: the text ends inside the list opened at line 1, column 1: close it with ']'"},
		{"{\"type\": \"decision\"}", "memory.json:1:1: write a list of memory entries ([] for none)"},
		{"  \n", "memory.json:1:1: the file is empty: write a list of memory entries ([] for none)"},
	} {
		_, err := agent.ParseMemory("memory.json", []byte(c.text))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s...", c.text, err, c.want)
		}
	}
}

// TestJSONWithoutExtension: a file whose name does not say is read as
// JSON when it opens with '[' or '{', and a YAML flow list is still YAML.
func TestJSONWithoutExtension(t *testing.T) {
	got, err := agent.ParseMemory("standard input", []byte("\n [{\"type\": \"decision\", \"summary\": \"kept\"}]"))
	if err != nil || len(got) != 1 || got[0].Summary != "kept" {
		t.Fatalf("JSON: %v %+v", err, got)
	}
	got, err = agent.ParseMemory("standard input", []byte("[{type: decision, summary: flow YAML}]"))
	if err != nil || len(got) != 1 || got[0].Summary != "flow YAML" {
		t.Fatalf("flow YAML: %v %+v", err, got)
	}
	_, err = agent.ParseMemory("standard input", []byte("[{\"type\": \"decision\",, }]"))
	if err == nil || !strings.Contains(err.Error(), "standard input:1:22: not valid JSON") {
		t.Fatalf("neither: %v", err)
	}
}
