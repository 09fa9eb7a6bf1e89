//go:build !unix

package fileread

// nonblock is 0 where the platform has no non-blocking open; the check
// before the open is the guard there.
const nonblock = 0
