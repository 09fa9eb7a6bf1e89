//go:build unix

package catalog

import (
	"errors"
	"os"
	"syscall"
)

// processRunning reports whether a process with the id pid exists (this
// process counts as running).
func processRunning(pid int) bool {
	if pid == os.Getpid() {
		return true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
