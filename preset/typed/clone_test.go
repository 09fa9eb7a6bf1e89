package typed

import "testing"

func cloneTemplate(t *testing.T, workspace string) *Template {
	t.Helper()
	return mustParse(t, `ns: t
key: k
params: [{name: deep, type: boolean, default: false}]
sections:
  - key: files
    title: Files
    template: Edit the files.
    workspace: `+workspace+`
    tools:
      - name: write_files
        description: Write files, then maybe fail.
        parameters:
          type: object
          properties:
            files: {type: object, additionalProperties: {type: string}}
            fail: {type: boolean}
            panic: {type: boolean}
          required: [files]
        result: {type: object, properties: {written: {type: integer}}, required: [written]}
  - key: more
    title: More
    visibility: summary
    summary: More rules.
    template: All the rules.
    tools: [{name: lookup, description: Look up.}]
    children:
      - key: inner
        title: Inner
        visibility: summary
        summary: Inner summary.
        template: Inner rules.
        tools: [{name: lookup, description: Look up.}]
  - key: gated
    title: Gated
    enabled: deep
    visibility: summary
    summary: Gated summary.
    template: Gated rules.
    tools: [{name: lookup, description: Look up.}]
`)
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestClone: a clone shares nothing with its original.
func TestClone(t *testing.T) {
	orig := cloneTemplate(t, "ws")
	before, _ := layoutText(t, orig, nil, Options{})
	d := orig.Descriptor()
	c := orig.Clone()
	c.Sections[0].Title = "Changed"
	c.Sections[0].Tools[0].Parameters[0] = '['
	c.Sections[1].Children[0].Key = "changed"
	c.Params[0].Default.Text = "x"
	c.Output = nil
	sc := orig.Sections[1].Clone()
	sc.Children = append(sc.Children, &SectionSpec{Key: "z", Title: "Z"})
	after, _ := layoutText(t, orig, nil, Options{})
	if before != after || orig.Sections[0].Tools[0].Parameters[0] != '{' || orig.Sections[1].Children[0].Key != "inner" || orig.Params[0].Default.Text != "false" || len(orig.Sections[1].Children) != 1 {
		t.Error("changing the clone changed the original")
	}
	if got := orig.Clone().Descriptor(); !equalMaps(got.Sections, d.Sections) || !equalMaps(got.Tools, d.Tools) {
		t.Error("a clone's descriptor differs")
	}
	var nilT *Template
	if nilT.Clone() != nil || (*SectionSpec)(nil).Clone() != nil {
		t.Error("nil clones")
	}
}
