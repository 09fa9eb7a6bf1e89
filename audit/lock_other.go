//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package audit

import "os"

// On systems without flock, Append relies on the operating system's atomic
// append of a single write to a file opened for appending, and logs keep
// no index: without a lock, two appends could not update it together.
func lockFile(*os.File) error { return nil }

const indexing = false

// openSafe is 0 where there is no O_NOFOLLOW: openIndex looks first.
const openSafe = 0

func unlockFile(*os.File) {}

// openNonblock is 0 where there is no O_NONBLOCK; the log's path is
// checked before it is opened.
const openNonblock = 0

// links reports 1: the number of hard links is not known here.
func links(os.FileInfo) uint64 { return 1 }
