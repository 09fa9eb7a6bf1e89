package typed_test

import (
	"os"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/output"
	"github.com/tessera-dev/tessera/preset/typed"
)

func exampleTemplate(t testing.TB) *typed.Template {
	t.Helper()
	const path = "../../examples/typed/code-review.yaml"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := typed.Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

// TestParamsJSONSchema: the example parameters file is valid under its
// template's parameters schema, and what ParseValues refuses for its
// shape (an unknown name, a wrong type) the schema refuses too.
func TestParamsJSONSchema(t *testing.T) {
	tpl := exampleTemplate(t)
	s, err := output.Compile("params.schema.json", tpl.ParamsJSONSchema())
	if err != nil {
		t.Fatal(err)
	}
	const path = "../../examples/typed/params/code-review.yaml"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tpl.ParseValues(path, data); err != nil {
		t.Fatal(err)
	}
	doc, err := yamldoc.ToJSON(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if ps := s.Check(doc); len(ps) > 0 {
		t.Errorf("%s is not valid under its template's parameters schema: %v", path, ps)
	}
	for _, bad := range []string{
		"repo: a/b\nfiles: [a.go]\ndiff: x\nreviewer: me\n", // unknown name
		"repo: a/b\nfiles: a.go\ndiff: x\n",                 // a list as text
		"repo: a/b\nfiles: [a.go]\ndiff: x\nmax_comments: 2.5\n",
		"repo: true\nfiles: [a.go]\ndiff: x\n",
	} {
		if _, err := tpl.ParseValues("p.yaml", []byte(bad)); err == nil {
			t.Errorf("ParseValues accepts %q", bad)
			continue
		}
		doc, err := yamldoc.ToJSON("p.yaml", []byte(bad))
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Check(doc)) == 0 {
			t.Errorf("the schema accepts %q, which ParseValues refuses", bad)
		}
	}
	if (*typed.Template)(nil).ParamsJSONSchema() != nil {
		t.Error("a nil template has a schema")
	}
	if !strings.Contains(string(tpl.ParamsJSONSchema()), "no default: bind it when rendering") {
		t.Error("a parameter without a default is not marked")
	}
}

// FuzzParamsJSONSchema: a parameters file ParseValues accepts for the
// example template is valid under the template's schema.
func FuzzParamsJSONSchema(f *testing.F) {
	tpl := exampleTemplate(f)
	s, err := output.Compile("params.schema.json", tpl.ParamsJSONSchema())
	if err != nil {
		f.Fatal(err)
	}
	f.Add("repo: acme/billing\nfiles: [a.go, 7, true]\ndiff: x\nmax_comments: 3\nstrict: true\n")
	f.Add("repo: 12\nfiles: []\ndiff: ''\nlanguage: Go\n")
	f.Add("{\"repo\": \"a/b\", \"files\": [\"x\"], \"diff\": \"d\"}")
	f.Fuzz(func(t *testing.T, doc string) {
		if _, err := tpl.ParseValues("p.yaml", []byte(doc)); err != nil {
			return
		}
		js, err := yamldoc.ToJSON("p.yaml", []byte(doc))
		if err != nil {
			return // a YAML value JSON cannot hold
		}
		if ps := s.Check(js); len(ps) > 0 {
			t.Fatalf("ParseValues accepts %q, the schema refuses it: %v", doc, ps)
		}
	})
}
