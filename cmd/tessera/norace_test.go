//go:build !race

package main

// raceEnabled is true when the tests run with the race detector (see
// race_test.go).
const raceEnabled = false
