package output

import "github.com/tessera-dev/tessera/internal/racetest"

// raceEnabled is true under the race detector, where
// TestHostileReplyMemory skips: this package starts no goroutine, so the
// detector has nothing to find in it, and it makes the test's 2 MiB
// replies twelve times slower. .ci/run runs it without -race.
const raceEnabled = racetest.Enabled
