package layered_test

import (
	"testing"

	"github.com/tessera-dev/tessera/preset/layered"
	"github.com/tessera-dev/tessera/preset/presettest"
)

// TestZeroValues: no exported function or method of the package panics
// on zero values. Every exported function must be listed.
func TestZeroValues(t *testing.T) {
	presettest.CheckZeroValues(t, ".", map[string]any{
		"WithEmbedder":                layered.WithEmbedder,
		"Preset.Summary":              (*layered.Preset).Summary,
		"Preset.UnitsSummary":         (*layered.Preset).UnitsSummary,
		"JSONSchema":                  layered.JSONSchema,
		"Assembler.Evaluate":          (*layered.Assembler).Evaluate,
		"Assembler.FitRanker":         (*layered.Assembler).FitRanker,
		"Capability.Concepts":         (*layered.Capability).Concepts,
		"Capability.Glossary":         (*layered.Capability).Glossary,
		"Setup.FoundByKeywords":       (*layered.Setup).FoundByKeywords,
		"Assembler.InjectionDetector": (*layered.Assembler).InjectionDetector,
		"Concepts.Of":                 (*layered.Concepts).Of,
		"Concepts.IsKeywords":         (*layered.Concepts).IsKeywords,
		"Assembler.Select":            (*layered.Assembler).Select,
		"EmbedVectors":                layered.EmbedVectors,
		"ParseVectors":                layered.ParseVectors,
		"Selection.Report":            (*layered.Selection).Report,
		"Setup.NewEmbedder":           (*layered.Setup).NewEmbedder,
		"Vectors.Marshal":             (*layered.Vectors).Marshal,
		"New":                         layered.New,
		"ParseSetup":                  layered.ParseSetup,
		"Preset.Inputs":               (*layered.Preset).Inputs,
		"Preset.Load":                 (*layered.Preset).Load,
		"Preset.Name":                 (*layered.Preset).Name,
		"Preset.Section":              (*layered.Preset).Section,
		"Preset.Rebuild":              (*layered.Preset).Rebuild,
		"Preset.Units":                (*layered.Preset).Units,
		"Selection.Layout":            (*layered.Selection).Layout,
	})
}
