//go:build unix

package hf

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the process has used, user and system,
// in all its threads.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
