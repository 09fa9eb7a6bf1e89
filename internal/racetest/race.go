//go:build race

package racetest

// Enabled is true when the race detector is on.
const Enabled = true
