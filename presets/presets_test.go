package presets_test

import (
	"slices"
	"testing"

	"github.com/tessera-dev/tessera/presets"
)

// TestDefault: the five presets register without a clash, in order, and
// each call gives a registry of its own.
func TestDefault(t *testing.T) {
	var names []string
	for _, p := range presets.Default().Presets() {
		names = append(names, p.Name())
	}
	if want := []string{"template", "canonical", "agent", "typed", "layered"}; !slices.Equal(names, want) {
		t.Errorf("presets %v, want %v", names, want)
	}
	if a, b := presets.Default(), presets.Default(); a == b {
		t.Error("Default returned the same registry twice")
	}
}
