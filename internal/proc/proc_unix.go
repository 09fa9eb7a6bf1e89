//go:build unix

package proc

import (
	"errors"
	"os"
	"syscall"
)

// Running reports whether a process with the id pid exists (this process
// counts as running), and ok true: on Unix the system can be asked.
func Running(pid int) (running, ok bool) {
	if pid == os.Getpid() {
		return true, true
	}
	if pid <= 0 {
		return false, true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM), true
}
