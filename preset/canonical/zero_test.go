package canonical_test

import (
	"testing"

	"github.com/tessera-dev/tessera/preset/canonical"
	"github.com/tessera-dev/tessera/preset/presettest"
)

// TestZeroValues: no exported function or method of the package panics
// on zero values. Every exported function must be listed.
func TestZeroValues(t *testing.T) {
	presettest.CheckZeroValues(t, ".", map[string]any{
		"Preset.Summary":            (*canonical.Preset).Summary,
		"Preset.UnitsSummary":       (*canonical.Preset).UnitsSummary,
		"JSONSchema":                canonical.JSONSchema,
		"Assemble":                  canonical.Assemble,
		"Layout":                    canonical.Layout,
		"New":                       canonical.New,
		"ParseSpec":                 canonical.ParseSpec,
		"Preset.Inputs":             (*canonical.Preset).Inputs,
		"Preset.Load":               (*canonical.Preset).Load,
		"Preset.Name":               (*canonical.Preset).Name,
		"Preset.Section":            (*canonical.Preset).Section,
		"Preset.Rebuild":            (*canonical.Preset).Rebuild,
		"Preset.Units":              (*canonical.Preset).Units,
		"Render":                    canonical.Render,
		"Result.Layout":             (*canonical.Result).Layout,
		"SectionKeys":               canonical.SectionKeys,
		"Spec.Redacted":             (*canonical.Spec).Redacted,
		"Spec.Validate":             (*canonical.Spec).Validate,
		"StableKeys":                canonical.StableKeys,
		"Style":                     canonical.Style,
		"TaskAnnotation.IsRequired": (*canonical.TaskAnnotation).IsRequired,
	})
}
