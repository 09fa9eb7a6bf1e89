package preset_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/preset"
)

// named is a preset that only has a name and inputs.
type named struct {
	name   string
	inputs []preset.Input
}

func (n named) Name() string           { return n.name }
func (n named) Inputs() []preset.Input { return n.inputs }
func (named) Load(context.Context, *preset.Env, preset.Args) (*preset.Layout, error) {
	return nil, nil
}
func (named) Rebuild(context.Context, *preset.Env, *audit.Record) (*preset.Layout, error) {
	return nil, nil
}
func (named) Units(context.Context, *preset.Env) ([]preset.Unit, error) { return nil, nil }

// TestRegisterRefusesSharedSelectingInput: two presets selected by the
// same input cannot both be registered, as Register's doc says, so that
// Select never has to say "use either --x or --x".
func TestRegisterRefusesSharedSelectingInput(t *testing.T) {
	a := named{"alpha", []preset.Input{{Name: "spec", Selects: true}, {Name: "budget-hint"}}}
	b := named{"beta", []preset.Input{{Name: "notes", Selects: true}, {Name: "spec", Selects: true}}}
	_, err := preset.NewRegistry(a, b)
	if err == nil || !strings.Contains(err.Error(), "input --spec already selects preset alpha") {
		t.Fatalf("NewRegistry with a shared selecting input: %v", err)
	}
	// An input that selects one preset may be an ordinary input of another.
	c := named{"gamma", []preset.Input{{Name: "notes", Selects: true}, {Name: "spec"}}}
	if _, err := preset.NewRegistry(a, c); err != nil {
		t.Fatalf("a shared ordinary input: %v", err)
	}
}
