package yamldoc

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/prompt"
)

// fastSame returns where the trees a and b differ, in everything but
// comments, or "" when they do not.
func fastSame(a, b *yaml.Node, at string) string {
	if a == nil || b == nil {
		if a != b {
			return at + ": one tree is nil"
		}
		return ""
	}
	if a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value || a.Anchor != b.Anchor ||
		a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content) || (a.Alias == nil) != (b.Alias == nil) {
		return fmt.Sprintf("%s:\nfast: kind %v style %v tag %s value %q at %d:%d, %d children\nfull: kind %v style %v tag %s value %q at %d:%d, %d children",
			at, a.Kind, a.Style, a.Tag, a.Value, a.Line, a.Column, len(a.Content), b.Kind, b.Style, b.Tag, b.Value, b.Line, b.Column, len(b.Content))
	}
	for i := range a.Content {
		if d := fastSame(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", at, i)); d != "" {
			return d
		}
	}
	return ""
}

// checkFast checks that when the fast reader accepts text, the YAML
// parser accepts it too and builds the same tree, with columns in bytes
// and in characters. It reports whether the fast reader accepted it.
func checkFast(t *testing.T, text string) bool {
	t.Helper()
	accepted := false
	for _, cols := range []bool{false, true} {
		fast, ok := fastParse(text, cols)
		if !ok {
			continue
		}
		accepted = true
		full, err := Parser{Columns: cols}.parseText("f.yaml", text)
		if err != nil {
			t.Fatalf("the fast reader accepts what the parser refuses (%v):\n%s", err, text)
		}
		if d := fastSame(fast, full, ""); d != "" {
			t.Fatalf("the fast reader and the parser differ (columns in bytes: %v) on\n%s\nat %s", cols, text, d)
		}
		// Every subtree made alone (for an Unmarshaler decoding a
		// Tree) is the same as in the whole tree.
		tr, _ := fastRead(text, cols)
		i := int32(0)
		var each func(n *yaml.Node)
		each = func(n *yaml.Node) {
			if d := fastSame(tr.yaml(i), n, ""); d != "" {
				t.Fatalf("subtree %d made alone differs on\n%s\nat %s", i, text, d)
			}
			i++
			for _, c := range n.Content {
				each(c)
			}
		}
		each(full)
		if int(i) != len(tr.nodes) {
			t.Fatalf("%d nodes in the tree, %d read", i, len(tr.nodes))
		}
	}
	return accepted
}

// TestFastFiles reads every YAML file of the repository with the fast
// reader and the parser: where the fast reader reads one, the trees must
// be the same; the example specs and configurations must be read by it.
func TestFastFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	read, all := 0, 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if ext := filepath.Ext(p); d.IsDir() || ext != ".yaml" && ext != ".yml" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text, err := prompt.Normalize(data)
		if err != nil {
			return nil
		}
		all++
		if checkFast(t, text) {
			read++
		} else if strings.Contains(p, filepath.Join("examples", "canonical")) {
			t.Errorf("%s: the fast reader leaves it to the parser", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the fast reader reads %d of the repository's %d YAML files", read, all)
	if read*2 < all {
		t.Errorf("the fast reader reads only %d of %d files", read, all)
	}
}

// TestFastCases checks small texts at the edges of the fast subset: each
// either gives the parser's tree or is left to the parser.
func TestFastCases(t *testing.T) {
	for _, c := range []struct {
		text string
		fast bool
	}{
		{"a: 1\n", true},
		{"a: b\nc:\n  - d\n  - e: f\n    g: [1, 2.5, x, \"y\", 'z']\n", true},
		{"a:\n- 1\n- -2\n", true},
		{"- a\n- b: c\n", true},
		{"a: |\n  line\n\n  more\nb: >-\n  folded\n  text\n", true},
		{"a: {b: {c: [d, {e: f}]}}\n", true},
		{"a: true\nb: ~\nc: null\nd: .inf\ne: -0\nf: 2024-05-01\ng: 2024-05-01T10:00:00Z\nh: 0x1F\ni: 1_000\nj: +5\nk: 1e3\nl: .5\nm: 99999999999999999999\nn: 123456789012345678901234567890\no: 1.5e999\n", true},
		{"a: café\nb: ü: no\n", false},
		{"é: 1\n", false},
		{"a: 'é'\nb: \"ü\"\n", true},
		{"--- \na: 1\n", true},
		{"a: 1\na: 2\n", false},
		{"a:\n", false},
		{"a: &x 1\nb: *x\n", false},
		{"<<: {a: 1}\n", false},
		{"a: <<\n", false},
		{"a: b\n  c\n", false},
		{"a:\tb\n", false},
		{"a: \"\\u00e9\"\n", false},
		{"a: 1\n---\nb: 2\n", false},
		{"just text\n", false},
		{strings.Repeat("[", 70) + strings.Repeat("]", 70) + "\n", false},
		{"a: " + strings.Repeat("[", 70) + strings.Repeat("]", 70) + "\n", false},
	} {
		if got := checkFast(t, c.text); got != c.fast {
			t.Errorf("%q: read by the fast reader: %v, want %v", c.text, got, c.fast)
		}
	}
}

// FuzzFast checks that a text the fast reader accepts is one the YAML
// parser reads to the same tree.
func FuzzFast(f *testing.F) {
	for _, s := range []string{
		"a: 1\n",
		"task:\n  - instruction: x\n    priority: 2\ninput:\n  userQuery: q\n",
		"a: |\n  x\n\n  y\nb: >+\n  z\n\n",
		"a: {b: [1, 'c''d', \"e\\n\"], f: {}}\n",
		"- a\n- - b\n- c: d\n  e: f\n",
		"a: 2024-05-01\nb: 0o17\nc: -.INF\nd: 1_0\n",
		"é: ü\nb: 'x' # note\n",
	} {
		f.Add(s)
	}
	for _, s := range append(fastAccepted, fastRefused...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkFast(t, text)
	})
}

const fastMinimal = "task:\n  - instruction: Do it.\ninput:\n  userQuery: Why?\n"

// TestFastSubset checks the fast reader on each form it reads, and that
// it leaves to the parser what it does not.
func TestFastSubset(t *testing.T) {
	for _, text := range fastAccepted {
		if !checkFast(t, text) {
			t.Errorf("left to the parser:\n%s", text)
		}
	}
	for _, text := range fastRefused {
		if checkFast(t, text) {
			t.Errorf("read by the fast reader:\n%q", text)
		}
	}
}

const fastHead = "task:\n  - instruction: x\ninput:\n  userQuery: "

// fastAccepted are texts in the fast subset, one or more of each form
// (the forms canonical specs are written in).
var fastAccepted = []string{
	fastMinimal,
	"---\n" + fastMinimal,
	"# a spec\n--- # starts here\n\n" + fastMinimal,
	"  task:\n    - instruction: x\n  input:\n    userQuery: q\n",
	"task:\n- instruction: x\n  priority: 2\ninput: {userQuery: q}\n",
	"task:\n  -\n    instruction: x\ninput:\n  userQuery: q # a comment\n\n# the end\n",
	fastHead + "\"a \\\"quoted\\\" \\\\ and \\/ \\n \\t\"\n",
	fastHead + "'it''s'\n",
	fastHead + "|\n    line one\n\n     indented\n    three\n",
	fastHead + "|-\n    a\n    b\n\n\nidentity: {name: n}\n",
	fastHead + "|+\n    a\n\n\nidentity: {name: n}\n",
	fastHead + "| # comment\n    a\n  # not content\n",
	fastHead + ">\n    folded\n    lines\n\n    para\n",
	fastHead + ">-\n   a\n   b\n",
	fastHead + "2026-03-04T09:00:00Z\n",
	fastHead + "12.50\n",
	fastHead + "a#b c:d, [x] {y}\n",
	fastHead + "-5 apples\n",
	fastHead + "q\nidentity:\n  traits: [a, 'b c', \"d\", e f]\n  styleGuidelines: []\n",
	"task:\n  - instruction: x\n    required: False\n    priority: 5\n    outputFormat:\n      type: json\n      jsonSchema: {type: object, properties: {a: {type: [string, \"null\"], minimum: -1.5e3, enum: [1, 0, true, ~, Null]}}, \"$id\": x}\ninput:\n  userQuery: q\n",
	"task:\n  - instruction: x\n    outputFormat:\n      type: json\n      jsonSchema:\n        type: object\n        description: |\n          Two\n          lines \"quoted\" \\ back\n        required:\n          - a\n        x-extra: 'é ☃'\ninput:\n  userQuery: q\n",
	"task: [{instruction: x}]\ninput: {userQuery: q}\nassembler: {headingLevel: 3, showEmptySections: TRUE}\nconversationState:\n  retention: {maxMessages: 2147483647}\n",
}

// fastRefused are texts the fast reader leaves to the parser.
var fastRefused = []string{
	"",
	"# nothing\n",
	"---\n" + fastMinimal + "---\n" + fastMinimal,
	"--- task: []\n",
	"---x\n" + fastMinimal,
	"---\n",
	fastMinimal + "...\n",
	"task:\n\t- instruction: x\n",
	fastHead + "&a q\n",
	fastHead + "*a\n",
	fastHead + "!!str q\n",
	fastHead + "\n",
	fastHead + "multi\n    line\n",
	fastHead + "\"multi\n    line\"\n",
	fastHead + "\"\\x41\"\n",
	fastHead + "a: b\n",
	fastHead + "|2\n   a\n",
	fastHead + ">\n    a\n      more indented\n    b\n",
	fastHead + "|\n\n    leading blank\n",
	fastHead + "|\n    no final break",
	fastHead + "|\n  not indented past the key\n",
	fastHead + "[a,\n  b]\n",
	fastHead + "q\nidentity:\n  tone: a\n  tone: b\n",
	fastHead + "q\ntools:\n  - name: t\n    parameters: {null: 1}\n",
	fastHead + "q \u0085\n",
	fastHead + "\"\u2028\"\n",
	"\ufeff" + fastMinimal,
}

// TestFastCheck checks the word-at-a-time check against a byte at a
// time, with each byte it must catch at every offset of a word.
func TestFastCheck(t *testing.T) {
	slow := func(s string) bool {
		for i, r := range s {
			switch {
			case r < 0x20 && r != '\n', r >= 0x7f && r < 0xa0, r == '\u2028', r == '\u2029', r == '\ufeff', r == '\ufffe', r == '\uffff':
				return false
			case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\ufffd"):
				return false
			}
		}
		return true
	}
	base := "abc: def\n  - ghi jkl mno\n"
	specials := []string{"\t", "\x00", "\x1f", "\r", "\x7f", "\u0085", "\u0080", "\u009f", "\u2028", "\u2029", "\ufeff", "\ufffe", "\uffff", "\n", " ", "~", "é", "\u00a0", "☃", "\U0001F600", "\ufffd", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80"}
	for _, sp := range specials {
		for at := 0; at <= 17; at++ {
			s := base[:at] + sp + base[at:]
			got, ascii := fastCheck(s)
			if want := slow(s); got != want || got && ascii != isASCII(s) {
				t.Errorf("fastCheck(%q) = %v, %v, want %v, %v", s, got, ascii, want, isASCII(s))
			}
		}
	}
}
