package tokenizer

import "github.com/tessera-dev/tessera/internal/racetest"

// raceEnabled is true under the race detector, where the exhaustive tests
// check a sample: they run in one goroutine, so the detector has nothing
// to find in them, and it makes them ten times slower.
const raceEnabled = racetest.Enabled
