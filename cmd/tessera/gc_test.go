package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestOneShotGC: a command that runs once collects at oneShotGCPercent,
// tessera serve at Go's default, and GOGC in the environment wins over
// both.
func TestOneShotGC(t *testing.T) {
	t.Setenv("GOGC", "200")
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	oneShotGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set, the command set the collector's target to %d, want it left to the environment (100)", got)
	}
	os.Unsetenv("GOGC") // t.Setenv restores it at the end
	oneShotGC()
	if got := debug.SetGCPercent(100); got != oneShotGCPercent {
		t.Errorf("a one-shot command's target is %d, want %d", got, oneShotGCPercent)
	}
	debug.SetGCPercent(oneShotGCPercent)
	serveGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("tessera serve's target is %d, want Go's default 100", got)
	}
}
