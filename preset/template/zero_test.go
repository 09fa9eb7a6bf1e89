package template_test

import (
	"testing"

	"github.com/tessera-dev/tessera/preset/presettest"
	"github.com/tessera-dev/tessera/preset/template"
)

// TestZeroValues: no exported function or method of the package panics
// on zero values. Every exported function must be listed.
func TestZeroValues(t *testing.T) {
	presettest.CheckZeroValues(t, ".", map[string]any{
		"New":                 template.New,
		"Preset.Inputs":       (*template.Preset).Inputs,
		"Preset.Load":         (*template.Preset).Load,
		"Preset.Name":         (*template.Preset).Name,
		"Preset.Rebuild":      (*template.Preset).Rebuild,
		"Preset.Units":        (*template.Preset).Units,
		"Preset.Summary":      (*template.Preset).Summary,
		"Preset.UnitsSummary": (*template.Preset).UnitsSummary,
	})
}
