package tessera_test

import "github.com/tessera-dev/tessera/internal/racetest"

// raceEnabled is true under the race detector, where TestReadmeInstall
// and TestReadmeGoSnippetsRun skip: they run the go command and the
// programs it builds, none of them race-enabled, so the detector has
// nothing to find in them, and each costs a link. .ci/run runs them
// without -race.
const raceEnabled = racetest.Enabled
