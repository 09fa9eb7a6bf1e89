//go:build unix

package catalog

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A compile killed at random moments, again and again, always leaves a
// complete build in place: the first, or a later one.
func TestSwapUnderKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	out := filepath.Join(t.TempDir(), "prompts")
	if err := build(t, out, "first", nil); err != nil {
		t.Fatal(err)
	}
	for i := range 15 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCompileLoop$")
		cmd.Env = append(os.Environ(), "CATALOG_HELPER_OUT="+out)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+7*i) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		complete(t, out)
	}
	if err := build(t, out, "last", nil); err != nil {
		t.Fatal(err)
	}
	if complete(t, out) != "last" {
		t.Error("the last build is not in place")
	}
}

func TestHelperCompileLoop(t *testing.T) {
	out := os.Getenv("CATALOG_HELPER_OUT")
	if out == "" {
		t.Skip("helper process for TestSwapUnderKill")
	}
	for i := 0; ; i++ {
		if err := build(t, out, strconv.Itoa(os.Getpid())+"-"+strconv.Itoa(i), nil); err != nil {
			t.Fatal(err)
		}
	}
}

// Outputs are files compile creates: the output directory is refused
// when it is a FIFO or a file.
func TestCheckOutDirNotADirectory(t *testing.T) {
	dir := t.TempDir()
	c := &Catalog{}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	if err := c.CheckOutDir(fifo); err == nil || !strings.Contains(err.Error(), "is a named pipe (FIFO), not a directory") {
		t.Errorf("FIFO as the output: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "out", ManifestFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckOutDir(filepath.Join(dir, "out")); err == nil || !strings.Contains(err.Error(), "is not a compile output") {
		t.Errorf("FIFO as the manifest: %v", err)
	}
}
