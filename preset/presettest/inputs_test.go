package presettest

import (
	"context"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/presets"
)

// clashing is a preset selected by an input one of Tessera's presets
// already selects with.
type clashing struct{}

func (clashing) Name() string { return "clashing" }
func (clashing) Inputs() []preset.Input {
	return []preset.Input{{Name: "spec", Selects: true}}
}
func (clashing) Load(context.Context, *preset.Env, preset.Args) (*preset.Layout, error) {
	return nil, nil
}
func (clashing) Rebuild(context.Context, *preset.Env, *audit.Record) (*preset.Layout, error) {
	return nil, nil
}
func (clashing) Units(context.Context, *preset.Env) ([]preset.Unit, error) { return nil, nil }

// TestCheckInputs: the inputs promise catches a preset selected by an
// input another preset is selected by, and passes Tessera's own.
func TestCheckInputs(t *testing.T) {
	if err := checkInputs(clashing{}, presets.Default()); err == nil || !strings.Contains(err.Error(), "--spec already selects preset canonical") {
		t.Errorf("a clashing preset: %v", err)
	}
	for _, p := range presets.Default().Presets() {
		if err := checkInputs(p, presets.Default()); err != nil {
			t.Errorf("%s: %v", p.Name(), err)
		}
	}
}
