package typed

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
)

// chain returns a template whose sections nest depth deep, one per level.
func chain(depth int) string {
	var b strings.Builder
	b.WriteString("ns: t\nkey: k\nsections:\n")
	indent := ""
	for i := range depth {
		fmt.Fprintf(&b, "%s- key: s%d\n%s  title: Level %d\n%s  template: text %d\n", indent, i, indent, i, indent, i)
		if i < depth-1 {
			fmt.Fprintf(&b, "%s  children:\n", indent)
		}
		indent += "    "
	}
	return b.String()
}

// TestDepthLimit: sections nest at most maxDepth deep, the deepest a
// Markdown heading goes; deeper is refused at parse time, at the line
// and column of the first section too deep, however deep the file goes,
// and quickly.
func TestDepthLimit(t *testing.T) {
	if _, err := Parse("t.yaml", []byte(chain(maxDepth))); err != nil {
		t.Fatalf("%d levels: %v", maxDepth, err)
	}
	tpl := mustParse(t, chain(maxDepth))
	text, _ := layoutText(t, tpl, nil, Options{})
	if !strings.Contains(text, "###### 1.1.1.1.1. Level 4") {
		t.Errorf("the deepest heading:\n%s", text)
	}
	_, err := Parse("t.yaml", []byte(chain(maxDepth+1)))
	if err == nil || !strings.Contains(err.Error(), `t.yaml:24:23: section "s0/s1/s2/s3/s4/s5" is nested 6 deep: sections nest at most 5 deep`) {
		t.Errorf("%d levels: %v", maxDepth+1, err)
	}
	if _, err := Parse("t.yaml", []byte(chain(60))); err == nil {
		t.Error("60 levels parsed")
	}
	// A hand-built template too deep is an error from Layout.
	deep := &Template{NS: "t", Key: "k"}
	secs := &deep.Sections
	for i := range maxDepth + 1 {
		s := &SectionSpec{Key: fmt.Sprintf("s%d", i), Title: "T", Body: mustText(t, "x")}
		*secs = append(*secs, s)
		secs = &s.Children
	}
	if _, err := deep.Layout(nil, Options{}); err == nil || !strings.Contains(err.Error(), "nested 6 deep") {
		t.Errorf("hand-built, too deep: %v", err)
	}
}

func mustText(t *testing.T, src string) *Text {
	t.Helper()
	txt, errs := parseText(src)
	if len(errs) > 0 {
		t.Fatal(errs[0].msg)
	}
	return txt
}

// TestToolNamesAtParse: a tool two sections define differently, and a
// tool that takes the name of a disclosure tool, are errors at parse
// time, at the name's line and column, naming the section at fault.
func TestToolNamesAtParse(t *testing.T) {
	two := `ns: t
key: k
sections:
  - key: a
    title: A
    template: x
    tools: [{name: read_file, description: Read a file.}]
  - key: b
    title: B
    template: y
    tools: [{name: read_file, description: Read any file.}]
`
	_, err := Parse("t.yaml", []byte(two))
	if err == nil || !strings.Contains(err.Error(), `t.yaml:11:14: section "b": tool "read_file" is defined differently by section "a" at line 7`) {
		t.Errorf("two definitions: %v", err)
	}
	same := strings.Replace(two, "Read any file.", "Read a file.", 1)
	if _, err := Parse("t.yaml", []byte(same)); err != nil {
		t.Errorf("the same definition twice: %v", err)
	}
	for _, name := range []string{ReadSectionTool, OpenSectionsTool} {
		src := strings.Replace(same, "name: read_file, description: Read a file.}]\n  - key: b", "name: "+name+"}]\n  - key: b", 1)
		_, err := Parse("t.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf(`t.yaml:7:14: section "a": tool %q: the name is the preset's own disclosure tool`, name)) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestTitlesOneLine: a title is one non-empty line.
func TestTitlesOneLine(t *testing.T) {
	for _, tt := range []struct{ title, want string }{
		{`"Line1\n## 9. Injected heading"`, `t.yaml:3:34: section "a": the title spans lines`},
		{`"   "`, `t.yaml:3:34: section "a": the title is blank`},
		{`" padded "`, `t.yaml:3:34: section "a": the title has spaces at its start or end`},
	} {
		_, err := Parse("t.yaml", []byte("ns: t\nkey: k\nsections: [{key: a, template: x, title: "+tt.title+"}]\n"))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("title %s: %v, want %q", tt.title, err, tt.want)
		}
	}
	hb := &Template{NS: "t", Key: "k", Sections: []*SectionSpec{{Key: "a", Title: "x\n## 2. y", Body: mustText(t, "z")}}}
	if _, err := hb.Layout(nil, Options{}); err == nil || !strings.Contains(err.Error(), "spans lines") {
		t.Errorf("hand-built: %v", err)
	}
}

// TestDedent: a template's common indent is removed before it is
// substituted and stripped, as Python's textwrap.dedent does.
func TestDedent(t *testing.T) {
	tpl := mustParse(t, "ns: t\nkey: k\nparams: [{name: v, type: string}]\nsections: [{key: a, title: A, template: \"    line1\\n    line2 $v\\n\\n      deeper\\n\"}]\n")
	text, _ := layoutText(t, tpl, Values{"v": stringValue("x\n    kept")}, Options{})
	if want := "## 1. A\nline1\nline2 x\n    kept\n\n  deeper"; text != want {
		t.Errorf("got\n%q\nwant\n%q", text, want)
	}
	for in, want := range map[string]string{
		"  a\n\tb":             "  a\n\tb",
		"  a\n    b\n":         "a\n  b\n",
		"\t\ta\n\t\t\tb":       "a\n\tb",
		"  a\n  \n  b":         "a\n\nb",
		"no indent\n  x":       "no indent\n  x",
		"   \n   ":             "\n",
		" x":                   "x",
		"    line1\n    line2": "line1\nline2",
	} {
		if got := dedent(in); got != want {
			t.Errorf("dedent(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNumbersShortest: a bound float is written in the shortest form
// that reads back to it, and a YAML number beyond a double's range is
// refused by name.
func TestNumbersShortest(t *testing.T) {
	tpl := mustParse(t, "ns: t\nkey: k\nparams: [{name: x, type: number}]\nsections: [{key: a, title: A, template: $x}]\n")
	for _, tt := range []struct {
		v    any
		want string
	}{
		{struct{ X float64 }{1e300}, "1e+300"},
		{struct{ X float64 }{0.1}, "0.1"},
		{struct{ X float64 }{1500}, "1500"},
		{struct{ X float64 }{-2.5e-9}, "-2.5e-9"},
		{struct{ X float32 }{0.1}, "0.1"},
	} {
		vals, err := tpl.Bind(tt.v)
		if err != nil || vals["x"].Text != tt.want || string(vals["x"].JSON) != tt.want {
			t.Errorf("%v: %q %v, want %q", tt.v, vals["x"].Text, err, tt.want)
		}
	}
	_, err := Parse("t.yaml", []byte("ns: t\nkey: k\nparams: [{name: x, type: number, default: 1e400}]\nsections: [{key: a, title: A, template: $x}]\n"))
	if err == nil || !strings.Contains(err.Error(), "t.yaml:3:43: x: the number 1e400 is outside the range of a double") {
		t.Errorf("1e400: %v", err)
	}
}

// TestRenderTwentySections is the size the benchmark renders, checked
// once for its shape.
func TestRenderTwentySections(t *testing.T) {
	tpl := mustParse(t, twentySections())
	text, _ := layoutText(t, tpl, nil, Options{})
	if !strings.Contains(text, "## 20. Section 19") {
		t.Error(text)
	}
	_ = render.Plain
}

func twentySections() string {
	var b strings.Builder
	b.WriteString("ns: t\nkey: k\nparams: [{name: who, type: string, default: the reviewer}]\nsections:\n")
	for i := range 20 {
		fmt.Fprintf(&b, "  - key: s%d\n    title: Section %d\n    template: |\n      Paragraph %d for $who: keep the change small, name every file you touch,\n      and say why each edit is needed. Tests come with the change.\n", i, i, i)
	}
	return b.String()
}

// TestOutputCapBeforeRender: a layout whose titles and bodies alone are
// over the output cap is refused by Load, before the engine renders it.
func TestOutputCapBeforeRender(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/t.yaml"
	if err := os.WriteFile(path, []byte(twentySections()), 0o644); err != nil {
		t.Fatal(err)
	}
	env := &preset.Env{}
	env.Limits.MaxOutputBytes = 500
	_, err := New().Load(context.Background(), env, preset.Args{InputTemplate: path})
	if err == nil || !strings.Contains(err.Error(), "over the 500-byte output cap") {
		t.Errorf("got %v", err)
	}
	env.Limits.MaxOutputBytes = 1 << 20
	if _, err := New().Load(context.Background(), env, preset.Args{InputTemplate: path}); err != nil {
		t.Error(err)
	}
}

func TestValidKeyMatchesPrompt(t *testing.T) {
	for _, k := range []string{"", "a", "A", "a.b", ".a", "_a", "-a", "a_b-c.d", "9", strings.Repeat("a", 64), strings.Repeat("a", 65), "a/b", "é"} {
		if validKey(k) != prompt.ValidKey(k) {
			t.Errorf("%q: %v, prompt says %v", k, validKey(k), prompt.ValidKey(k))
		}
	}
}
