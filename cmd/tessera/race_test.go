package main

import "github.com/tessera-dev/tessera/internal/racetest"

// raceEnabled is true when the tests run with the race detector, which
// multiplies each process's memory: TestHostileInputs then checks exit
// codes but not peak memory, on smaller inputs (.ci/run runs the full
// pass without -race).
const raceEnabled = racetest.Enabled
