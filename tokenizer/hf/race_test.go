package hf

import "github.com/tessera-dev/tessera/internal/racetest"

const raceEnabled = racetest.Enabled
