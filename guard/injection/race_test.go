//go:build race

package injection

// raceEnabled is true under the race detector, where TestModelTrained
// skips: training runs in one goroutine, so the detector has nothing to
// find in it, and it makes it ten times slower. .ci/run runs it without
// -race.
const raceEnabled = true
