//go:build !race

// Package racetest says whether the race detector is on, for tests that
// skip under it, or read part of their data, where it has nothing to
// find: one goroutine's work, or programs built without it. .ci/run runs
// those tests without -race as well.
package racetest

// Enabled is true when the race detector is on.
const Enabled = false
