//go:build !unix

package catalog

import "os"

// processRunning reports whether a process with the id pid exists. Where
// that cannot be asked cheaply, only this process is known to run, and a
// leftover of another is taken for dead: compiles of one output directory
// are not expected to overlap.
func processRunning(pid int) bool { return pid == os.Getpid() }
