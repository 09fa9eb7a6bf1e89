package typed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func cloneTemplate(t *testing.T, workspace string) *Template {
	t.Helper()
	return mustParse(t, toolsTemplate(t, workspace))
}

// toolsTemplate is testdata/tools-template.yaml with its workspace.
func toolsTemplate(t *testing.T, workspace string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "tools-template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(data), "WORKSPACE", workspace)
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
