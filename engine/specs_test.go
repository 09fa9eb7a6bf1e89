package engine

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/preset/canonical"
	"github.com/tessera-dev/tessera/presets"
)

func specCatalog(t *testing.T, files map[string]string) *catalog.Catalog {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	c, err := catalog.OpenFS(context.Background(), fsys, presets.Default().Sections()...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const planSpec = "task:\n  - instruction: Plan.\ninput:\n  userQuery: First?\n"

// buildSpecs builds c and returns the canonical prompts built.
func buildSpecs(ctx context.Context, c *catalog.Catalog) ([]Built, error) {
	e := Engine{Registry: presets.Default()}
	built, err := e.Build(ctx, c)
	if err != nil {
		return nil, err
	}
	var specs []Built
	for _, b := range built {
		if b.Result.Preset == canonical.Name {
			specs = append(specs, b)
		}
	}
	return specs, nil
}

func TestBuildSpecs(t *testing.T) {
	ctx := context.Background()
	c := specCatalog(t, map[string]string{
		"tessera.yaml":       "tasks: t\nworkflows: w\nspecs: s\n",
		"w/flow.json":        `{"nodes": []}`,
		"s/b.yaml":           planSpec,
		"s/a.json":           `{"task": [{"instruction": "A."}], "input": {"userQuery": "q"}}`,
		"s/notes.txt":        "not a spec",
		"s/sub/ignored.yaml": planSpec,
	})
	built, err := buildSpecs(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(built) != 2 || built[0].Unit.Entry.Get("spec") != "s/a.json" || built[0].Unit.Out != "specs/a.txt" || built[1].Unit.Entry.Get("spec") != "s/b.yaml" || built[1].Unit.Out != "specs/b.txt" {
		t.Fatalf("built %+v", built)
	}
	if !strings.Contains(built[1].Result.Prompt.Text, "- (3) Plan.") {
		t.Fatalf("spec b rendered as:\n%s", built[1].Result.Prompt.Text)
	}
}

func TestBuildSpecsErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		files map[string]string
		want  []string
	}{
		{map[string]string{"tessera.yaml": "tasks: t\nworkflows: w\nspecs: s\n", "w/x.json": `{"nodes": []}`},
			[]string{`tessera.yaml:3: specs directory "s" does not exist`}},
		{map[string]string{"tessera.yaml": "tasks: t\nworkflows: w\nspecs: s\n", "w/specs.json": `{"nodes": []}`, "s/a.yaml": planSpec},
			[]string{`w/specs.json: a workflow named "specs" would be compiled into the directory the specs go to`}},
		{map[string]string{"tessera.yaml": "tasks: t\nworkflows: w\nspecs: s\n", "w/x.json": `{"nodes": []}`, "s/a.yaml": planSpec, "s/a.yml": planSpec, "s/bad.json": `{"task": []}`},
			[]string{`s/a.yml: compiles to specs/a.txt, as s/a.yaml does`, `s/bad.json:1:2: `}},
	} {
		_, err := buildSpecs(ctx, specCatalog(t, tc.files))
		if err == nil {
			t.Fatalf("%v: no error", tc.files)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q lacks %q", err, w)
			}
		}
	}
}
