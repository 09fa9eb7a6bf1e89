package typed_test

import (
	"testing"

	"github.com/tessera-dev/tessera/preset/presettest"
	"github.com/tessera-dev/tessera/preset/typed"
)

// TestZeroValues: no exported function or method of the package panics
// on zero values. Every exported function must be listed.
func TestZeroValues(t *testing.T) {
	presettest.CheckZeroValues(t, ".", map[string]any{
		"Preset.Summary":            (*typed.Preset).Summary,
		"Preset.UnitsSummary":       (*typed.Preset).UnitsSummary,
		"JSONSchema":                typed.JSONSchema,
		"OverridesJSONSchema":       typed.OverridesJSONSchema,
		"ExpansionRequired.Apply":   (*typed.ExpansionRequired).Apply,
		"ExpansionRequired.Error":   (*typed.ExpansionRequired).Error,
		"SectionSpec.Clone":         (*typed.SectionSpec).Clone,
		"Template.Check":            (*typed.Template).Check,
		"Template.Clone":            (*typed.Template).Clone,
		"Template.OpenSections":     (*typed.Template).OpenSections,
		"ContractHash":              typed.ContractHash,
		"MissingError.Error":        (*typed.MissingError).Error,
		"New":                       typed.New,
		"NewStore":                  typed.NewStore,
		"Store.Dir":                 (*typed.Store).Dir,
		"Store.List":                (*typed.Store).List,
		"Store.Path":                (*typed.Store).Path,
		"Store.Resolve":             (*typed.Store).Resolve,
		"Store.Seed":                (*typed.Store).Seed,
		"Store.Upsert":              (*typed.Store).Upsert,
		"Param.Required":            (*typed.Param).Required,
		"Parse":                     typed.Parse,
		"Preset.Inputs":             (*typed.Preset).Inputs,
		"Preset.Load":               (*typed.Preset).Load,
		"Preset.Name":               (*typed.Preset).Name,
		"Preset.Section":            (*typed.Preset).Section,
		"Preset.Rebuild":            (*typed.Preset).Rebuild,
		"Preset.Units":              (*typed.Preset).Units,
		"Template.Bind":             (*typed.Template).Bind,
		"Template.Descriptor":       (*typed.Template).Descriptor,
		"Template.Expansion":        (*typed.Template).Expansion,
		"Template.Layout":           (*typed.Template).Layout,
		"Template.Param":            (*typed.Template).Param,
		"Template.ParseOverrides":   (*typed.Template).ParseOverrides,
		"Template.ParseReply":       (*typed.Template).ParseReply,
		"Template.ParseReplyWith":   (*typed.Template).ParseReplyWith,
		"Template.ParseValues":      (*typed.Template).ParseValues,
		"Template.ParamsJSONSchema": (*typed.Template).ParamsJSONSchema,
		"Template.Path":             (*typed.Template).Path,
		"Template.ReadSection":      (*typed.Template).ReadSection,
		"Template.Section":          (*typed.Template).Section,
		"Template.Text":             (*typed.Template).Text,
		"Template.Walk":             (*typed.Template).Walk,
		"Text.Params":               (*typed.Text).Params,
		"Type.String":               typed.Type.String,
	})
}
