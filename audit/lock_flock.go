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

// openNonblock keeps the open of a FIFO put in a log's place from
// blocking; the descriptor is then refused.
const openNonblock = syscall.O_NONBLOCK

// links returns the number of hard links of the file fi describes.
func links(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
