package langfuse

import "github.com/tessera-dev/tessera/internal/racetest"

// raceEnabled is true under the race detector, where TestLangfuseClient
// skips: it builds tessera without the detector, serves from that
// process and checks what Node's client gets, so the detector has
// nothing to find in it, and the build is a link. .ci/run runs it
// without -race.
const raceEnabled = racetest.Enabled
