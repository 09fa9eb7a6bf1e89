//go:build !unix

package proc

import "os"

// Running reports whether a process with the id pid exists. Where that
// cannot be asked cheaply, only this process is known to run: running is
// pid == os.Getpid(), and ok is false, so that a caller can choose
// whether to take another process's leftovers for dead.
func Running(pid int) (running, ok bool) { return pid == os.Getpid(), false }
