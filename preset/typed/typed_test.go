package typed

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/internal/golden"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden from current output")

const example = "../../examples/typed/code-review.yaml"

func parseExample(t testing.TB) *Template {
	t.Helper()
	data, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := Parse("typed/code-review.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func mustParse(t *testing.T, src string) *Template {
	t.Helper()
	tpl, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return tpl
}

func layoutText(t *testing.T, tpl *Template, vals Values, opts Options) (string, *preset.Layout) {
	t.Helper()
	l, err := tpl.Layout(vals, opts)
	if err != nil {
		t.Fatalf("Layout: %v", err)
	}
	return render.Render(l.Sections, l.Style).Text, l
}

// TestExampleGolden renders the example template with each fixture and
// with the params file, and compares each with its golden file.
func TestExampleGolden(t *testing.T) {
	tpl := parseExample(t)
	for _, f := range tpl.Fixtures {
		vals, err := tpl.valuesOf(tpl.Path(), f.Params)
		if err != nil {
			t.Fatal(err)
		}
		text, _ := layoutText(t, tpl, vals, Options{Expand: f.Expand})
		golden.Compare(t, filepath.Join("testdata", "golden", f.Name+".txt"), []byte(text), *update)
	}
	data, err := os.ReadFile("../../examples/typed/params/code-review.yaml")
	if err != nil {
		t.Fatal(err)
	}
	vals, err := tpl.ParseValues("params/code-review.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := layoutText(t, tpl, vals, Options{Expand: []string{"rules"}})
	golden.Compare(t, filepath.Join("testdata", "golden", "params-expanded.txt"), []byte(text), *update)
}

// TestHeadingsAndSubstitution checks the numbered headings, the three
// placeholder forms and the value forms users rely on.
func TestHeadingsAndSubstitution(t *testing.T) {
	tpl := mustParse(t, `ns: t
key: k
params:
  - {name: who, type: string}
  - {name: n, type: integer, default: 3}
  - {name: ratio, type: number, default: 0.25}
  - {name: on, type: boolean, default: true}
  - {name: items, type: list, default: [a, b]}
sections:
  - key: one
    title: One
    template: |
      Hello $who, ${who}s and $$5. n=$n ratio=$ratio on=$on
    children:
      - key: sub
        title: Sub
        template: |
          $items
        children:
          - key: deep
            title: Deep
            template: x
  - key: two
    title: Two
    template: "  two  "
`)
	got, _ := layoutText(t, tpl, Values{"who": stringValue("Ada")}, Options{})
	want := "## 1. One\nHello Ada, Adas and $5. n=3 ratio=0.25 on=true\n\n### 1.1. Sub\n- a\n- b\n\n#### 1.1.1. Deep\nx\n\n## 2. Two\ntwo"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestEnabled(t *testing.T) {
	tpl := mustParse(t, `ns: t
key: k
params:
  - {name: strict, type: boolean, default: false}
sections:
  - {key: a, title: A, template: a}
  - {key: b, title: B, template: b, enabled: strict}
  - {key: c, title: C, template: c, enabled: "!strict"}
`)
	off, _ := layoutText(t, tpl, nil, Options{})
	if off != "## 1. A\na\n\n## 2. C\nc" {
		t.Errorf("strict false:\n%s", off)
	}
	on, _ := layoutText(t, tpl, Values{"strict": boolValue(true)}, Options{})
	if on != "## 1. A\na\n\n## 2. B\nb" {
		t.Errorf("strict true:\n%s", on)
	}
}

func TestSummaryAndExpand(t *testing.T) {
	tpl := parseExample(t)
	vals, err := tpl.valuesOf(tpl.Path(), tpl.Fixtures[0].Params)
	if err != nil {
		t.Fatal(err)
	}
	text, l := layoutText(t, tpl, vals, Options{})
	if !strings.Contains(text, "Correctness, error handling, tests and naming") || strings.Contains(text, "Correctness first") {
		t.Errorf("rules is not summarized:\n%s", text)
	}
	var tools []string
	for _, s := range l.Sections {
		for _, tl := range s.Tools {
			tools = append(tools, tl.Name)
		}
	}
	if strings.Join(tools, ",") != "read_section,read_file" {
		t.Errorf("tools %v, want read_section with the summarized section (it has no tools), then read_file", tools)
	}
	text, l = layoutText(t, tpl, vals, Options{Expand: []string{"rules"}})
	if !strings.Contains(text, "Correctness first") {
		t.Errorf("rules is not expanded:\n%s", text)
	}
	for _, s := range l.Sections {
		for _, tl := range s.Tools {
			if tl.Name == OpenSectionsTool || tl.Name == ReadSectionTool {
				t.Errorf("%s offered with nothing summarized", tl.Name)
			}
		}
	}
	for _, bad := range []struct{ path, want string }{
		{"nope", `has no section "nope": the summarized sections are rules`},
		{"role", `section "role" is not summarized`},
	} {
		_, err := tpl.Layout(vals, Options{Expand: []string{bad.path}})
		if err == nil || !strings.Contains(err.Error(), bad.want) || !strings.HasPrefix(err.Error(), "--typed-expand") {
			t.Errorf("expand %q: %v, want --typed-expand ... %q", bad.path, err, bad.want)
		}
	}
}

func TestRolesAndTrust(t *testing.T) {
	tpl := parseExample(t)
	vals, _ := tpl.valuesOf(tpl.Path(), tpl.Fixtures[0].Params)
	_, l := layoutText(t, tpl, vals, Options{})
	roles := map[string]prompt.Role{}
	for _, s := range l.Sections {
		roles[s.Key] = s.Role
		if s.Key == "task" {
			for _, c := range s.Children {
				if c.Key == "diff" && c.Trust != prompt.Untrusted {
					t.Errorf("the diff is not untrusted")
				}
			}
		}
	}
	if roles["role"] != prompt.RoleSystem || roles["rules"] != prompt.RoleSystem || roles["task"] != prompt.RoleUser {
		t.Errorf("roles %v", roles)
	}
	if l.Messages != 2 {
		t.Errorf("messages %d, want 2 (system and user)", l.Messages)
	}
	if l.Output == nil || !strings.HasPrefix(string(l.Output.Schema), `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object"`) {
		t.Errorf("array output not wrapped: %v", l.Output)
	}
}

func TestMissingValues(t *testing.T) {
	tpl := parseExample(t)
	_, err := tpl.Layout(Values{"repo": stringValue("x")}, Options{})
	want := "typed/code-review.yaml: template review/code-review needs a value for files (list, line 15), diff (string, line 24)"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestParseErrors checks that each problem in a template is reported at
// its line and column, with what to do.
func TestParseErrors(t *testing.T) {
	head := "ns: t\nkey: k\nparams:\n  - {name: on, type: boolean}\n  - {name: who, type: string}\n"
	tests := []struct{ src, want string }{
		{"", "t.yaml:1:1: the file is empty"},
		{"- a\n", "t.yaml:1:1: want a mapping"},
		{"key: k\nsections: [{key: a, template: x}]\n", "t.yaml:1:1: ns is required"},
		{"ns: T\nkey: k\nsections: [{key: a, template: x}]\n", `t.yaml:1:1: ns "T": use 1 to 64 lower-case`},
		{"ns: t\nkey: k\nsection: []\n", `t.yaml:3:1: unknown key "section"`},
		{"ns: t\nkey: k\n", "sections: write at least one section"},
		{head + "sections:\n  - key: a\n    template: |\n      Hi $nobody.\n", "t.yaml:9:10: $nobody is not a declared parameter: declare it under params, or write $$ for a dollar sign: the parameters are on, who"},
		{head + "sections:\n  - key: a\n    template: |\n      Costs $5.\n", `t.yaml:9:13: "$5." is not a placeholder`},
		{head + "sections:\n  - key: a\n    template: \"x ${who\"\n", `t.yaml:8:18: "${who" is not a placeholder`},
		{head + "sections:\n  - {key: a, template: x, enabled: who}\n", `t.yaml:7:27: section "a": enabled names "who", a string: only a boolean parameter may enable a section`},
		{head + "sections:\n  - {key: a, template: x, enabled: \"!off\"}\n", `section "a": enabled names "off", which is not a declared parameter`},
		{head + "sections:\n  - {key: A, template: x}\n", `t.yaml:7:6: section key "A"`},
		{head + "sections:\n  - {key: a, template: x}\n  - {key: a, template: y}\n", `t.yaml:8:6: section "a" is repeated (first at line 7)`},
		{head + "sections:\n  - {key: a}\n", `t.yaml:7:5: section "a" has neither a template nor children`},
		{head + "sections:\n  - {key: a, template: x}\n", `t.yaml:7:5: section "a" has no title: add title:, its heading`},
		{head + "sections:\n  - {key: a, template: x, visibility: summary}\n", `section "a": visibility summary needs a summary:`},
		{head + "sections:\n  - {key: a, template: x, trim: oldest}\n", `section "a": trim oldest works on items`},
		{head + "sections:\n  - key: a\n    template: x\n    children:\n      - {key: b, template: y, role: system}\n", `section "a/b": role is set on top-level sections only`},
		{"ns: t\nkey: k\nparams:\n  - {name: x, type: text}\nsections: [{key: a, template: x}]\n", `t.yaml:4:15: param "x": unknown type "text": use string, integer, number, boolean or list`},
		{"ns: t\nkey: k\nparams:\n  - {name: x, type: string}\n  - {name: x, type: string}\nsections: [{key: a, template: x}]\n", `param "x" is declared twice (first at line 4)`},
		{"ns: t\nkey: k\nparams:\n  - {name: 1x, type: string}\nsections: [{key: a, template: x}]\n", `param "1x": a name is letters`},
		{"ns: t\nkey: k\nparams:\n  - {name: n, type: integer, default: two}\nsections: [{key: a, template: x}]\n", `t.yaml:4:39: n: want a whole number, found the text "two"`},
		{"ns: t\nkey: k\nsections: [{key: a, template: x}]\noutput: {schema: {type: array}}\n", `output schema: want a JSON Schema with "type": "object"`},
		{"ns: t\nkey: k\nsections: [{key: a, template: x}]\noutput: {container: list, schema: {type: object}}\n", `output container "list": use object`},
		{"ns: t\nkey: k\nsections: [{key: a, template: x}]\noutput: {schema: {type: object, properties: {a: {$ref: \"https://example.com/a.json\"}}}}\n", `t.yaml:4:50: output schema: /properties/a/$ref: "https://example.com/a.json" refers to a schema outside this one`},
	}
	for _, tt := range tests {
		_, err := Parse("t.yaml", []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q:\n got %v\nwant %s", tt.src, err, tt.want)
		}
	}
}

func TestParseValuesErrors(t *testing.T) {
	tpl := mustParse(t, `ns: t
key: k
params:
  - {name: repo, type: string}
  - {name: n, type: integer}
  - {name: x, type: number}
  - {name: on, type: boolean}
  - {name: files, type: list}
sections: [{key: a, title: A, template: "$repo $n $x $on $files"}]
`)
	tests := []struct{ src, want string }{
		{"repp: a\n", `p.yaml:1:1: unknown parameter "repp": did you mean "repo"? the parameters are repo, n, x, on, files`},
		{"n: 1.5\n", `p.yaml:1:4: n: want a whole number, found the number 1.5`},
		{"x: '1'\n", `p.yaml:1:4: x: want a number written in decimal`},
		{"on: yes\n", `p.yaml:1:5: on: want true or false, found the text "yes"`},
		{"files: a\n", `p.yaml:1:8: files: want a list of text`},
		{"files: [a, {b: c}]\n", `p.yaml:1:12: files: item 2: want text, found a mapping`},
		{"repo: true\n", `p.yaml:1:7: repo: want text, found true (quote it to use it as text)`},
		{"[1]\n", `p.yaml:1:1: want a mapping of parameter names to values`},
		{"repo: a\nrepo: b\n", `repeated`},
	}
	for _, tt := range tests {
		_, err := tpl.ParseValues("p.yaml", []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q:\n got %v\nwant %s", tt.src, err, tt.want)
		}
	}
	vals, err := tpl.ParseValues("p.json", []byte(`{"repo": "acme/api", "n": 7, "x": 2.5e3, "on": false, "files": ["a.go", "b.go"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := layoutText(t, tpl, vals, Options{}); got != "## 1. A\nacme/api 7 2.5e3 false - a.go\n- b.go" {
		t.Errorf("JSON values: %q", got)
	}
}

type reviewParams struct {
	Repo        string
	Files       []string
	MaxComments int `param:"max_comments"`
	Strict      bool
}

type diffParams struct {
	Diff    string
	Comment string `param:"-"`
}

func TestBind(t *testing.T) {
	tpl := parseExample(t)
	vals, err := tpl.Bind(reviewParams{Repo: "acme/api", Files: []string{"a.go"}, MaxComments: 2, Strict: true}, &diffParams{Diff: "+x"})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := layoutText(t, tpl, vals, Options{})
	for _, want := range []string{"changes to acme/api", "at most 2 comments", "- a.go", "Strict mode", "~~~text\n+x\n~~~"} {
		if !strings.Contains(text, want) {
			t.Errorf("bound prompt lacks %q:\n%s", want, text)
		}
	}
	type other struct{ Nope string }
	type wrong struct{ Repo int }
	for _, tt := range []struct {
		args []any
		want string
	}{
		{[]any{reviewParams{}, reviewParams{}}, "two values of typed.reviewParams"},
		{[]any{other{}}, `field typed.other.Nope binds "nope", which the template does not declare`},
		{[]any{wrong{}}, `a int cannot bind string parameter "repo"`},
		{[]any{"x"}, "Bind takes structs, not string"},
		{[]any{reviewParams{}, struct{ Repo string }{}}, `parameter "repo" is bound twice`},
	} {
		_, err := tpl.Bind(tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Bind(%v): %v, want %q", tt.args, err, tt.want)
		}
	}
	for in, want := range map[string]string{"RepoURL": "repo_url", "MaxComments": "max_comments", "ID": "id", "HTTPServer": "http_server", "A": "a"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOverrides(t *testing.T) {
	tpl := parseExample(t)
	d := tpl.Descriptor()
	vals, _ := tpl.valuesOf(tpl.Path(), tpl.Fixtures[0].Params)
	good := "ns: review\nkey: code-review\nsections:\n  - path: task\n    hash: " + d.Sections["task"] + "\n    body: |\n      Review $repo briefly.\ntools:\n  - name: read_file\n    hash: " + d.Tools["read_file"] + "\n    description: Read one file.\n"
	ov, err := tpl.ParseOverrides("o.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	text, l := layoutText(t, tpl, vals, Options{Overrides: ov})
	if !strings.Contains(text, "## 3. Task\nReview acme/billing briefly.") || len(l.Notes) != 0 {
		t.Errorf("override not applied (notes %q):\n%s", l.Notes, text)
	}
	var desc string
	for _, s := range l.Sections {
		for _, tl := range s.Tools {
			if tl.Name == "read_file" {
				desc = tl.Description
			}
		}
	}
	if desc != "Read one file." {
		t.Errorf("tool description %q", desc)
	}

	stale := strings.Replace(good, d.Sections["task"], strings.Repeat("0", 64), 1)
	ov, err = tpl.ParseOverrides("o.yaml", []byte(stale))
	if err != nil {
		t.Fatal(err)
	}
	text, l = layoutText(t, tpl, vals, Options{Overrides: ov})
	if strings.Contains(text, "briefly") || len(l.Notes) != 1 || !strings.HasPrefix(l.Notes[0], `note: o.yaml: the override of section "task" is stale and left out: it was written for hash 000000000000…, and the section's template now hashes to `+d.Sections["task"]) {
		t.Errorf("stale override: notes %q\n%s", l.Notes, text)
	}

	for _, tt := range []struct{ src, want string }{
		{"ns: review\nkey: other\n", "o.yaml:1:1: overrides for review/other, but the template is review/code-review"},
		{"ns: review\nkey: code-review\nsections:\n  - {path: nope, hash: x, body: y}\n", `o.yaml:4:6: template review/code-review has no section "nope": the overridable sections are lookup, role, rules, strict, task, task/diff, task/files`},
		{"ns: review\nkey: code-review\nsections:\n  - {path: task, hash: x, body: $nobody}\n", `o.yaml:4:18: hash "x": want the 64 lower-case hex digits`},
		{"ns: review\nkey: code-review\ntools:\n  - {name: write_file, hash: x}\n", `o.yaml:4:6: template review/code-review has no tool "write_file": its tools are read_file`},
		{"ns: review\nkey: code-review\nsections:\n  - {path: task, hash: x}\n", `override of section "task" has no body`},
	} {
		_, err := tpl.ParseOverrides("o.yaml", []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q:\n got %v\nwant %s", tt.src, err, tt.want)
		}
	}
	locked := mustParse(t, "ns: t\nkey: k\nsections: [{key: a, title: A, template: x, overridable: false}]\n")
	if _, err := locked.ParseOverrides("o.yaml", []byte("ns: t\nkey: k\nsections: [{path: a, hash: x, body: y}]\n")); err == nil || !strings.Contains(err.Error(), `section "a" does not accept overrides`) {
		t.Errorf("overridable false: %v", err)
	}
}

func TestRedaction(t *testing.T) {
	tpl := mustParse(t, "ns: t\nkey: k\nparams: [{name: s, type: string}, {name: l, type: list}]\nsections: [{key: a, title: A, template: \"$s\\n$l\"}]\n")
	key := "sk-proj-" + strings.Repeat("a1B2", 12)
	vals := Values{"s": stringValue("token " + key), "l": listValue([]string{"x " + key})}
	text, l := layoutText(t, tpl, vals, Options{Redactor: guard.Default()})
	if strings.Contains(text, key) || len(l.Redactions) == 0 {
		t.Errorf("secret not redacted (%v):\n%s", l.Redactions, text)
	}
}

func TestParseReply(t *testing.T) {
	tpl := parseExample(t)
	good := `{"file":"invoice/total.go","line":12,"severity":"blocking","comment":"Off by one."}`
	tests := []struct{ reply, want, err string }{
		{reply: "```json\n{\"items\": [" + good + "]}\n```", want: "[" + good + "]"},
		{reply: "Comments:\n[" + good + "]\nDone.", want: "[" + good + "]"},
		{reply: "[]", want: "[]"},
		{reply: `{"items": [{"file": "a.go", "line": "12", "severity": "major", "comment": "x", "extra": 1}]}`, err: `review_comments:1:1: /items/0/line: got string, want integer; /items/0/severity: value must be one of 'blocking', 'suggestion', 'nit'; /items/0/extra: a key the schema does not declare: remove it, or read the reply with extra keys ignored`},
		{reply: "[" + good + ", {\"file\": \"b.go\"}]", err: `review_comments:1:1: /1/comment: missing: the schema requires it; /1/line: missing: the schema requires it; /1/severity: missing: the schema requires it`},
		{reply: "I have no comments.", err: "review_comments: the reply holds no JSON array (or {\"items\": [...]}) (fenced as ```json, or bare)"},
	}
	for _, tt := range tests {
		got, err := tpl.ParseReply([]byte(tt.reply))
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q:\n got %v\nwant %s", tt.reply, err, tt.err)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("%q: %s %v, want %s", tt.reply, got, err, tt.want)
		}
	}
	obj := mustParse(t, "ns: t\nkey: k\nsections: [{key: a, title: A, template: x}]\noutput: {schema: {type: object, properties: {ok: {type: boolean}}, required: [ok]}}\n")
	if got, err := obj.ParseReply([]byte(`Sure: {"ok": true}`)); err != nil || string(got) != `{"ok":true}` {
		t.Errorf("object reply: %s %v", got, err)
	}
	none := mustParse(t, "ns: t\nkey: k\nsections: [{key: a, title: A, template: x}]\n")
	if _, err := none.ParseReply([]byte(`{}`)); err == nil || !strings.Contains(err.Error(), "declares no output") {
		t.Errorf("no output: %v", err)
	}
}

func TestExpansion(t *testing.T) {
	tpl := parseExample(t)
	got, err := tpl.Expansion([]byte(`{"section_keys": ["rules"], "reason": "need the rules"}`))
	if err != nil || strings.Join(got, ",") != "rules" {
		t.Errorf("Expansion: %v %v", got, err)
	}
	for _, bad := range []struct{ args, want string }{
		{`{"section_keys": ["role"]}`, `"role" is not a summarized section of review/code-review; they are rules`},
		{`{"section_keys": []}`, "names no section_keys"},
		{`not json`, "open_sections call: invalid character"},
	} {
		if _, err := tpl.Expansion([]byte(bad.args)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Expansion(%s): %v, want %q", bad.args, err, bad.want)
		}
	}
}

// TestTemplateConcurrent: a parsed template lays out and parses replies
// from many goroutines at once (run with -race), each as alone.
func TestTemplateConcurrent(t *testing.T) {
	tpl := parseExample(t)
	vals, err := tpl.valuesOf(tpl.Path(), tpl.Fixtures[0].Params)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := layoutText(t, tpl, vals, Options{})
	reply := []byte(`{"items": [{"file":"a.go","line":1,"severity":"nit","comment":"x"}]}`)
	errs := make(chan string, 8)
	for range 8 {
		go func() {
			l, err := tpl.Layout(vals, Options{})
			if err != nil {
				errs <- err.Error()
				return
			}
			if got := render.Render(l.Sections, l.Style).Text; got != want {
				errs <- "a concurrent layout differs"
				return
			}
			if _, err := tpl.ParseReply(reply); err != nil {
				errs <- err.Error()
				return
			}
			errs <- ""
		}()
	}
	for range 8 {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}

// TestExampleOverrides keeps the example's overrides honest: the task's
// applies, the rules' is stale on purpose. An edit to the template's task
// section fails here until the example override's hash is updated.
func TestExampleOverrides(t *testing.T) {
	tpl := parseExample(t)
	data, err := os.ReadFile("../../examples/typed/overrides/code-review.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ov, err := tpl.ParseOverrides("overrides/code-review.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(ov.Notes) != 1 || !strings.Contains(ov.Notes[0], `section "rules" is stale`) {
		t.Errorf("notes %q, want the rules override alone stale", ov.Notes)
	}
	if _, ok := ov.sections["task"]; !ok {
		t.Error("the task override does not apply")
	}
	if _, ok := ov.tools["read_file"]; !ok {
		t.Error("the read_file override does not apply")
	}
}

// TestDisclosureTools: a summarized section with tools is opened with
// open_sections and its tools wait until then; one without is read with
// read_section, whose answer is the section in full.
func TestDisclosureTools(t *testing.T) {
	tpl := mustParse(t, `ns: t
key: k
params: [{name: who, type: string, default: Ada}]
sections:
  - {key: a, title: A, template: "Hello $who."}
  - key: policy
    title: Policy
    visibility: summary
    summary: Be brief.
    template: Never use first names, $who included.
    children:
      - {key: tone, title: Tone, template: Plain words.}
  - key: admin
    title: Admin
    visibility: summary
    summary: Admin tools.
    template: Use the admin tools with care.
    tools: [{name: reset_password, description: Reset a password.}]
`)
	text, l := layoutText(t, tpl, nil, Options{})
	tools := map[string]string{}
	for _, s := range l.Sections {
		for _, tl := range s.Tools {
			tools[tl.Name] = s.Key + " " + string(tl.Parameters)
		}
	}
	if _, ok := tools["reset_password"]; ok {
		t.Error("a summarized section's tool was offered before it was opened")
	}
	if !strings.HasPrefix(tools[ReadSectionTool], `policy {"type":"object","properties":{"section_key":{"type":"string","enum":["policy"]`) || !strings.HasPrefix(tools[OpenSectionsTool], `admin {"type":"object","properties":{"section_keys":{"type":"array","items":{"type":"string","enum":["admin"]}`) {
		t.Errorf("disclosure tools %v", tools)
	}
	for _, want := range []string{`(This is a summary. Call read_section with "policy" for the full section.)`, `(This is a summary. Call open_sections with "admin" to open the full section and its tools.)`} {
		if !strings.Contains(text, want) {
			t.Errorf("prompt lacks %q:\n%s", want, text)
		}
	}
	got, err := tpl.ReadSection([]byte(`{"section_key": "policy"}`), nil, Options{})
	if want := "## Policy\nNever use first names, Ada included.\n\n### Tone\nPlain words."; err != nil || got != want {
		t.Errorf("ReadSection = %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{`{"section_key": "admin"}`, `{"section_key": "a"}`, `{"section_key": "nope"}`} {
		if _, err := tpl.ReadSection([]byte(bad), nil, Options{}); err == nil || !strings.Contains(err.Error(), "those are policy") {
			t.Errorf("ReadSection(%s): %v", bad, err)
		}
	}
	paths, err := tpl.Expansion([]byte(`{"section_keys": ["admin"], "reason": "reset"}`))
	if err != nil {
		t.Fatal(err)
	}
	_, l = layoutText(t, tpl, nil, Options{Expand: paths})
	var opened []string
	for _, s := range l.Sections {
		for _, tl := range s.Tools {
			opened = append(opened, tl.Name)
		}
	}
	if strings.Join(opened, ",") != "read_section,reset_password" {
		t.Errorf("tools once admin is open: %v", opened)
	}
}
