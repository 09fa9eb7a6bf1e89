package yamldoc

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
)

// testDoc has a field of every kind the decoder supports.
type testDoc struct {
	Name    string          `yaml:"name"`
	Enabled *bool           `yaml:"enabled,omitempty"`
	Count   int             `yaml:"count"`
	Ratio   float64         `yaml:"ratio"`
	Tags    []string        `yaml:"tags"`
	Items   []testItem      `yaml:"items"`
	Owner   *testOwner      `yaml:"owner"`
	Schema  json.RawMessage `yaml:"schema"`
	Size    testSize        `yaml:"size"`
	Pairs   testPairs       `yaml:"pairs"`
	Skipped string          `yaml:"-"`
	Plain   string          // key "plain"
	hidden  string          // unexported: never decoded
}

type testItem struct {
	ID       string     `yaml:"id"`
	Priority int        `yaml:"priority"`
	Sub      *testOwner `yaml:"sub"`
}

type testOwner struct {
	Handle string `yaml:"handle"`
	Tone   string `yaml:"tone"`
	Big    int8   `yaml:"big"`
}

// testSize is a size written "3KB" or "12": a hook on a scalar.
type testSize int64

func (s *testSize) UnmarshalYAMLNode(d *Decoder, n *yaml.Node, at string) {
	v, err := strconv.ParseInt(strings.TrimSuffix(n.Value, "KB"), 10, 64)
	if n.Kind != yaml.ScalarNode || err != nil || v < 0 {
		d.Wrong(n, at, "a size such as 3KB")
		return
	}
	if strings.HasSuffix(n.Value, "KB") {
		v *= 1000
	}
	*s = testSize(v)
}

// testPairs is a list of "key=value" texts or {key, value} mappings: a
// hook that decodes parts of its node with d.Decode.
type testPairs []testPair

type testPair struct {
	Key   string `yaml:"key"`
	Value string `yaml:"value"`
}

func (p *testPairs) UnmarshalYAMLNode(d *Decoder, n *yaml.Node, at string) {
	if n.Kind != yaml.SequenceNode {
		d.Wrong(n, at, "a list of pairs")
		return
	}
	for _, c := range n.Content {
		var pair testPair
		if c.Kind == yaml.ScalarNode {
			s, ok := d.Text(c, at)
			k, v, found := strings.Cut(s, "=")
			if !ok || !found {
				if ok {
					d.Errorf(c, at, "want key=value, found %q", s)
				}
				continue
			}
			pair = testPair{k, v}
		} else if !d.Decode(c, at, &pair) {
			continue
		}
		*p = append(*p, pair)
	}
}

var testSchema = NewSchema[testDoc](Options{
	Doc: "a test file",
	Rules: map[string]Rule{
		"items":            Want("a list of items"),
		"items[].priority": Int(1, 5, "a whole number from 1 to 5"),
		"owner":            Want("an owner"),
		"schema":           Want("a JSON Schema object"),
	},
})

// decodeTest decodes text into a testDoc and returns it with its
// decoder and every problem as text.
func decodeTest(t *testing.T, s *Schema[testDoc], text string) (*testDoc, *Decoder, []string) {
	t.Helper()
	n, err := ParseText("f.yaml", text)
	if err != nil {
		t.Fatalf("ParseText: %v", err)
	}
	var doc testDoc
	d := s.Decode("f.yaml", n, &doc)
	var got []string
	for _, e := range d.Errors() {
		got = append(got, e.Error())
	}
	treeDecodes(t, s, Parser{}, text, &doc, d)
	return &doc, d, got
}

// treeDecodes checks that text read by p as a Tree decodes with s as
// its tree of yaml.Nodes decoded into want with the decoder d: the same
// value, the same problems and the same places of every field.
func treeDecodes[T any](t testing.TB, s *Schema[T], p Parser, text string, want *T, d *Decoder) {
	t.Helper()
	tr, err := p.ParseFileTree("f.yaml", text)
	if err != nil {
		t.Fatalf("ParseFileTree: %v, where ParseText reads the text", err)
	}
	var got T
	dt := s.DecodeTree("f.yaml", tr, &got)
	if !reflect.DeepEqual(&got, want) && !sameYAML(&got, want) {
		t.Fatalf("from the Tree:\n%+v\nfrom the yaml.Nodes:\n%+v\ntext:\n%s", got, *want, text)
	}
	same := func(a, b *diag.Error) bool { return a.Error() == b.Error() }
	if !slices.EqualFunc(dt.Errors(), d.Errors(), same) {
		t.Fatalf("problems from the Tree:\n%v\nfrom the yaml.Nodes:\n%v\ntext:\n%s", dt.Errors(), d.Errors(), text)
	}
	lines := d.Lines()
	if got := dt.Lines(); !maps.Equal(got, lines) {
		t.Fatalf("lines from the Tree %v, from the yaml.Nodes %v\ntext:\n%s", got, lines, text)
	}
	for at := range lines {
		if l, c := dt.Pos(at); l != lines[at] || c != colOf(d, at) {
			t.Fatalf("Pos(%q) from the Tree %d:%d, from the yaml.Nodes %d:%d", at, l, c, lines[at], colOf(d, at))
		}
	}
	for at := range lines {
		if dt.Bad(at) != d.Bad(at) || dt.Failed(at) != d.Failed(at) {
			t.Fatalf("Bad or Failed(%q) differ between the Tree and the yaml.Nodes", at)
		}
	}
}

// sameYAML reports whether a and b marshal to the same YAML, as values
// holding NaN do, which reflect.DeepEqual finds unequal.
func sameYAML(a, b any) bool {
	x, errA := yaml.Marshal(a)
	y, errB := yaml.Marshal(b)
	return errA == nil && errB == nil && string(x) == string(y)
}

// colOf returns the column Pos gives for at.
func colOf(d *Decoder, at string) int {
	_, c := d.Pos(at)
	return c
}

func TestDecodeValues(t *testing.T) {
	text := `name: ann
enabled: false
count: 0x1F
ratio: 2.5
tags: [a, 12, 2026-03-01]
items:
  - id: one
    priority: 2
  - id: two
    sub:
      handle: "@two"
      big: -128
owner: {tone: calm}
schema:
  type: object
  properties: {z: {type: string}, a: {maximum: 1e3, minimum: 0o17}}
  required: [z]
size: 3KB
pairs: [a=1, {key: b, value: 2}]
plain: yes
`
	doc, d, errs := decodeTest(t, testSchema, text)
	if len(errs) > 0 {
		t.Fatalf("problems: %q", errs)
	}
	f := false
	want := testDoc{
		Name: "ann", Enabled: &f, Count: 31, Ratio: 2.5, Tags: []string{"a", "12", "2026-03-01"},
		Items: []testItem{{ID: "one", Priority: 2}, {ID: "two", Sub: &testOwner{Handle: "@two", Big: -128}}},
		Owner: &testOwner{Tone: "calm"},
		Size:  3000, Pairs: testPairs{{"a", "1"}, {"b", "2"}}, Plain: "yes",
	}
	wantSchema := `{"type":"object","properties":{"z":{"type":"string"},"a":{"maximum":1e3,"minimum":15}},"required":["z"]}`
	if got := string(doc.Schema); got != wantSchema {
		t.Errorf("schema, in document order:\n got %s\nwant %s", got, wantSchema)
	}
	doc.Schema = nil
	if !reflect.DeepEqual(*doc, want) {
		t.Errorf("decoded\n got %+v\nwant %+v", *doc, want)
	}
	wantLines := map[string]int{
		"name": 1, "enabled": 2, "count": 3, "ratio": 4, "tags": 5, "tags[0]": 5, "tags[1]": 5, "tags[2]": 5,
		"items": 6, "items[0]": 7, "items[0].id": 7, "items[0].priority": 8, "items[1]": 9, "items[1].id": 9,
		"items[1].sub": 10, "items[1].sub.handle": 11, "items[1].sub.big": 12, "owner": 13, "owner.tone": 13,
		"schema": 14, "size": 18, "pairs": 19, "pairs.key": 19, "pairs.value": 19, "plain": 20,
	}
	if got := d.Lines(); !maps.Equal(got, wantLines) {
		t.Errorf("lines\n got %v\nwant %v", got, wantLines)
	}
}

func TestDecodeNullIsAbsent(t *testing.T) {
	n, err := ParseText("f.yaml", "name: ~\ncount: null\nowner:\ntags:\nitems: []\n")
	if err != nil {
		t.Fatal(err)
	}
	doc := testDoc{Name: "kept", Count: 7, hidden: "h"}
	d := testSchema.Decode("f.yaml", n, &doc)
	if errs := d.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	if doc.Name != "kept" || doc.Count != 7 || doc.hidden != "h" || doc.Owner != nil || doc.Tags != nil || doc.Items != nil {
		t.Errorf("null values changed the document: %+v", doc)
	}
	if l := d.Lines(); l["name"] != 1 || l["owner"] != 3 || l["items"] != 5 {
		t.Errorf("a null key's line is still recorded: %v", l)
	}
	// A null document decodes nothing.
	n, _ = ParseText("f.yaml", "~\n")
	if d := testSchema.Decode("f.yaml", n, &doc); len(d.Errors()) > 0 || doc.Name != "kept" {
		t.Errorf("null document: %v %+v", d.Errors(), doc)
	}
	if d := testSchema.Decode("f.yaml", nil, &doc); len(d.Errors()) > 0 {
		t.Errorf("empty document: %v", d.Errors())
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string // every problem, in order
	}{
		{"unknown key with a hint", "owner:\n  tonee: calm\n", []string{
			`f.yaml:2: unknown key "tonee" in owner: did you mean "tone"? the keys are handle, tone, big`,
		}},
		{"unknown top-level key", "namee: x\nzzzzzz: 1\n", []string{
			`f.yaml:1: unknown key "namee": did you mean "name"? the keys are name, enabled, count, ratio, tags, items, owner, schema, size, pairs, plain`,
			`f.yaml:2: unknown key "zzzzzz": the keys are name, enabled, count, ratio, tags, items, owner, schema, size, pairs, plain`,
		}},
		{"skipped and unexported fields are unknown", "skipped: x\nhidden: y\n", []string{
			`f.yaml:1: unknown key "skipped": the keys are name, enabled, count, ratio, tags, items, owner, schema, size, pairs, plain`,
			`f.yaml:2: unknown key "hidden": the keys are name, enabled, count, ratio, tags, items, owner, schema, size, pairs, plain`,
		}},
		{"type errors", "name: [a]\nenabled: \"yes\"\ncount: 1.5\nratio: x\ntags: a\nowner: true\nitems: {id: a}\nplain: {}\n", []string{
			`f.yaml:1: name: want text, found a list`,
			`f.yaml:2: enabled: want true or false, found the text "yes"`,
			`f.yaml:3: count: want a whole number, found the number 1.5`,
			`f.yaml:4: ratio: want a number, found the text "x"`,
			`f.yaml:5: tags: want a list of text, found the text "a"`,
			`f.yaml:6: owner: want an owner, found true (quote it to use it as text)`,
			`f.yaml:7: items: want a list of items, found a mapping`,
			`f.yaml:8: plain: want text, found a mapping`,
		}},
		{"nested paths", "items:\n  - priority: 9\n  - sub:\n      big: 300\n      tone: [x]\n  - ~\ntags: [a, [b], ~]\n", []string{
			`f.yaml:2: items[0].priority: want a whole number from 1 to 5, found 9`,
			`f.yaml:4: items[1].sub.big: want a whole number, found the number 300`,
			`f.yaml:5: items[1].sub.tone: want text, found a list`,
			`f.yaml:6: items[2]: want a mapping of keys to values, found nothing`,
			`f.yaml:7: tags[1]: want text, found a list`,
			`f.yaml:7: tags[2]: want text, found nothing`,
		}},
		{"range and type of a ranged number", "items:\n  - priority: 0\n  - priority: high\n", []string{
			`f.yaml:2: items[0].priority: want a whole number from 1 to 5, found 0`,
			`f.yaml:3: items[1].priority: want a whole number from 1 to 5, found the text "high"`,
		}},
		{"alias", "name: &a ann\nowner:\n  handle: *a\ntags: [*a]\n", []string{
			`f.yaml:3: owner.handle: aliases (*a) are not supported in a test file: write the value out`,
			`f.yaml:4: tags[0]: aliases (*a) are not supported in a test file: write the value out`,
		}},
		{"alias of a mapping", "owner: &o {tone: a}\nitems: [{sub: *o}]\n", []string{
			`f.yaml:2: items[0].sub: aliases (*o) are not supported in a test file: write the value out`,
		}},
		{"key that is not a name", "owner:\n  [a]: 1\n", []string{
			`f.yaml:2: owner: a key must be a name, found a list`,
		}},
		{"hook", "size: lots\npairs: [a, {key: k, valu: v}, [x]]\n", []string{
			`f.yaml:1: size: want a size such as 3KB, found the text "lots"`,
			`f.yaml:2: pairs: want a mapping of keys to values, found a list`,
			`f.yaml:2: pairs: want key=value, found "a"`,
			`f.yaml:2: unknown key "valu" in pairs: did you mean "value"? the keys are key, value`,
		}},
		{"schema", "schema: [1]\n", []string{`f.yaml:1: schema: want a JSON Schema object, found a list`}},
		{"schema values", "schema:\n  a: {b: [1, .inf]}\n", []string{`f.yaml:2: schema: the number .inf cannot be written in JSON`}},
		{"schema tag", "schema:\n  a: !!binary aGk=\n", []string{`f.yaml:2: schema: the tag !!binary has no JSON form: write plain JSON values`}},
		{"schema key", "schema:\n  ~: 1\n", []string{`f.yaml:2: schema: a JSON object key must be text, found nothing`}},
		{"not a mapping", "- a\n", []string{`f.yaml:1: want a mapping of keys to values, found a list`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, got := decodeTest(t, testSchema, tc.text)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

func TestDecodeBadAndFailed(t *testing.T) {
	_, d, _ := decodeTest(t, testSchema, "count: x\nowner:\n  tonee: a\nitems:\n  - priority: 9\n  - id: a\n")
	for _, tc := range []struct {
		at          string
		bad, failed bool
	}{
		{"count", true, true},
		{"owner", false, true}, // an unknown key inside
		{"owner.tonee", false, false},
		{"items", false, true},
		{"items[0].priority", true, true},
		{"items[1]", false, false},
		{"item", false, false},
		{"name", false, false},
		{"", false, true},
	} {
		if got := d.Bad(tc.at); got != tc.bad {
			t.Errorf("Bad(%q) = %v", tc.at, got)
		}
		if got := d.Failed(tc.at); got != tc.failed {
			t.Errorf("Failed(%q) = %v", tc.at, got)
		}
	}
}

func TestDecodeOptions(t *testing.T) {
	s := NewSchema[testDoc](Options{
		Columns: true,
		UnknownKey: func(at, key, hint string, keys []string) string {
			return fmt.Sprintf("%s: no key %s (hint %q, %d keys)", at, key, hint, len(keys))
		},
	})
	_, _, got := decodeTest(t, s, "owner:\n  tonee: x\n  big: -129\nname: &x a\nplain: *x\n")
	want := []string{
		`f.yaml:2:3: owner: no key tonee (hint "tone", 3 keys)`,
		`f.yaml:3:8: owner.big: want a whole number, found the number -129`,
		`f.yaml:5:8: plain: aliases (*x) are not supported in this file: write the value out`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestNewSchemaPanics(t *testing.T) {
	type withMap struct {
		M map[string]string `yaml:"m"`
	}
	type twice struct {
		A string `yaml:"a"`
		B string `yaml:"a"`
	}
	for name, f := range map[string]func(){
		"no such field":     func() { NewSchema[testDoc](Options{Rules: map[string]Rule{"owner.mood": Want("x")}}) },
		"range on text":     func() { NewSchema[testDoc](Options{Rules: map[string]Rule{"name": Int(1, 2, "x")}}) },
		"item of a mapping": func() { NewSchema[testDoc](Options{Rules: map[string]Rule{"owner[].tone": Want("x")}}) },
		"field of a list":   func() { NewSchema[testDoc](Options{Rules: map[string]Rule{"items.id": Want("x")}}) },
		"malformed path":    func() { NewSchema[testDoc](Options{Rules: map[string]Rule{"items[0].id": Want("x")}}) },
		"empty segment":     func() { NewSchema[testDoc](Options{Rules: map[string]Rule{"owner..tone": Want("x")}}) },
		"map field":         func() { NewSchema[withMap](Options{}) },
		"repeated key":      func() { NewSchema[twice](Options{}) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil {
					t.Error("no panic")
				} else if !strings.HasPrefix(fmt.Sprint(r), "yamldoc: ") {
					t.Errorf("panic %v", r)
				}
			}()
			f()
		})
	}
}

// TestRulesDoNotLeak checks that a schema's rules change only its own
// plans: the same types decoded without rules keep their defaults.
func TestRulesDoNotLeak(t *testing.T) {
	_, _, got := decodeTest(t, NewSchema[testDoc](Options{}), "items:\n  - priority: 9\nowner: 1\n")
	want := []string{`f.yaml:3: owner: want a mapping of keys to values, found the number 1`}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

type tree struct {
	Name     string `yaml:"name"`
	Children []tree `yaml:"children"`
	Next     *tree  `yaml:"next"`
}

func TestDecodeRecursiveType(t *testing.T) {
	n, err := ParseText("f.yaml", "name: a\nchildren:\n  - name: b\n    next: {name: c, children: [{name: d, x: 1}]}\n")
	if err != nil {
		t.Fatal(err)
	}
	var v tree
	d := NewSchema[tree](Options{Rules: map[string]Rule{"children[].next.children": Want("a forest")}}).Decode("f.yaml", n, &v)
	errs := d.Errors()
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), `f.yaml:4: unknown key "x" in children[0].next.children[0]:`) {
		t.Errorf("errors %v", errs)
	}
	if v.Children[0].Next.Children[0].Name != "d" {
		t.Errorf("decoded %+v", v)
	}
}

func TestDecodeConcurrent(t *testing.T) {
	type fresh struct {
		A []struct {
			B int `yaml:"b"`
		} `yaml:"a"`
	}
	n, err := ParseText("f.yaml", "a: [{b: 1}, {b: 2}]\n")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			var v fresh
			d := NewSchema[fresh](Options{}).Decode("f.yaml", n, &v)
			if len(d.Errors()) > 0 || len(v.A) != 2 || v.A[1].B != 2 {
				t.Errorf("decoded %+v, %v", v, d.Errors())
			}
		})
	}
	wg.Wait()
}

func TestDecodeList(t *testing.T) {
	n, err := ParseText("f.yaml", "- {name: a}\n- {name: b, count: x}\n")
	if err != nil {
		t.Fatal(err)
	}
	var v []testDoc
	d := NewSchema[[]testDoc](Options{}).Decode("f.yaml", n, &v)
	var list diag.List = d.Errors()
	if len(v) != 2 || v[1].Name != "b" || len(list) != 1 || list[0].Error() != `f.yaml:2: [1].count: want a whole number, found the text "x"` {
		t.Errorf("decoded %+v, %v", v, list)
	}
}

// testArgs is free-form JSON: a hook that uses Decoder.JSON.
type testArgs json.RawMessage

func (a *testArgs) UnmarshalYAMLNode(d *Decoder, n *yaml.Node, at string) {
	if raw, ok := d.JSON(n, at); ok {
		*a = testArgs(raw)
	}
}

// TestDecodeLabels: Label names values for people, TypeError words what
// to write, Pos gives each field's line and column (in bytes, from a
// Parser with Columns), and JSON turns any value into JSON.
func TestDecodeLabels(t *testing.T) {
	type call struct {
		Name string   `yaml:"name"`
		Args testArgs `yaml:"args"`
		Tier int      `yaml:"tier"`
	}
	s := NewSchema[[]call](Options{
		Columns: true,
		Rules:   map[string]Rule{"[].tier": Int(1, 3, "1, 2 or 3")},
		Label: func(at string) string {
			i, rest, _ := strings.Cut(strings.TrimPrefix(at, "["), "]")
			n, _ := strconv.Atoi(i)
			return strings.TrimSpace(fmt.Sprintf("call %d %s", n+1, strings.TrimPrefix(rest, ".")))
		},
		TypeError: func(want, found string) string { return "write " + want + ", not " + found },
	})
	text := "- {name: ls, args: {path: é, n: [1, 0x10, ~]}, tier: 2}\n- name: [x]\n  args: &a 'é'\n  tier: 7\n- {ñame: x, args: *a, tier: two}\n"
	top, err := Parser{Columns: true}.ParseText("f.yaml", text)
	if err != nil {
		t.Fatal(err)
	}
	var v []call
	d := s.Decode("f.yaml", top, &v)
	var got []string
	for _, e := range d.Errors() {
		got = append(got, e.Error())
	}
	want := []string{
		`f.yaml:2:9: call 2 name: write text, not a list`,
		`f.yaml:4:9: call 2 tier: write 1, 2 or 3, not 7`,
		`f.yaml:5:4: unknown key "ñame" in [2]: the keys are name, args, tier`,
		`f.yaml:5:20: call 3 args: aliases (*a) are not supported in this file: write the value out`,
		`f.yaml:5:30: call 3 tier: write 1, 2 or 3, not the text "two"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if len(v) != 3 || string(v[0].Args) != `{"path":"é","n":[1,16,null]}` || string(v[1].Args) != `"é"` || v[2].Args != nil {
		t.Errorf("decoded %+v", v)
	}
	for at, pos := range map[string][2]int{"[0]": {1, 3}, "[0].tier": {1, 49}, "[1]": {2, 3}, "[1].tier": {4, 3}, "[2].args": {5, 14}, "[3]": {0, 0}} {
		if line, col := d.Pos(at); line != pos[0] || col != pos[1] {
			t.Errorf("Pos(%q) = %d:%d, want %d:%d", at, line, col, pos[0], pos[1])
		}
	}
	// Without Columns, Pos has lines only.
	d = NewSchema[[]call](Options{}).Decode("f.yaml", top, &v)
	if line, col := d.Pos("[1].tier"); line != 4 || col != 0 {
		t.Errorf("Pos without columns = %d:%d, want 4:0", line, col)
	}
}

// TestParseFileTree checks a Tree of each kind of text: read by the fast
// reader, left to the parser, JSON, empty and null; and that its Node is
// the tree ParseFileText returns.
func TestParseFileTree(t *testing.T) {
	for _, c := range []struct {
		path, text string
		fast       bool
		kind       yaml.Kind
		tag        string
	}{
		{"f.yaml", "name: a\ntags: [x, y]\n", true, yaml.MappingNode, "!!map"},
		{"f.yaml", "- a\n- b\n", true, yaml.SequenceNode, "!!seq"},
		{"f.yaml", "name: &a x\nplain: *a\n", false, yaml.MappingNode, "!!map"},
		{"f.json", `{"name": "a", "tags": ["x"]}`, false, yaml.MappingNode, "!!map"},
		{"f", `{"name": "a"}`, false, yaml.MappingNode, "!!map"},
		{"f.yaml", "~\n", false, yaml.ScalarNode, "!!null"},
		{"f.yaml", "# nothing\n", false, 0, ""},
		{"f.yaml", "", false, 0, ""},
	} {
		for _, p := range []Parser{{}, {Columns: true}} {
			tr, err := p.ParseFileTree(c.path, c.text)
			if err != nil {
				t.Fatalf("%q: %v", c.text, err)
			}
			if tr.Kind() != c.kind || tr.Tag() != c.tag || tr.Empty() != (c.kind == 0) {
				t.Errorf("%q: kind %v tag %q empty %v, want %v %q", c.text, tr.Kind(), tr.Tag(), tr.Empty(), c.kind, c.tag)
			}
			if fast := tr.n.t != nil; fast != c.fast {
				t.Errorf("%q: read by the fast reader: %v, want %v", c.text, fast, c.fast)
			}
			want, err := p.ParseFileText(c.path, c.text)
			if err != nil {
				t.Fatal(err)
			}
			if d := fastSame(tr.Node(), want, ""); d != "" {
				t.Errorf("%q: Node differs from ParseFileText's tree at %s", c.text, d)
			}
		}
	}
	// Problems are those of ParseFileText.
	for _, text := range []string{"a: 1\na: 2\n", "a: [\n", "a: 1\n---\nb: 2\n"} {
		_, err := Parser{Columns: true}.ParseFileTree("f.yaml", text)
		_, want := Parser{Columns: true}.ParseFileText("f.yaml", text)
		if err == nil || err.Error() != want.Error() {
			t.Errorf("%q: %v, want %v", text, err, want)
		}
	}
}
