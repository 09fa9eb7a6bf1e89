//go:build !race

package langfuse

// raceEnabled is false without the race detector (see race_test.go).
const raceEnabled = false
