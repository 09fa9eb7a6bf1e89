package canonical

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/prompt"
)

// fullDecode decodes text with the full parser and decoder, without
// validating: what the quick reader must agree with.
func fullDecode(text string) (*Spec, bool) {
	top, err := yamldoc.ParseText("spec.yaml", text)
	if err != nil || top == nil {
		return nil, false
	}
	s := &Spec{source: "spec.yaml"}
	d := specSchema.Decode("spec.yaml", top, s)
	return s, len(d.Errors()) == 0
}

// checkQuick checks that when the quick reader accepts text, the full
// parser accepts it too and decodes the same spec. It reports whether
// the quick reader accepted it.
func checkQuick(t *testing.T, text string) bool {
	t.Helper()
	quick, ok := quickSpec("spec.yaml", text)
	if !ok {
		return false
	}
	full, fok := fullDecode(text)
	if !fok {
		t.Fatalf("the quick reader accepts what the full parser refuses:\n%s", text)
	}
	if !reflect.DeepEqual(quick, full) {
		t.Fatalf("the quick reader and the full parser differ on\n%s\nquick: %+v\nfull:  %+v", text, quick, full)
	}
	return true
}

func specFiles(t testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "canonical", "*.yaml"))
	files = append(files, filepath.Join("testdata", "assembly", "spec.yaml"))
	if len(files) < 3 {
		t.Fatal("no spec files")
	}
	return files
}

// TestQuickSpecFiles checks that the example specs and the assembly
// fixture are read by the quick reader, to the spec the full parser
// makes, and that ParseSpec keeps no places for them but finds them when
// asked.
func TestQuickSpecFiles(t *testing.T) {
	for _, p := range specFiles(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text, err := prompt.Normalize(data)
		if err != nil {
			t.Fatal(err)
		}
		if !checkQuick(t, text) {
			t.Errorf("%s: the quick reader leaves it to the full parser", p)
		}
		s, err := ParseSpec(p, data)
		if err != nil {
			t.Fatal(err)
		}
		if s.pos != nil {
			t.Errorf("%s: places kept", p)
		} else if line, col := s.places()("task"); line == 0 || col != 1 {
			t.Errorf("%s: task found again at %d:%d", p, line, col)
		}
	}
}

// TestQuickSpecSubset checks the quick reader on each form it reads, and
// that it leaves alone what it does not.
func TestQuickSpecSubset(t *testing.T) {
	for _, text := range quickAccepted {
		if !checkQuick(t, text) {
			t.Errorf("left to the full parser:\n%s", text)
		}
	}
	for _, text := range quickRefused {
		if checkQuick(t, text) {
			t.Errorf("read by the quick reader:\n%q", text)
		}
	}
}

const quickHead = "task:\n  - instruction: x\ninput:\n  userQuery: "

// quickAccepted are texts in the quick subset, one or more of each form.
var quickAccepted = []string{
	minimal,
	"---\n" + minimal,
	"# a spec\n--- # starts here\n\n" + minimal,
	"  task:\n    - instruction: x\n  input:\n    userQuery: q\n",
	"task:\n- instruction: x\n  priority: 2\ninput: {userQuery: q}\n",
	"task:\n  -\n    instruction: x\ninput:\n  userQuery: q # a comment\n\n# the end\n",
	quickHead + "\"a \\\"quoted\\\" \\\\ and \\/ \\n \\t\"\n",
	quickHead + "'it''s'\n",
	quickHead + "|\n    line one\n\n     indented\n    three\n",
	quickHead + "|-\n    a\n    b\n\n\nidentity: {name: n}\n",
	quickHead + "|+\n    a\n\n\nidentity: {name: n}\n",
	quickHead + "| # comment\n    a\n  # not content\n",
	quickHead + ">\n    folded\n    lines\n\n    para\n",
	quickHead + ">-\n   a\n   b\n",
	quickHead + "2026-03-04T09:00:00Z\n",
	quickHead + "12.50\n",
	quickHead + "a#b c:d, [x] {y}\n",
	quickHead + "-5 apples\n",
	quickHead + "q\nidentity:\n  traits: [a, 'b c', \"d\", e f]\n  styleGuidelines: []\n",
	"task:\n  - instruction: x\n    required: False\n    priority: 5\n    outputFormat:\n      type: json\n      jsonSchema: {type: object, properties: {a: {type: [string, \"null\"], minimum: -1.5e3, enum: [1, 0, true, ~, Null]}}, \"$id\": x}\ninput:\n  userQuery: q\n",
	"task:\n  - instruction: x\n    outputFormat:\n      type: json\n      jsonSchema:\n        type: object\n        description: |\n          Two\n          lines \"quoted\" \\ back\n        required:\n          - a\n        x-extra: 'é ☃'\ninput:\n  userQuery: q\n",
	"task: [{instruction: x}]\ninput: {userQuery: q}\nassembler: {headingLevel: 3, showEmptySections: TRUE}\nconversationState:\n  retention: {maxMessages: 2147483647}\n",
}

// quickRefused are texts the quick reader leaves to the full parser.
var quickRefused = []string{
	"",
	"# nothing\n",
	"- a\n",
	"---\n" + minimal + "---\n" + minimal,
	"--- task: []\n",
	"---x\n" + minimal,
	"---\n",
	minimal + "...\n",
	"task:\n\t- instruction: x\n",
	quickHead + "&a q\n",
	quickHead + "*a\n",
	quickHead + "!!str q\n",
	quickHead + "yes: no\n",
	quickHead + "true\n",
	quickHead + "null\n",
	quickHead + "~\n",
	quickHead + "\n",
	quickHead + "multi\n    line\n",
	quickHead + "\"multi\n    line\"\n",
	quickHead + "\"\\x41\"\n",
	quickHead + "a: b\n",
	quickHead + "|2\n   a\n",
	quickHead + ">\n    a\n      more indented\n    b\n",
	quickHead + "|\n\n    leading blank\n",
	quickHead + "|\n    no final break",
	quickHead + "|\n  not indented past the key\n",
	quickHead + "[a,\n  b]\n",
	quickHead + "q\nidentity:\n  tone: a\n  tone: b\n",
	quickHead + "q\nextra: 1\n",
	quickHead + "q\nconstraints:\n  - text: t\n    priority: 0\n",
	quickHead + "q\nconstraints:\n  - text: t\n    priority: 01\n",
	quickHead + "q\ntools:\n  - name: t\n    parameters: {a: 0x10}\n",
	quickHead + "q\ntools:\n  - name: t\n    parameters: {a: 2026-01-01}\n",
	quickHead + "q\ntools:\n  - name: t\n    parameters: {a: .inf}\n",
	quickHead + "q\ntools:\n  - name: t\n    parameters: {null: 1}\n",
	quickHead + "q\ntools:\n  - name: t\n    parameters: [a]\n",
	quickHead + "q \u0085\n",
	quickHead + "\"\u2028\"\n",
	"\ufeff" + minimal,
}

// FuzzQuickSpec checks that whatever the quick reader accepts, the full
// parser accepts too and decodes to the same spec, field for field.
func FuzzQuickSpec(f *testing.F) {
	for _, p := range specFiles(f) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(string(data))
		}
	}
	for _, s := range append(quickAccepted, quickRefused...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		text, err := prompt.Normalize([]byte(data))
		if err != nil {
			return
		}
		checkQuick(t, text)
	})
}

// TestQuickCheck checks the word-at-a-time check against a byte at a
// time, with each byte it must catch at every offset of a word.
func TestQuickCheck(t *testing.T) {
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
	specials := []string{"\t", "\x00", "\x1f", "\r", "\x7f", "\u0085", "\u0080", "\u009f", "\u2028", "\u2029", "\ufeff", "\ufffe", "\uffff", "\n", " ", "~", "é", "\u00a0", "☃", "\U0001F600", "\ufffd"}
	for _, sp := range specials {
		for at := 0; at <= 17; at++ {
			s := base[:at] + sp + base[at:]
			if got, want := quickCheck(s), slow(s); got != want {
				t.Errorf("quickCheck(%q) = %v, want %v", s, got, want)
			}
		}
	}
}
