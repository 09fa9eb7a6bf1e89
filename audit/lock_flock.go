//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package audit

import (
	"os"
	"syscall"
)

// indexing is whether logs keep an index (see index.go): only where
// appends hold a lock that the index's updates can share.
const indexing = true

// openSafe is added to the flags the index is opened with: a link in its
// place is not followed, and a FIFO does not block the open.
const openSafe = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
