//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package audit

import (
	"os"
	"syscall"
)

// indexing is whether logs keep an index (see index.go): only where
// appends hold a lock that the index's updates can share.
const indexing = true

func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
