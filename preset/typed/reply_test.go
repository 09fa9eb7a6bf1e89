package typed

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/output"
)

const objectTemplate = `ns: t
key: k
sections: [{key: a, title: A, template: x}]
output:
  schema:
    type: object
    properties:
      line: {type: integer}
      file: {type: string}
    required: [line, file]
`

func TestReplyContainer(t *testing.T) {
	obj := mustParse(t, objectTemplate)
	arr := parseExample(t)
	good := `{"file":"a.go","line":1,"severity":"nit","comment":"x"}`
	for _, tt := range []struct {
		name  string
		tpl   *Template
		reply string
		want  string
	}{
		{"object template, two objects in a list", obj, `[{"line":1,"file":"a"},{"line":2,"file":"b"}]`, "want a JSON object; the reply holds a JSON array"},
		{"array template, an object of another shape", arr, `{"summary": "x", "findings": [` + good + `]}`, `want a JSON array (or {"items": [...]}); the reply holds a JSON object with the keys "summary", "findings"`},
		{"array template, wrapper with another key", arr, `{"items": [` + good + `], "note": "x"}`, "/note: a key the schema does not declare"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.tpl.ParseReply([]byte(tt.reply))
			var oe *output.Error
			if err == nil || !errors.As(err, &oe) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %s, %v; want an error containing %q", got, err, tt.want)
			}
		})
	}
}

func TestReplyExtraPolicy(t *testing.T) {
	reply := []byte(`{"file": "a.go", "line": 3, "why": "x"}`)
	obj := mustParse(t, objectTemplate)
	_, err := obj.ParseReply(reply)
	var oe *output.Error
	if !errors.As(err, &oe) || len(oe.Problems) != 1 || oe.Problems[0].Pointer != "/why" || oe.Problems[0].Col != 29 {
		t.Fatalf("forbid by default: %v", err)
	}
	ignore := output.Ignore
	res, err := obj.ParseReplyWith(reply, ReplyOptions{Extra: &ignore})
	if err != nil || string(res.Value) != `{"line":3,"file":"a.go"}` || !slices.Equal(res.Dropped, []string{"/why"}) {
		t.Fatalf("ignore per call: %v %v", res, err)
	}
	tpl := mustParse(t, strings.Replace(objectTemplate, "output:\n", "output:\n  extra: ignore\n", 1))
	if got, err := tpl.ParseReply(reply); err != nil || string(got) != `{"line":3,"file":"a.go"}` {
		t.Fatalf("ignore per template: %s %v", got, err)
	}
	forbid := output.Forbid
	if _, err := tpl.ParseReplyWith(reply, ReplyOptions{Extra: &forbid}); err == nil {
		t.Fatal("forbid per call did not override the template's ignore")
	}
	if _, err := Parse("t.yaml", []byte(strings.Replace(objectTemplate, "output:\n", "output:\n  extra: allow\n", 1))); err == nil || !strings.Contains(err.Error(), `t.yaml:5:3: output extra keys "allow": use forbid`) {
		t.Errorf("a bad policy: %v", err)
	}
}

func TestReplyProblemPointer(t *testing.T) {
	_, err := mustParse(t, objectTemplate).ParseReply([]byte(`{"file": "a.go"}`))
	var oe *output.Error
	if !errors.As(err, &oe) || len(oe.Problems) != 1 || oe.Problems[0].Pointer != "/line" {
		t.Fatalf("got %v", err)
	}
}

func TestReplyTolerant(t *testing.T) {
	obj := mustParse(t, objectTemplate)
	reply := []byte("{file: 'a.go', line: 3,}")
	if _, err := obj.ParseReply(reply); err == nil {
		t.Fatal("repaired without being asked")
	}
	res, err := obj.ParseReplyWith(reply, ReplyOptions{Tolerant: true})
	if err != nil || string(res.Value) != `{"line":3,"file":"a.go"}` || len(res.Repairs) != 4 {
		t.Fatalf("tolerant: %v %v", res, err)
	}
}

// TestHandBuiltTemplate: a Template built from its exported fields
// checks replies against its schema and never panics, and a schema
// changed after Parse is the one used.
func TestHandBuiltTemplate(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)
	obj := &Template{NS: "t", Key: "k", Output: &Output{Schema: schema}}
	if _, err := obj.ParseReply([]byte(`{"ok": "yes"}`)); err == nil {
		t.Error("a hand-built object template validated nothing")
	}
	arr := &Template{NS: "t", Key: "k", Output: &Output{Array: true, Schema: schema}}
	if got, err := arr.ParseReply([]byte(`{"items": [{"ok": true}]}`)); err != nil || string(got) != `[{"ok":true}]` {
		t.Errorf("a hand-built array template: %s %v", got, err)
	}
	if _, err := arr.ParseReply([]byte(`{"items": [{"ok": 1}]}`)); err == nil {
		t.Error("a hand-built array template validated nothing")
	}
	empty := &Template{Output: &Output{}}
	if _, err := empty.ParseReply([]byte(`{}`)); err == nil || !strings.Contains(err.Error(), "has no schema") {
		t.Errorf("no schema: %v", err)
	}
	broken := &Template{Output: &Output{Schema: json.RawMessage(`{"type": 5}`)}}
	if _, err := broken.ParseReply([]byte(`{}`)); err == nil {
		t.Error("an invalid schema compiled")
	}
	tpl := mustParse(t, objectTemplate)
	tpl.Output.Schema = schema
	if got, err := tpl.ParseReply([]byte(`{"ok": true}`)); err != nil || string(got) != `{"ok":true}` {
		t.Errorf("a schema changed after Parse is not used: %s %v", got, err)
	}
	// Layout, Descriptor and the disclosure tools on hand-built sections.
	hb := &Template{NS: "t", Key: "k", Sections: []*SectionSpec{nil, {Key: "a", Title: "A", Summarized: true, Children: []*SectionSpec{nil}}}}
	if _, err := hb.Layout(nil, Options{}); err != nil {
		t.Logf("layout: %v", err)
	}
	_ = hb.Descriptor()
	_, _ = hb.ReadSection([]byte(`{"section_key":"a"}`), nil, Options{})
	_, _ = hb.Expansion([]byte(`{"section_keys":["a"]}`))
	hb.Walk(func(string, *SectionSpec) {})
}
