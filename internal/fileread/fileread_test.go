package fileread

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

// within fails the test if fn does not return within a generous time: the
// failure these tests guard against is a read that never returns.
func within(t *testing.T, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("the read did not return: it is waiting on a file that never ends")
		return nil
	}
}

func TestRefusesWhatIsNotARegularFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs or Unix sockets here")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.txt")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, tc := range []struct {
		name, path, want string
		read             func() error
	}{
		{"fifo", fifo, "a named pipe (FIFO), not a regular file", func() error { _, err := File(fifo, 0); return err }},
		{"fifo in root", "pipe.txt", "a named pipe (FIFO), not a regular file", func() error { _, err := InRoot(root, "pipe.txt", 0); return err }},
		{"fifo in fs", "pipe.txt", "a named pipe (FIFO), not a regular file", func() error { _, err := FS(root.FS(), "pipe.txt", 0); return err }},
		{"socket", sock, "a socket, not a regular file", func() error { _, err := File(sock, 0); return err }},
		{"device", os.DevNull, "a character device, not a regular file", func() error { _, err := File(os.DevNull, 0); return err }},
		{"directory", dir, "a directory, not a file", func() error { _, err := File(dir, 0); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := within(t, tc.read)
			var nr *NotRegularError
			if !errors.As(err, &nr) || !strings.Contains(err.Error(), tc.path+" is "+tc.want) {
				t.Errorf("err = %v, want %q naming %s", err, tc.want, tc.path)
			}
		})
	}
}

func TestSizeCap(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(p, make([]byte, 1001), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := File(p, 1000)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != 1001 || tl.Max != 1000 || !strings.Contains(err.Error(), "--max-file-bytes SIZE or TESSERA_MAX_FILE_BYTES=SIZE (or limits.max_file_bytes in tessera.yaml)") {
		t.Errorf("err = %v, want a TooLargeError of 1001 over 1000", err)
	}
	if data, err := File(p, 1001); err != nil || len(data) != 1001 {
		t.Errorf("at the cap: %d bytes, %v", len(data), err)
	}
	fsys := fstest.MapFS{"a.txt": {Data: make([]byte, 50)}}
	if _, err := FS(fsys, "a.txt", 49); !errors.As(err, &tl) {
		t.Errorf("FS over the cap: %v", err)
	}
	if data, err := FS(fsys, "a.txt", 0); err != nil || len(data) != 50 {
		t.Errorf("FS: %d bytes, %v", len(data), err)
	}
	if _, err := File(filepath.Join(dir, "missing"), 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
}
