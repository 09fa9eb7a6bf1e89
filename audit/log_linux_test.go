package audit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A real full disk: appends to a log on a 64 KiB tmpfs until the disk is
// full. The failing append, which on tmpfs writes part of its record
// before the disk fills, leaves the log ending in a line break with every
// line a record, and its error says so. It needs root, to mount the
// tmpfs; without root, or where mounting is not allowed, it is skipped,
// except under CI (CI=true), where being unable to mount is a failure.
func TestAppendDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mount a 64 KiB tmpfs on %s: %v", dir, err)
		}
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	ctx := context.Background()
	l := &Log{Path: filepath.Join(dir, "audit.jsonl")}
	text := strings.Repeat("z", 3000) // not a divisor of a page, so a write straddles the last one
	var (
		err    error
		n      int
		before []byte
	)
	for n = 0; n < 100; n++ {
		if before, err = os.ReadFile(l.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if err = l.Append(ctx, record(fmt.Sprint("r", n), text)); err != nil {
			break
		}
	}
	if err == nil {
		t.Fatalf("%d appends of 3 KB to a 64 KiB tmpfs all succeeded", n)
	}
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "audit log "+l.Path+": append failed, the log is unchanged: no space left on device") {
		t.Errorf("error = %v", err)
	}
	data := readLog(t, l.Path)
	if !bytes.Equal(data, before) || !bytes.HasSuffix(data, []byte("\n")) {
		t.Errorf("log changed by the failed append: %d bytes, was %d, ends in %q", len(data), len(before), data[max(0, len(data)-20):])
	}
	if ids, bad := scanAll(t, l); len(ids) != n || len(bad) != 0 {
		t.Errorf("%d records and bad lines %v; want %d records", len(ids), bad, n)
	}
}

// A FIFO where the index goes is never opened for reading or writing (an
// open would wait for a writer forever): appends and lookups go on, and
// a lookup puts an index in its place.
func TestIndexFIFO(t *testing.T) {
	l := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
	if err := syscall.Mkfifo(l.indexPath(), 0o644); err != nil {
		t.Skip(err)
	}
	ws := warnings(l)
	appendIDs(t, l, "a", "b")
	lookup(t, l, kindID, "a")
	if fi, err := os.Lstat(l.indexPath()); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("index: %v, %v", fi, err)
	}
	appendIDs(t, l, "c")
	checkIndex(t, l)
	if len(*ws) != 2 || !strings.Contains((*ws)[0], "audit index "+l.indexPath()+": the record is in the log but not in its index (it is not a regular file)") {
		t.Errorf("warnings: %q", *ws)
	}
}
