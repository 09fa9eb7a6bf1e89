package injection

import "github.com/tessera-dev/tessera/internal/racetest"

// raceEnabled is true under the race detector, where TestModelTrained
// skips and TestPrefilter and TestEvaluationSet read part of their sets:
// training and scoring run in one goroutine, so the detector has nothing
// to find in them, and it makes them ten times slower. .ci/run runs the
// package without -race as well.
const raceEnabled = racetest.Enabled
