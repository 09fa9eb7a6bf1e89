package presettest_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/canonical"
	"github.com/tessera-dev/tessera/preset/presettest"
	"github.com/tessera-dev/tessera/preset/template"
	"github.com/tessera-dev/tessera/presets"
)

var examples = filepath.Join("..", "..", "examples")

// TestTemplatePreset runs the conformance suite on every node of the
// bundled example catalog.
func TestTemplatePreset(t *testing.T) {
	c, err := catalog.Open(context.Background(), examples, presets.Default().Sections()...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var cases []presettest.Case
	for _, n := range [][2]string{{"pm_discovery.v1", "pgc"}, {"pm_discovery.v1", "review"}, {"technical_arch.v1", "pgc"}, {"technical_arch.v1", "review"}} {
		cases = append(cases, presettest.Case{Name: n[0] + "/" + n[1], Args: preset.Args{"workflow": n[0], "node": n[1]}, Catalog: c})
	}
	presettest.Run(t, template.New(), cases...)
}

// TestCanonicalPreset runs the conformance suite on the example specs,
// with and without a catalog, and with each rendering setting.
func TestCanonicalPreset(t *testing.T) {
	c, err := catalog.Open(context.Background(), examples, presets.Default().Sections()...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var cases []presettest.Case
	for _, name := range []string{"v2-example.yaml", "support-ticket.yaml"} {
		spec := filepath.Join(examples, "canonical", name)
		cases = append(cases,
			presettest.Case{Name: name, Args: preset.Args{"spec": spec}},
			presettest.Case{Name: name + " in a catalog", Args: preset.Args{"spec": spec}, Catalog: c},
			presettest.Case{Name: name + " level 3, hidden empties", Args: preset.Args{"spec": spec, "heading-level": "3", "hide-empty": "true"}},
		)
	}
	presettest.Run(t, canonical.New(), cases...)
}
