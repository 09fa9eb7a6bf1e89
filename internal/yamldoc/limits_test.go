package yamldoc

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// countNodes returns the nodes of the tree at n, keys included.
func countNodes(n *yaml.Node) int {
	c := 1
	for _, k := range n.Content {
		c += countNodes(k)
	}
	return c
}

// FuzzPrescan checks that prescan's count of values is never below the
// nodes the YAML parser builds, so that the bound it checks before the
// parser runs holds for the tree.
func FuzzPrescan(f *testing.F) {
	for _, s := range []string{
		"a: 1\n", "- 1\n- 2\n", "a:\n- x\nb:\n- y\n", "- - - x\n  - y\n", "- a: 1\n  b: 2\n- c:\n",
		"{a, b: , c}\n", "[a, b: c, ? d]\n", "a: |\n  x: [1, 2]\nb: >-\n  y\n", "a: 'it''s'\nb: \"q\\\"\"\n",
		"a: &x [1, 2]\nb: *x\nc: !!str 3\n", "? a\n: b\n", "-\n-\n", "x: [1,1,1,1]\n", "a: b # c: d\n",
		"k: {a: [1, {b: c}], d: []}\n", "- |\n  text\n- 2\n", "a:\n  b:\n    c:\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if strings.ContainsAny(text, "\r\u0085\u2028\u2029") {
			return
		}
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(text), &doc); err != nil || len(doc.Content) == 0 {
			return
		}
		got, e := prescan("f.yaml", text, 1<<30)
		if e != nil {
			return // too deep for the coarse bound
		}
		if want := countNodes(doc.Content[0]); got < want {
			t.Fatalf("prescan counts %d values, the parser builds %d nodes", got, want)
		}
	})
}

// TestPrescanLinear checks that the documents of issue 19 are refused
// before the parser runs: a long flat list, and nesting far past
// MaxDepth.
func TestPrescanLimits(t *testing.T) {
	list := "x: [" + strings.Repeat("1,", 400_000) + "1]\n"
	if _, err := ParseText("f.yaml", list); err == nil || !strings.Contains(err.Error(), "holds more than") {
		t.Errorf("a list of 400,001 items: %v, want too many values", err)
	}
	if n, _ := prescan("f.yaml", list, 1<<30); n > 400_010 {
		t.Errorf("prescan counts %d values in a list of 400,001", n)
	}
	for name, text := range map[string]string{
		"flow":  strings.Repeat("[", 9990) + strings.Repeat("]", 9990),
		"block": deepBlock(9990),
		"dash":  strings.Repeat("- ", 9990) + "x\n",
	} {
		_, err := ParseText("f.yaml", text)
		if err == nil || !strings.Contains(err.Error(), "nested more than 64 levels") {
			t.Errorf("%s nesting 9,990 deep: %v, want too deep", name, err)
		}
	}
	// At the limit, a document is read; one level more is refused, by the
	// check on the tree.
	if _, err := ParseText("f.yaml", deepBlock(MaxDepth)); err != nil {
		t.Errorf("mappings %d deep: %v", MaxDepth, err)
	}
	if _, err := ParseText("f.yaml", deepBlock(MaxDepth+1)); err == nil || !strings.Contains(err.Error(), "f.yaml:65: mappings and lists are nested more than 64 levels deep here: flatten the data") {
		t.Errorf("mappings %d deep: %v", MaxDepth+1, err)
	}
}

// deepBlock returns mappings nested n deep in block style.
func deepBlock(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i))
		b.WriteString("k:\n")
	}
	return b.String()
}

// TestJSONLimits checks that the JSON reader refuses a document of more
// values than MaxNodes allows, and one nested over MaxDepth, as the YAML
// reader does, and reads one at the limits.
func TestJSONLimits(t *testing.T) {
	var p Parser
	list := "[" + strings.Repeat("1,", 400_000) + "1]"
	_, err := p.ParseJSONText("f.json", list)
	if err == nil || !strings.Contains(err.Error(), "f.json:1: holds more than 112500 values") {
		t.Errorf("a list of 400,001 items: %v, want too many values", err)
	}
	if _, err := p.ParseJSONText("f.json", "["+strings.Repeat("1,", 100_000)+"1]"); err != nil {
		t.Errorf("a list of 100,001 items: %v", err)
	}
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if _, err := p.ParseJSONText("f.json", deep); err != nil {
		t.Errorf("lists %d deep: %v", MaxDepth, err)
	}
	if _, err := p.ParseJSONText("f.json", "["+deep+"]"); err == nil || !strings.Contains(err.Error(), "nested more than 64 deep") {
		t.Errorf("lists %d deep: %v, want too deep", MaxDepth+1, err)
	}
}

// TestLimitColumns checks that a Parser with Columns places the limits'
// problems at their columns too.
func TestLimitColumns(t *testing.T) {
	p := Parser{Columns: true}
	_, err := p.ParseText("f.yaml", "a:\n  b: "+strings.Repeat("[", 200)+"\n")
	if err == nil || !strings.HasPrefix(err.Error(), "f.yaml:2:") {
		t.Errorf("nested 200 deep: %v, want a line and column", err)
	}
	_, err = p.ParseText("f.yaml", deepBlock(MaxDepth+1))
	if err == nil || !strings.HasPrefix(err.Error(), "f.yaml:65:65: mappings and lists are nested more than 64 levels") {
		t.Errorf("mappings %d deep: %v", MaxDepth+1, err)
	}
}
