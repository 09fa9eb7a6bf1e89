package untrusted_test

import (
	"testing"

	"github.com/tessera-dev/tessera/preset/layered/untrusted"
	"github.com/tessera-dev/tessera/preset/presettest"
)

// TestZeroValues: no exported function or method of the package panics
// on zero values. Every exported function must be listed.
func TestZeroValues(t *testing.T) {
	presettest.CheckZeroValues(t, ".", map[string]any{
		"Entry.Instruction": untrusted.Entry.Instruction,
		"JSONSchema":        untrusted.JSONSchema,
		"MemoryJSONSchema":  untrusted.MemoryJSONSchema,
		"ParseContext":      untrusted.ParseContext,
		"ParseMemories":     untrusted.ParseMemories,
	})
}
