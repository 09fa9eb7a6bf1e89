package yamldoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/prompt"
)

// FuzzDecode decodes random YAML into a struct with a field of every kind
// the decoder supports: it must never panic; every problem must be a
// diagnostic in the file, on a line the file has; every recorded line
// must be one of the file's; a schema it accepts must be valid JSON; and
// decoding again must give the same result.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"name: ann\nenabled: true\ncount: 3\nratio: .5\ntags: [a, b]\n",
		"items:\n  - id: a\n    priority: 2\n    sub: {handle: h, big: 127}\n  - priority: 9\n",
		"owner: {tone: calm, tonee: x}\nschema: {type: object, properties: {z: {}, a: [1, 0x10, ~, 1e3, \"\\u2028\"]}}\n",
		"schema: {a: .inf, b: !!binary aGk=, ~: 1}\n",
		"size: 3KB\npairs: [a=1, {key: b, value: c}, x, [y]]\n",
		"name: &a x\nowner: {handle: *a}\ntags: [*a]\nitems: [&i {id: i}, *i]\n",
		"count: 99999999999999999999\nratio: .nan\nitems: [{sub: {big: 300}}]\n",
		"? [k]\n: v\n~: 1\n123: x\n",
		"- a\n- b\n",
		"~\n",
		"name: !custom x\ncount: !!int x\nenabled: !!bool maybe\nratio: !!float y\n",
		"plain: |\n  block\n  text\ntags:\n  - ~\n  - {}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		nl := bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
		lines := bytes.Count(nl, []byte{'\n'}) + 1
		n, err := Parse("f.yaml", data)
		if err != nil {
			var list diag.List
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v is not a diag.List", err)
			}
			return
		}
		var doc testDoc
		d := testSchema.Decode("f.yaml", n, &doc)
		errs := d.Errors()
		for _, e := range errs {
			if e == nil || e.Path != "f.yaml" || e.Line < 1 || e.Line > lines || e.Msg == "" || e.Col != 0 {
				t.Fatalf("bad diagnostic %+v for %d lines", e, lines)
			}
		}
		for at, line := range d.Lines() {
			if line < 1 || line > lines {
				t.Fatalf("field %s at line %d of %d", at, line, lines)
			}
		}
		if len(errs) == 0 && doc.Schema != nil && !json.Valid(doc.Schema) {
			t.Fatalf("schema %s is not valid JSON", doc.Schema)
		}
		// Read as a Tree (the fast reader's nodes, when it reads the
		// text): the same value, problems and places.
		text, _ := prompt.Normalize(data) // Parse normalised it
		treeDecodes(t, testSchema, Parser{}, text, &doc, d)
		var again testDoc
		d2 := testSchema.Decode("f.yaml", n, &again)
		if !slices.EqualFunc(d2.Errors(), errs, func(a, b *diag.Error) bool { return a.Error() == b.Error() }) {
			t.Fatalf("second decode differs:\n%v\n%v", d2.Errors(), errs)
		}
		// Decoder.Decode records each field as it goes, where
		// Schema.Decode finds them again from the tree: the same places.
		if n != nil {
			var recorded testDoc
			d4 := testSchema.decoder("f.yaml")
			d4.Decode(n, "", &recorded)
			if got, want := d4.Lines(), d.Lines(); !maps.Equal(got, want) {
				t.Fatalf("recorded lines %v, found again %v", got, want)
			}
		}
		// Without rules, with columns: the same problems, located as well.
		var plain testDoc
		plainErrs := NewSchema[testDoc](Options{Columns: true}).Decode("f.yaml", n, &plain).Errors()
		for _, e := range plainErrs {
			if e.Line < 1 || e.Line > lines || e.Col < 1 {
				t.Fatalf("bad diagnostic %+v for %d lines", e, lines)
			}
		}
		// From a Parser with columns, with labels and wording of one's
		// own: as many problems, each at a line and a column, and every
		// field at the line Lines gives and a column.
		cn, err := Parser{Columns: true}.Parse("f.yaml", data)
		if err != nil {
			t.Fatalf("parses without columns, not with: %v", err)
		}
		var worded testDoc
		wordedSchema := NewSchema[testDoc](Options{Columns: true, Label: strings.ToUpper, TypeError: func(want, found string) string { return "write " + want }})
		d3 := wordedSchema.Decode("f.yaml", cn, &worded)
		treeDecodes(t, wordedSchema, Parser{Columns: true}, text, &worded, d3)
		if got := d3.Errors(); len(got) != len(plainErrs) {
			t.Fatalf("%d problems with labels, %d without:\n%v\n%v", len(got), len(plainErrs), got, plainErrs)
		}
		for _, e := range d3.Errors() {
			if e.Line < 1 || e.Line > lines || e.Col < 1 {
				t.Fatalf("bad diagnostic %+v for %d lines", e, lines)
			}
		}
		for at, line := range d3.Lines() {
			if l, c := d3.Pos(at); l != line || c < 1 {
				t.Fatalf("Pos(%q) = %d:%d, Lines says line %d", at, l, c, line)
			}
		}
	})
}
