package preset_test

import (
	"testing"

	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/presettest"
)

// TestZeroValues: no exported function or method of the package panics
// on zero values. Every exported function must be listed.
func TestZeroValues(t *testing.T) {
	presettest.CheckZeroValues(t, ".", map[string]any{
		"Args.Has":          preset.Args.Has,
		"InputError.Error":  (*preset.InputError).Error,
		"InputError.Unwrap": (*preset.InputError).Unwrap,
		"JoinErrors":        preset.JoinErrors,
		"NewRegistry":       preset.NewRegistry,
		"Problem":           preset.Problem,
		"Registry.Lookup":   (*preset.Registry).Lookup,
		"Registry.Presets":  (*preset.Registry).Presets,
		"Registry.Register": (*preset.Registry).Register,
		"Registry.Select":   (*preset.Registry).Select,
		"Registry.Sections": (*preset.Registry).Sections,
	})
}
