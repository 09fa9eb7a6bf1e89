//go:build unix

package fileread

import "syscall"

// nonblock makes opening a FIFO return at once instead of waiting for a
// writer.
const nonblock = syscall.O_NONBLOCK
