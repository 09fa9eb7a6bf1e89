package yamldoc

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/prompt"
)

// TestSyntaxErrorLines pins the line (and column) of each syntax error to
// the line a reader would point at: where the parser found the problem,
// not one line before it.
func TestSyntaxErrorLines(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       string // path:line[:col]: message prefix
	}{
		{"unclosed flow sequence", "a: 1\nb: [1, 2\nc: 3\n", "f.yaml:3:2: not valid YAML: did not find expected ',' or ']'"},
		{"unclosed flow mapping", "a: 1\nb: {x: 1\nc: 2\n", "f.yaml:3:2: not valid YAML: did not find expected ',' or '}'"},
		{"tab indentation", "a: 1\n\tb: 2\n", "f.yaml:2:1: not valid YAML: found a tab character that violates indentation"},
		{"dedented list item", "a: 1\nb:\n  - x\n - y\n", "f.yaml:4:2: not valid YAML: did not find expected key"},
		{"mapping in a plain value", "a: 1\nb: c: d\n", "f.yaml:2:5: not valid YAML: mapping values are not allowed in this context"},
		{"over-indented key", "a: 1\n  b: 2\n", "f.yaml:2:4: not valid YAML: mapping values are not allowed in this context"},
		{"reserved indicator", "a: 1\nb: @x\n", "f.yaml:2:4: not valid YAML: found character that cannot start any token"},
		{"unknown alias", "a: 1\nb: *nope\n", "f.yaml:2:4: not valid YAML: unknown anchor 'nope' referenced"},
		{"list after mapping", "a: 1\n- b\n", "f.yaml:2:1: not valid YAML: did not find expected key"},
		{"unterminated quote at the end", "a: 1\nb: 'x\n", "f.yaml:2: not valid YAML: found unexpected end of stream"},
		{"unterminated double quote", "a: 1\nb: \"x\nc: 3\n", "f.yaml:3: not valid YAML: found unexpected end of stream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseText("f.yaml", tc.text)
			var list diag.List
			if !errors.As(err, &list) || len(list) != 1 {
				t.Fatalf("err = %v, want one diagnostic", err)
			}
			if got := list[0].Error(); !strings.HasPrefix(got, tc.want) {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestRepeatedKeys(t *testing.T) {
	text := "a: 1\nb:\n  c: 1\n  d: [{e: 1, e: 2}]\n  c: 2\na: 3\n"
	_, err := ParseText("f.yaml", text)
	want := []string{
		`f.yaml:4: key "b.d[0].e" is repeated (first at line 4): keep one`,
		`f.yaml:5: key "b.c" is repeated (first at line 3): keep one`,
		`f.yaml:6: key "a" is repeated (first at line 1): keep one`,
	}
	var list diag.List
	if !errors.As(err, &list) {
		t.Fatalf("err = %v, want a diag.List", err)
	}
	list.Sort()
	if len(list) != len(want) {
		t.Fatalf("got %d problems:\n%v\nwant %d", len(list), list, len(want))
	}
	for i, w := range want {
		if got := list[i].Error(); got != w {
			t.Errorf("problem %d:\n got %s\nwant %s", i, got, w)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"second document", "a: 1\n---\nb: 2\n", "f.yaml:2: a second YAML document starts here"},
		{"line separator", "a: 1\n# x\u2028y\n", "f.yaml:2: holds the character U+2028"},
		{"invalid UTF-8", "a: 1\nb: \xff\n", "f.yaml:2: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tc.text))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("err = %v, want prefix %q", err, tc.want)
			}
		})
	}
	n, err := Parse("f.yaml", []byte("\ufeff# only a comment\r\n"))
	if err != nil || n != nil {
		t.Errorf("comment-only file: node %v, err %v; want nil, nil", n, err)
	}
	n, err = Parse("f.yaml", []byte("a: 1\r\nb:\r\n  - 2\r\n"))
	if err != nil || n == nil || n.Content[2].Line != 2 {
		t.Errorf("CRLF file: node %v, err %v; want b at line 2", n, err)
	}
}

// TestParserColumns: with Columns, every problem of ParseText has its
// column, in bytes, and so has every node of the tree, where the YAML
// parser counts characters.
func TestParserColumns(t *testing.T) {
	cols := Parser{Columns: true}
	for _, tc := range []struct {
		name, text string
		want       string
	}{
		{"syntax", "a: 1\nb: [1, 2\nc: 3\n", "f.yaml:3:2: not valid YAML: did not find expected ',' or ']'"},
		{"syntax after wide characters", "é: [1, 2\nüü: x\n", "f.yaml:2:5: not valid YAML: did not find expected ',' or ']'"},
		{"end of the file", "a: 1\nb: 'x\n", "f.yaml:2:6: not valid YAML: found unexpected end of stream"},
		{"end of the file, no newline", "a: 1\nbé: 'x", "f.yaml:2:8: not valid YAML: found unexpected end of stream"},
		{"second document", "a: 1\n---\nb: 2\n", "f.yaml:2:1: a second YAML document starts here"},
		{"line separator", "a: 1\n# éx\u2028y\n", "f.yaml:2:6: holds the character U+2028"},
		{"repeated key", "a:\n  b: 1\n  b: 2\n", `f.yaml:3:3: key "a.b" is repeated (first at line 2): keep one`},
		{"repeated key in a flow mapping", "é: {ü: 1, ü: 2}\n", `f.yaml:1:13: key "é.ü" is repeated (first at line 1): keep one`},
		{"invalid UTF-8", "a: 1\nbb: \xff\n", "f.yaml:2:5: invalid UTF-8"},
		{"control character", "a: 1\nbé: \x10\n", "f.yaml:2:6: not valid YAML: control characters are not allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cols.Parse("f.yaml", []byte(tc.text))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("err = %v, want prefix %q", err, tc.want)
			}
		})
	}
	// Without Columns, the same problems keep to their lines.
	if _, err := ParseText("f.yaml", "a:\n  b: 1\n  b: 2\n"); err == nil || !strings.HasPrefix(err.Error(), "f.yaml:3: key") {
		t.Errorf("repeated key without columns: %v", err)
	}
	if _, err := Parse("f.yaml", []byte("a: 1\nbb: \xff\n")); err == nil || !strings.HasPrefix(err.Error(), "f.yaml:2: invalid UTF-8") {
		t.Errorf("invalid UTF-8 without columns: %v", err)
	}

	text := "é: 1\nb: {ééé: x, c: [ü, y]}\n\"ü\": z\n"
	top, err := cols.ParseText("f.yaml", text)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode {
			got = append(got, fmt.Sprintf("%s@%d:%d", n.Value, n.Line, n.Column))
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(top)
	want := []string{"é@1:1", "1@1:5", "b@2:1", "ééé@2:5", "x@2:13", "c@2:16", "ü@2:20", "y@2:24", "ü@3:1", "z@3:7"}
	if !slices.Equal(got, want) {
		t.Errorf("node positions\n got %v\nwant %v", got, want)
	}
}

func FuzzParseText(f *testing.F) {
	for _, s := range []string{"a: 1\n", "a: [1, 2\n", "a: {b: 1, b: 2}\n", "- a\n- b: c\n  b: d\n", "---\na: 1\n---\n", "a: &x 1\nb: *x\n", "\"k\": 1\n'k': 2\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		n, err := ParseText("f.yaml", text)
		if err == nil {
			return
		}
		if n != nil {
			t.Fatalf("node and error both returned")
		}
		var list diag.List
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("error %v is not a diag.List", err)
		}
		lines := strings.Count(text, "\n") + 1
		for _, e := range list {
			if e.Path != "f.yaml" || e.Line < 0 || e.Line > lines {
				t.Fatalf("problem %q: line %d outside 0..%d", e, e.Line, lines)
			}
		}
	})
}

// FuzzParserColumns checks Parser{Columns: true} on any text: the same
// outcome as ParseText; every problem at a line of the text and a column
// of that line (or just past its end); every node at a byte column of its
// line (an empty value aside), where a plain one-line scalar is written
// as it reads.
func FuzzParserColumns(f *testing.F) {
	for _, s := range []string{"a: 1\n", "é: [1, 2\n", "é: {ü: 1, ü: 2}\n", "a: 'x", "ü: é\n---\nb: 2\n", "- ä\n- b: ö\n  ç: d\n", "k: |\n  é\n  ü\n", "\"ä\": [x, {y: ñ}]\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		text, err := prompt.Normalize([]byte(raw)) // as ParseText is given text
		if err != nil {
			return
		}
		plain, perr := ParseText("f.yaml", text)
		n, err := Parser{Columns: true}.ParseText("f.yaml", text)
		if (err == nil) != (perr == nil) || (n == nil) != (plain == nil) {
			t.Fatalf("with columns: %v; without: %v", err, perr)
		}
		lines := strings.Split(text, "\n")
		inLine := func(line, col int) bool {
			return line >= 1 && line <= len(lines) && col >= 1 && col <= len(lines[line-1])+1
		}
		if err != nil {
			var list diag.List
			if !errors.As(err, &list) {
				t.Fatalf("error %v is not a diag.List", err)
			}
			for _, e := range list {
				if !inLine(e.Line, e.Col) {
					t.Fatalf("problem %q is not at a column of the text", e)
				}
			}
			return
		}
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			if n.Kind == yaml.ScalarNode && n.Value == "" {
				return // an empty value may be placed past the end of the text
			}
			if !inLine(n.Line, n.Column) {
				t.Fatalf("node %q at %d:%d, outside the text", n.Value, n.Line, n.Column)
			}
			at := lines[n.Line-1][n.Column-1:]
			tagged := strings.HasPrefix(at, "!") || strings.HasPrefix(at, "&") // a node with a tag or an anchor starts there
			if n.Kind == yaml.ScalarNode && n.Style == 0 && !tagged && n.Value != "" && !strings.ContainsAny(n.Value, " \t\n") &&
				!strings.HasPrefix(at, n.Value) {
				t.Fatalf("plain scalar %q at %d:%d reads %q there", n.Value, n.Line, n.Column, at)
			}
			for _, c := range n.Content {
				walk(c)
			}
		}
		if n != nil {
			walk(n)
		}
	})
}
