package agent_test

import (
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/preset/agent"
	"github.com/tessera-dev/tessera/preset/presettest"
)

// TestZeroValues: no exported function or method of the package panics
// on zero values (nil pointers, empty strings); each returns an error or
// an empty result instead. Every exported function must be listed.
func TestZeroValues(t *testing.T) {
	presettest.CheckZeroValues(t, ".", map[string]any{
		"Preset.Summary":        (*agent.Preset).Summary,
		"Preset.UnitsSummary":   (*agent.Preset).UnitsSummary,
		"JSONSchema":            agent.JSONSchema,
		"Build":                 agent.Build,
		"DefaultTemplates":      agent.DefaultTemplates,
		"Fit":                   agent.Fit,
		"FormatTaskState":       agent.FormatTaskState,
		"InputError.Error":      (*agent.InputError).Error,
		"Library.For":           (*agent.Library).For,
		"Library.Path":          (*agent.Library).Path,
		"Library.Sets":          (*agent.Library).Sets,
		"ListWorkspace":         agent.ListWorkspace,
		"LoadDir":               agent.LoadDir,
		"New":                   agent.New,
		"ParseLibrary":          agent.ParseLibrary,
		"ParseMemory":           agent.ParseMemory,
		"ParseNotes":            agent.ParseNotes,
		"ParseRole":             agent.ParseRole,
		"ParseSubtask":          agent.ParseSubtask,
		"ParseTaskState":        agent.ParseTaskState,
		"ParseTemplate":         agent.ParseTemplate,
		"ParseToolCalls":        agent.ParseToolCalls,
		"ParseTools":            agent.ParseTools,
		"Preset.Inputs":         (*agent.Preset).Inputs,
		"Preset.Load":           (*agent.Preset).Load,
		"Preset.Name":           (*agent.Preset).Name,
		"Preset.Rebuild":        (*agent.Preset).Rebuild,
		"Preset.Units":          (*agent.Preset).Units,
		"Role.InputJSONSchema":  agent.Role.InputJSONSchema,
		"Role.Verb":             agent.Role.Verb,
		"RoleInputs":            agent.RoleInputs,
		"Roles":                 agent.Roles,
		"Style":                 agent.Style,
		"Template.Keys":         (*agent.Template).Keys,
		"Template.Path":         (*agent.Template).Path,
		"Template.Role":         (*agent.Template).Role,
		"Templates.Library":     (*agent.Templates).Library,
		"Templates.Template":    (*agent.Templates).Template,
		"Templates.With":        (*agent.Templates).With,
		"Templates.WithLibrary": (*agent.Templates).WithLibrary,
		"Text":                  agent.Text,
	})
}

// TestNilInputsAreErrors: the functions that check or build from a value
// say, as an error, that they were given none.
func TestNilInputsAreErrors(t *testing.T) {
	if _, err := agent.Text(nil, nil); err == nil || !strings.Contains(err.Error(), "no input") {
		t.Errorf("Text(nil, nil): %v", err)
	}
	// A zero Templates lacks every template: the defaults stand in.
	in := &agent.Input{Role: agent.Planner, Goal: "g"}
	got, err := agent.Text(&agent.Templates{}, in)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := agent.Text(nil, in); got != want {
		t.Errorf("zero Templates:\n%s\nwant the defaults':\n%s", got, want)
	}
}
