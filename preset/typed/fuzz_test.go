package typed

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/output"
	"github.com/tessera-dev/tessera/prompt"
)

// fuzzExample reads the example template (examples/typed), a seed
// of every target.
func fuzzExample(f *testing.F) []byte {
	f.Helper()
	data, err := os.ReadFile("../../examples/typed/code-review.yaml")
	if err != nil {
		f.Fatal(err)
	}
	return data
}

// fuzzMinimal is the smallest template that parses.
const fuzzMinimal = "ns: n\nkey: k\nparams:\n  - {name: who, type: string}\nsections:\n  - key: a\n    title: A\n    template: Hello $who.\n"

// fuzzReview is a short template of the example's shapes the other
// seeds lack: a name, a described parameter, block-scalar texts, an
// array output with a schema and a fixture that expands a section.
const fuzzReview = `# A comment.
ns: review
key: code-review
name: Code review
params:
  - {name: repo, type: string, description: the repository}
sections:
  - key: rules
    title: Rules
    visibility: summary
    summary: |
      Correctness first.
    template: |
      Review $repo, $$0.
output:
  name: comments
  container: array
  schema: {type: object, properties: {sev: {type: string, enum: [nit]}}, required: [sev]}
fixtures:
  - name: small
    expand: [rules]
    params: {repo: acme/b}
`

// fuzzCheckFile checks that err, a parser's error, names the file path
// first, and that each of its problems is in path.
func fuzzCheckFile(t *testing.T, path string, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("nil error")
	}
	if msg := err.Error(); !strings.HasPrefix(msg, path) {
		t.Fatalf("error does not start with the file %q: %q", path, msg)
	}
	var list diag.List
	var one *diag.Error
	switch {
	case errors.As(err, &list):
		if len(list) == 0 {
			t.Fatalf("empty diag.List as an error")
		}
		for _, e := range list {
			if e.Path != path || e.Msg == "" {
				t.Fatalf("bad problem %+v: want one in %q with a message", e, path)
			}
		}
	case errors.As(err, &one):
		if one.Path != path {
			t.Fatalf("problem in %q, not %q: %v", one.Path, path, one)
		}
	default:
		t.Fatalf("error %T %v is not a diagnostic", err, err)
	}
}

// FuzzParse checks the template parser: it never panics; a problem is
// reported in the file given; a template it accepts parses again from
// its own text to the same descriptor and section tree, and every
// section Walk visits is found by Section at its path.
//
// Its seeds are small: the fuzzer minimizes each new input it finds
// interesting by trying to cut every run of its bytes, and the 3.3 KB
// example template kept it minimizing most of its run. fuzzReview stands
// for it; the other tests read the example.
func FuzzParse(f *testing.F) {
	f.Add([]byte(fuzzReview))
	for _, s := range []string{
		fuzzMinimal,
		"",
		"[]",
		"~",
		"ns: n",
		"\xef\xbb\xbf" + fuzzMinimal,
		strings.ReplaceAll(fuzzMinimal, "\n", "\r\n"),
		fuzzMinimal + "---\n" + fuzzMinimal,
		fuzzMinimal + "name: \"a\xffb\"\n",
		fuzzMinimal + "extra: 1\n",
		`{"ns": "n", "key": "k", "sections": [{"key": "a", "title": "A", "template": "$$5 and ${x}", "children": []}], "params": [{"name": "x", "type": "number", "default": 0.5}]}`,
		"ns: N!\nkey: \"\"\nsections: []\n",
		"ns: n\nkey: k\nsections: {a: b}\n",
		"ns: n\nkey: k\nsections:\n  - key: a\n    title: A\n    template: costs $5 and ${ x} and $\n",
		"ns: n\nkey: k\nsections:\n  - {key: a, title: A, template: $missing}\n  - {key: a, title: A, template: again}\n  - {key: b, title: B}\n  - {title: no key, template: t}\n  - {key: c, template: no title}\n",
		"ns: n\nkey: k\nparams:\n  - {name: x, type: string}\n  - {name: x, type: integer}\n  - {name: 1x, type: list}\n  - {type: boolean}\n  - {name: y, type: decimal}\n  - {name: z}\n  - {name: w, type: integer, default: 0x10}\n  - {name: v, type: list, default: [a, {b: c}]}\nsections:\n  - {key: a, title: A, template: $x}\n",
		"ns: n\nkey: k\nparams:\n  - {name: on, type: string}\nsections:\n  - key: a\n    title: A\n    enabled: \"!on\"\n    visibility: summary\n    trust: maybe\n    role: assistant\n    trim: oldest\n    template: t\n    children:\n      - {key: b, title: B, role: system, trim: sometimes, template: c, visibility: hidden}\n      - {key: c, title: C, enabled: off, template: c}\n",
		"ns: n.1\nkey: k_2-x\nparams:\n  - {name: strict, type: boolean, default: true}\n  - {name: n, type: number, default: -1.5e3}\n  - {name: l, type: list, default: [a, \"b c\"]}\n  - {name: i, type: integer, default: -7}\nsections:\n  - key: a\n    title: A\n    role: system\n    enabled: \"!strict\"\n    visibility: summary\n    summary: s $strict\n    overridable: false\n    template: t $n\n    tools:\n      - {name: t1, description: d, parameters: {type: object}}\n      - {name: t2}\n    children:\n      - key: b\n        title: B\n        trust: untrusted\n        trim: truncate\n        priority: 3\n        template: \"${l}\\n$i$$\"\n      - key: c\n        title: C\n        children:\n          - {key: d, title: D, template: deep, visibility: summary, summary: sum}\n  - {key: e, title: E, enabled: strict, trim: drop, template: e}\nfixtures:\n  - {name: f1, params: {strict: false}, expand: [a]}\n  - {name: f2}\n",
		"ns: n\nkey: k\nsections:\n  - key: a\n    title: A\n    template: t\n    tools:\n      - {name: \"bad name\"}\n      - {name: t, parameters: [1]}\n      - 3\n",
		"ns: n\nkey: k\nsections:\n  - {key: a, title: A, template: [x]}\n  - {key: b, title: B, template: ~, summary: {a: b}}\n",
		fuzzMinimal + "output:\n  container: set\n  name: \"no spaces\"\n",
		fuzzMinimal + "output:\n  schema: {type: array}\n",
		fuzzMinimal + "output:\n  container: array\n  schema: {type: object, properties: {a: {type: integer}}}\n",
		fuzzMinimal + "fixtures:\n  - {name: one, params: {who: me}, expand: [a]}\n  - {name: one}\n  - {name: Bad Name}\n  - 3\n",
		"ns: n\nkey: k\nsections:\n  - &s {key: a, title: A, template: t}\n  - *s\n",
		"ns: n\nkey: k\nsections:\n  - key: a\n    title: A\n    template: \"\\u2028 \\t $$\"\n",
		"ns: n\nkey: k\nsections:\n  - key: a\n    title: A\n    template: \"tab\\there \u2029\"\n",
	} {
		f.Add([]byte(s))
	}
	const path = "typed/t.yaml"
	f.Fuzz(func(t *testing.T, data []byte) {
		tmpl, err := Parse(path, data)
		if err != nil {
			if tmpl != nil {
				t.Fatal("a template returned with an error")
			}
			fuzzCheckFile(t, path, err)
			return
		}
		if tmpl == nil {
			t.Fatal("no template and no error")
		}
		if tmpl.Path() != path {
			t.Fatalf("Path() = %q, want %q", tmpl.Path(), path)
		}
		var paths []string
		tmpl.Walk(func(p string, s *SectionSpec) {
			paths = append(paths, p)
			if got := tmpl.Section(p); got != s {
				t.Fatalf("Walk visits %q, but Section(%q) = %p, not %p", p, p, got, s)
			}
		})
		again, err := Parse(path, []byte(tmpl.Text()))
		if err != nil {
			t.Fatalf("the template's own text does not parse again: %v\n%s", err, tmpl.Text())
		}
		if again.Text() != tmpl.Text() {
			t.Fatalf("normalised text changes when parsed again:\n%q\n%q", tmpl.Text(), again.Text())
		}
		if d1, d2 := tmpl.Descriptor(), again.Descriptor(); !reflect.DeepEqual(d1, d2) {
			t.Fatalf("descriptor changes when parsed again:\n%+v\n%+v", d1, d2)
		}
		var paths2 []string
		again.Walk(func(p string, _ *SectionSpec) { paths2 = append(paths2, p) })
		if !reflect.DeepEqual(paths, paths2) {
			t.Fatalf("sections change when parsed again: %q, then %q", paths, paths2)
		}
	})
}

// fuzzPlaceholder matches what parseText reads in a text without problems:
// "$$", "${name}" or "$name".
var fuzzPlaceholder = regexp.MustCompile(`\$\$|\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*`)

// FuzzParseText checks the placeholder parser: it never panics; every
// problem is at a '$' of the text; a text without problems, its
// placeholders bound to empty values, renders as its literal parts
// ("$$" read as '$') trimmed, which the segments and a regular
// expression agree on; a text without '$' renders as itself trimmed.
func FuzzParseText(f *testing.F) {
	f.Add(string(fuzzExample(f)))
	for _, s := range []string{
		"",
		"  plain text  \n",
		"Hello $who.",
		"${a}${b_1}$c",
		"$$5 and $$$x",
		"$",
		"a $ b",
		"$5",
		"${",
		"${}",
		"${ a}",
		"${a",
		"$é",
		"price: $$",
		"$$$",
		"x$_y9z!",
		"\n\t$a\n\n",
		"${a}}",
		"$\xff",
		"é$",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		txt, errs := parseText(src)
		if txt == nil {
			t.Fatal("nil text")
		}
		if txt.Source != src {
			t.Fatalf("Source = %q, want %q", txt.Source, src)
		}
		for _, e := range errs {
			if e.off < 0 || e.off >= len(src) || src[e.off] != '$' {
				t.Fatalf("problem at %d of %q is not at a '$': %s", e.off, src, e.msg)
			}
			if e.msg == "" {
				t.Fatalf("problem at %d of %q has no message", e.off, src)
			}
		}
		if !strings.Contains(src, "$") {
			if len(errs) > 0 {
				t.Fatalf("problems in %q, which has no '$': %+v", src, errs)
			}
			// Rendered as the design says: dedented, then stripped.
			if got, want := txt.render(nil), strings.TrimSpace(dedent(src)); got != want {
				t.Fatalf("%q renders as %q, want %q", src, got, want)
			}
		}
		if len(errs) > 0 {
			return
		}
		vals := Values{}
		for _, s := range txt.segs {
			switch {
			case s.param != "":
				vals[s.param] = Value{}
				if s.off < 0 || s.off >= len(src) || src[s.off] != '$' {
					t.Fatalf("placeholder %q at %d of %q is not at a '$'", s.param, s.off, src)
				}
			case s.lit == "":
				t.Fatalf("empty literal segment in %q", src)
			}
		}
		// What renders is the dedented text's segments.
		rendered := txt.segs
		if txt.out != nil {
			rendered = txt.out
		}
		var lits strings.Builder
		for _, s := range rendered {
			if s.param == "" {
				lits.WriteString(s.lit)
			}
		}
		want := strings.TrimSpace(lits.String())
		if got := txt.render(vals); got != want {
			t.Fatalf("%q with empty values renders as %q, want its literal parts %q", src, got, want)
		}
		ref := fuzzPlaceholder.ReplaceAllStringFunc(dedent(src), func(m string) string {
			if m == "$$" {
				return "$"
			}
			return ""
		})
		if ref = strings.TrimSpace(ref); ref != want {
			t.Fatalf("%q: literal parts %q, but without its placeholders it is %q", src, want, ref)
		}
		var names []string
		for _, m := range fuzzPlaceholder.FindAllString(src, -1) {
			if m == "$$" {
				continue
			}
			name := strings.Trim(m, "${}")
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
		if got := txt.Params(); !reflect.DeepEqual(got, names) && len(got)+len(names) > 0 {
			t.Fatalf("%q: Params() = %q, want %q", src, got, names)
		}
	})
}

// fuzzValuesTemplate declares one parameter of each type.
const fuzzValuesTemplate = `ns: fuzz
key: values
params:
  - {name: s, type: string}
  - {name: i, type: integer}
  - {name: n, type: number}
  - {name: b, type: boolean}
  - {name: l, type: list}
sections:
  - key: all
    title: All
    template: "$s $i $n $b\n$l"
`

// FuzzParseValues checks the values reader against a template with one
// parameter of each type: it never panics; a problem is reported in the
// file given; the values it accepts are of declared parameters, their
// JSON valid and their text what their type writes; and it reads the
// same bytes the same way twice.
func FuzzParseValues(f *testing.F) {
	tmpl, err := Parse("values.yaml", []byte(fuzzValuesTemplate))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fuzzExample(f))
	for _, s := range []string{
		"s: x\ni: 3\nn: 0.5\nb: true\nl: [a, b]\n",
		`{"s": "\u00e9", "i": -7, "n": -0.0, "b": false, "l": []}`,
		"",
		"~",
		"{}",
		"[1]",
		"x: 1",
		"sx: 1",
		"s: ~",
		"s: yes",
		"s: true",
		"s: 12",
		"s: !!binary aGk=",
		"s: [a]",
		"i: 0x10",
		"i: +5",
		"i: 1.5",
		"i: 99999999999999999999",
		"i: \"3\"",
		"n: .inf",
		"n: .nan",
		"n: 1e3",
		"n: 01",
		"n: 1_000",
		"b: yes",
		"b: True",
		"b: 1",
		"l: a",
		"l: [a, ~]",
		"l: [a, {b: c}]",
		"l: [1, true, \"x\\ny\"]",
		"s: &a x\nl: [*a]",
		"s: a\ns: b",
		"<<: {s: a}",
		"\xef\xbb\xbfs: x\r\n",
		"s: \"a\xffb\"",
		"s: x\n---\ns: y\n",
		"s: \"\\u2028\"",
		"s: [unclosed",
	} {
		f.Add([]byte(s))
	}
	const path = "params/v.yaml"
	f.Fuzz(func(t *testing.T, data []byte) {
		vals, err := tmpl.ParseValues(path, data)
		vals2, err2 := tmpl.ParseValues(path, data)
		if (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() || !reflect.DeepEqual(vals, vals2) {
			t.Fatalf("not deterministic: %v, %v; then %v, %v", vals, err, vals2, err2)
		}
		if err != nil {
			if vals != nil {
				t.Fatal("values returned with an error")
			}
			fuzzCheckFile(t, path, err)
			return
		}
		if vals == nil {
			t.Fatal("nil values and no error")
		}
		for name, v := range vals {
			p := tmpl.Param(name)
			if p == nil {
				t.Fatalf("value for %q, which is not declared", name)
			}
			if !json.Valid(v.JSON) {
				t.Fatalf("%s: JSON %q is not valid", name, v.JSON)
			}
			switch p.Type {
			case String:
				var s string
				if err := json.Unmarshal(v.JSON, &s); err != nil || s != v.Text {
					t.Fatalf("%s: text %q, JSON %s", name, v.Text, v.JSON)
				}
			case Integer, Number:
				if string(v.JSON) != v.Text {
					t.Fatalf("%s: text %q, JSON %s", name, v.Text, v.JSON)
				}
			case Boolean:
				if v.Text != fmt.Sprint(v.Bool) || string(v.JSON) != v.Text {
					t.Fatalf("%s: text %q, bool %v, JSON %s", name, v.Text, v.Bool, v.JSON)
				}
			case List:
				var items []string
				if err := json.Unmarshal(v.JSON, &items); err != nil {
					t.Fatalf("%s: JSON %s is not a list of strings", name, v.JSON)
				}
				if len(items) > 0 && v.Text != listValue(items).Text {
					t.Fatalf("%s: text %q, JSON %s", name, v.Text, v.JSON)
				}
			}
		}
	})
}

// FuzzParseOverrides checks the overrides reader against the example
// template: it never panics; a problem is reported in the file given;
// overrides it accepts lay the template out (with its first fixture's
// values, the summarized section closed and expanded) with the notes it
// gave, and each stale override (its hash not the descriptor's) has a
// note of its own starting "note: ".
func FuzzParseOverrides(f *testing.F) {
	data := fuzzExample(f)
	tmpl, err := Parse("examples/typed/code-review.yaml", data)
	if err != nil {
		f.Fatal(err)
	}
	vals, err := tmpl.valuesOf(tmpl.Path(), tmpl.Fixtures[0].Params)
	if err != nil {
		f.Fatal(err)
	}
	desc := tmpl.Descriptor()
	head := "ns: review\nkey: code-review\n"
	// Small seeds: the fuzzer minimizes each new input it finds
	// interesting by trying to cut every run of its bytes, and the 3.3 KB
	// example template as a seed kept it minimizing most of its run. A
	// few of its own keys stand for it.
	f.Add([]byte(head + "name: Code review\nparams:\n  - {name: repo, type: string}\nsections:\n  - key: role\n    title: Role\n    template: |\n      Review $repo.\n"))
	for _, s := range []string{
		"",
		"~",
		"[]",
		head,
		head + "sections: []\ntools: []\n",
		head + fmt.Sprintf("sections:\n  - path: rules\n    hash: %s\n    body: |\n      New rules for $language in ${repo}.\n", desc.Sections["rules"]),
		head + fmt.Sprintf("sections:\n  - path: task/files\n    hash: %s\n    body: \"Files:\\n$files\"\n  - path: strict\n    hash: %s\n    body: Strict, $$1.\n", desc.Sections["task/files"], desc.Sections["strict"]),
		head + fmt.Sprintf("tools:\n  - name: read_file\n    hash: %s\n    description: Read one file.\n", desc.Tools["read_file"]),
		head + "sections:\n  - path: rules\n    hash: 3f1c\n    body: stale\ntools:\n  - {name: read_file, description: stale}\n",
		head + fmt.Sprintf("sections:\n  - {path: role, hash: deadbeefdeadbeefdeadbeef, body: old}\n  - {path: role, hash: %s, body: new $repo}\n", desc.Sections["role"]),
		"ns: review\nkey: other\n",
		"ns: x\n",
		head + "sections:\n  - {path: nowhere, hash: x, body: b}\n  - {path: task/, hash: x, body: b}\n  - {path: \"\", body: b}\n  - {path: rules, hash: x}\n  - {path: rules, hash: x, body: [a]}\n",
		head + fmt.Sprintf("sections:\n  - {path: rules, hash: %s, body: \"$nope and $\"}\n", desc.Sections["rules"]),
		head + "tools:\n  - {name: write_file, hash: x, description: d}\n  - {name: read_file, hash: x, description: [d]}\n  - 7\n",
		head + "extra: true\n",
		head + "sections: {path: rules}\n",
		"\xef\xbb\xbf" + strings.ReplaceAll(head, "\n", "\r\n"),
		head + "tools:\n  - {name: read_file, hash: x, description: \"a\xffb\"}\n",
		head + "---\n" + head,
	} {
		f.Add([]byte(s))
	}
	type entries struct {
		Sections []struct {
			Path string `yaml:"path"`
			Hash string `yaml:"hash"`
			Body string `yaml:"body"`
		} `yaml:"sections"`
		Tools []struct {
			Name string `yaml:"name"`
			Hash string `yaml:"hash"`
		} `yaml:"tools"`
	}
	const path = "overrides/o.yaml"
	f.Fuzz(func(t *testing.T, data []byte) {
		ov, err := tmpl.ParseOverrides(path, data)
		if err != nil {
			if ov != nil {
				t.Fatal("overrides returned with an error")
			}
			fuzzCheckFile(t, path, err)
			return
		}
		if ov == nil {
			t.Fatal("nil overrides and no error")
		}
		for _, n := range ov.Notes {
			if !strings.HasPrefix(n, "note: "+path+": ") {
				t.Fatalf("note %q does not start with \"note: %s: \"", n, path)
			}
		}
		for _, expand := range [][]string{nil, {"rules"}} {
			l, err := tmpl.Layout(vals, Options{Overrides: ov, Expand: expand})
			if err != nil {
				t.Fatalf("accepted overrides do not lay out: %v", err)
			}
			if !reflect.DeepEqual(l.Notes, ov.Notes) && len(l.Notes)+len(ov.Notes) > 0 {
				t.Fatalf("layout notes %q, overrides' %q", l.Notes, ov.Notes)
			}
			var rec audit.Record
			if err := l.Record(&rec); err != nil || !json.Valid(rec.Inputs) {
				t.Fatalf("record: %v: %s", err, rec.Inputs)
			}
		}
		// Which are stale, read independently of the package's reader.
		text, err := prompt.Normalize(data)
		if err != nil {
			t.Fatalf("accepted, yet not normalised: %v", err)
		}
		var doc entries
		if yaml.Unmarshal([]byte(text), &doc) != nil {
			return
		}
		stale := 0
		for _, s := range doc.Sections {
			// Stale: written for another hash, or naming a parameter
			// the template does not declare.
			txt, _ := parseText(s.Body)
			if s.Hash != desc.Sections[s.Path] || undeclared(tmpl, txt) != "" {
				stale++
				if !fuzzHasNote(ov.Notes, fmt.Sprintf("section %q is stale", s.Path)) {
					t.Fatalf("no note for the stale override of section %q: %q", s.Path, ov.Notes)
				}
			}
		}
		for _, tl := range doc.Tools {
			if tl.Hash != desc.Tools[tl.Name] {
				stale++
				if !fuzzHasNote(ov.Notes, fmt.Sprintf("tool %q is stale", tl.Name)) {
					t.Fatalf("no note for the stale override of tool %q: %q", tl.Name, ov.Notes)
				}
			}
		}
		if stale != len(ov.Notes) {
			t.Fatalf("%d stale overrides, %d notes: %q", stale, len(ov.Notes), ov.Notes)
		}
	})
}

func fuzzHasNote(notes []string, s string) bool {
	for _, n := range notes {
		if strings.HasPrefix(n, "note: ") && strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// FuzzParseReply checks the return path on arbitrary replies: no panic;
// what it returns is compact JSON, an array for the example's array
// output, every item of which matches the item schema; an error keeps
// the reply.
func FuzzParseReply(f *testing.F) {
	data, err := os.ReadFile("../../examples/typed/code-review.yaml")
	if err != nil {
		f.Fatal(err)
	}
	tpl, err := Parse("typed/code-review.yaml", data)
	if err != nil {
		f.Fatal(err)
	}
	item := `{"file":"a.go","line":1,"severity":"nit","comment":"x"}`
	for _, r := range []string{
		"[" + item + "]",
		`{"items": [` + item + `]}`,
		"```json\n[" + item + "]\n```",
		"prose [" + item + ", {\"file\": 2}] more",
		`{"items": 5}`,
		`{"items": [}`,
		"",
		"[[[[",
	} {
		f.Add([]byte(r))
	}
	itemSchema, err := output.Compile("item", tpl.Output.Schema)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, reply []byte) {
		got, err := tpl.ParseReply(reply)
		if err != nil {
			var oe *output.Error
			if !errors.As(err, &oe) || oe.Reply != string(reply) {
				t.Fatalf("error %T %v does not keep the reply", err, err)
			}
			return
		}
		var items []json.RawMessage
		if err := json.Unmarshal(got, &items); err != nil {
			t.Fatalf("ParseReply returned %q, not an array: %v", got, err)
		}
		for i, it := range items {
			if probs := itemSchema.Check(it); len(probs) > 0 {
				t.Fatalf("item %d %s does not match the schema: %v", i, it, probs)
			}
		}
	})
}
