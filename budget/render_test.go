package budget

import (
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
)

// plainRender renders test sections in the plain style.
func plainRender(secs []prompt.Section) prompt.Prompt { return render.Render(secs, render.Plain) }
