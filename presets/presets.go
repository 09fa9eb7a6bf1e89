// Package presets gathers Tessera's five presets (template, canonical,
// agent, typed and layered) in one registry, for the tessera command and
// for programs that want them all. The engine knows none of them: it
// works with whatever registry it is given, so a program that needs one
// preset, or a preset of its own, registers just those.
package presets

import (
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/agent"
	"github.com/tessera-dev/tessera/preset/canonical"
	"github.com/tessera-dev/tessera/preset/layered"
	"github.com/tessera-dev/tessera/preset/template"
	"github.com/tessera-dev/tessera/preset/typed"
)

// Default returns a new registry of Tessera's presets: template,
// canonical, agent, typed and layered, in that order. Each call makes a
// new one, so a program may register presets of its own in it.
func Default() *preset.Registry {
	r, err := preset.NewRegistry(template.New(), canonical.New(), agent.New(), typed.New(), layered.New())
	if err != nil {
		panic(err) // the built-in presets are valid; TestDefault keeps them so
	}
	return r
}
