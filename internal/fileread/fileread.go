// Package fileread reads the files Tessera is given (catalog files, specs,
// inputs named on the command line) so that a read is bounded and never
// hangs: only regular files are opened, a FIFO, socket or device is refused
// before it is opened and again on the open descriptor, and no more than a
// set number of bytes is read.
package fileread

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// DefaultMaxBytes is the size cap on any one file Tessera reads when no
// other is configured (16 MiB).
const DefaultMaxBytes int64 = 16 << 20

// EnvMaxBytes is the environment variable the tessera command reads for
// the size cap on the files named on its command line (and standard
// input), as its --max-file-bytes flag sets it.
const EnvMaxBytes = "TESSERA_MAX_FILE_BYTES"

// TooLargeError reports a file over the size cap.
type TooLargeError struct {
	Path string
	Size int64 // the size seen, or Max+1 when the file grew while read
	Max  int64
}

func (e *TooLargeError) Error() string { return e.Path + " " + e.Reason() }

// Reason is the message without the path.
func (e *TooLargeError) Reason() string {
	return fmt.Sprintf("is %d bytes, over the %d-byte cap on a file Tessera reads: make it smaller, or raise the cap with --max-file-bytes SIZE or %s=SIZE (or limits.max_file_bytes in tessera.yaml)", e.Size, e.Max, EnvMaxBytes)
}

// NotRegularError reports a path that is not a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string { return e.Path + " " + e.Reason() }

// Reason is the message without the path.
func (e *NotRegularError) Reason() string {
	if e.Mode.IsDir() {
		return "is a directory, not a file"
	}
	return fmt.Sprintf("is %s, not a regular file: Tessera reads only regular files, so a pipe or device cannot make it hang", Kind(e.Mode))
}

// Kind names what a file of mode m is, for messages about a file that
// is not a regular one: "a directory", "a named pipe (FIFO)", "a
// socket", "a character device", "a device", "an irregular file", or
// "a regular file".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}

// check refuses anything but a regular file of at most max bytes.
func check(path string, fi fs.FileInfo, max int64) error {
	if !fi.Mode().IsRegular() {
		return &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	if max > 0 && fi.Size() > max {
		return &TooLargeError{Path: path, Size: fi.Size(), Max: max}
	}
	return nil
}

// File reads the file at path on the operating system's file system. A
// max of 0 or less means DefaultMaxBytes.
func File(path string, max int64) ([]byte, error) {
	return read(path, max, os.Stat, func() (*os.File, error) {
		return os.OpenFile(path, os.O_RDONLY|nonblock, 0)
	})
}

// InRoot reads the file name inside root, which confines the path,
// symbolic links included, to the root's directory.
func InRoot(root *os.Root, name string, max int64) ([]byte, error) {
	return read(name, max, root.Stat, func() (*os.File, error) {
		return root.OpenFile(name, os.O_RDONLY|nonblock, 0)
	})
}

func read(path string, max int64, stat func(string) (fs.FileInfo, error), open func() (*os.File, error)) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	fi, err := stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(path, fi, max); err != nil {
		return nil, err
	}
	// Opened non-blocking: if the path was swapped for a FIFO since the
	// check, the open still returns at once, and the check on the
	// descriptor below refuses it.
	f, err := open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(path, f, max)
}

// FS reads the file name of fsys with the same checks; a file system
// whose Open could block on a FIFO is protected by the check before the
// open.
func FS(fsys fs.FS, name string, max int64) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if err := check(name, fi, max); err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(name, f, max)
}

// readOpen checks the open file again and reads at most max bytes of it.
func readOpen(path string, f fs.File, max int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := check(path, fi, max); err != nil {
		return nil, err
	}
	// Read into a buffer of the size seen (plus one byte to notice growth),
	// so a large file costs its size once, not the doublings of a growing
	// buffer.
	data := make([]byte, 0, min(fi.Size(), max)+1)
	data, err = readAll(io.LimitReader(f, max+1), data)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, &TooLargeError{Path: path, Size: int64(len(data)), Max: max}
	}
	return data, nil
}

// IsLimit reports whether err is a size-cap or not-a-regular-file error.
func IsLimit(err error) bool {
	var t *TooLargeError
	var n *NotRegularError
	return errors.As(err, &t) || errors.As(err, &n)
}

// readAll appends everything r yields to buf, growing it only if r yields
// more than buf has room for.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
