package catalog

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/diag"
)

// TestIncludeBombFailsFastWithBoundedMemory builds a catalog whose node
// includes a large file a thousand times: over the output cap, it must fail
// with an error naming the include chain, having read and allocated only a
// small multiple of the cap rather than the prompt's full size.
func TestIncludeBombFailsFastWithBoundedMemory(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fileSize int
		limits   string
		capBytes int64
	}{
		{"10 MB file, default 8 MiB cap", 10 << 20, "", DefaultMaxOutputBytes},
		{"1 MB file, 4 MiB cap", 1 << 20, "limits:\n  max_output_bytes: 4MiB\n", 4 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tmpl strings.Builder
			tmpl.WriteString("# bomb\n$$BIG\n")
			for range 1000 {
				tmpl.WriteString("$$include shared/big.txt\n")
			}
			files := map[string]string{
				"tessera.yaml":     "tasks: tasks\nworkflows: workflows\n" + tc.limits,
				"tasks/bomb.txt":   tmpl.String(),
				"workflows/w.json": "{\"nodes\": [\n{\"node_id\": \"n\", \"task_ref\": \"bomb\", \"includes\": {\"BIG\": \"shared/big.txt\"}}]}",
				"shared/big.txt":   strings.Repeat("x", tc.fileSize-1) + "\n",
			}
			dir := writeTree(t, files)
			c, err := Open(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = c.Assemble(context.Background(), "w", "n")
			runtime.ReadMemStats(&after)
			var list diag.List
			if !errors.As(err, &list) || len(list) != 1 {
				t.Fatalf("err = %v, want one problem", err)
			}
			msg := list[0].Error()
			for _, want := range []string{"tasks/bomb.txt:", "passes the", "output cap at this include of shared/big.txt", "limits.max_output_bytes"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q lacks %q", msg, want)
				}
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(4*tc.capBytes) {
				t.Errorf("allocated %d bytes before failing, more than 4 × the %d-byte cap", alloc, tc.capBytes)
			}
		})
	}
}

func TestLimitsConfig(t *testing.T) {
	for _, tc := range []struct {
		yaml      string
		file, out int64
		err       string
	}{
		{"", DefaultMaxFileBytes, DefaultMaxOutputBytes, ""},
		{"limits:\n  max_file_bytes: 1024\n", 1024, DefaultMaxOutputBytes, ""},
		{"limits:\n  max_file_bytes: 2KiB\n  max_output_bytes: 3 MB\n", 2048, 3000000, ""},
		{"limits:\n  max_output_bytes: 1GiB\n", DefaultMaxFileBytes, 1 << 30, ""},
		{"limits:\n  max_output_bytes: 2GiB\n", 0, 0, "tessera.yaml:4:21: limits.max_output_bytes: want a size in bytes"},
		{"limits:\n  max_file_bytes: 0\n", 0, 0, "tessera.yaml:4:19: limits.max_file_bytes: want a size in bytes"},
		{"limits:\n  max_file_bytes: lots\n", 0, 0, "tessera.yaml:4:19: limits.max_file_bytes: want a size in bytes"},
		{"limits:\n  max_files: 3\n", 0, 0, `tessera.yaml:4:3: limits: unknown key "max_files"`},
		{"limits: 3\n", 0, 0, "tessera.yaml:3:9: limits: want a mapping"},
	} {
		cfg, err := ParseConfig("tessera.yaml", []byte("tasks: t\nworkflows: w\n"+tc.yaml))
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%q: err = %v, want %q", tc.yaml, err, tc.err)
			}
			continue
		}
		if err != nil || cfg.Limits.MaxFileBytes != tc.file || cfg.Limits.MaxOutputBytes != tc.out {
			t.Errorf("%q: limits %+v, err %v; want %d, %d", tc.yaml, cfg.Limits, err, tc.file, tc.out)
		}
	}
}

// TestFileCapAndFIFO: a catalog file over the configured cap is an error
// naming it and the key to raise, and a FIFO among the includes is refused
// at once rather than read for ever.
func TestFileCapAndFIFO(t *testing.T) {
	dir := writeTree(t, with(base(), "tessera.yaml", "tasks: tasks\nworkflows: workflows\nlimits:\n  max_file_bytes: 10\n"))
	c, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Assemble(context.Background(), "wf.v1", "n")
	if err == nil || !strings.Contains(err.Error(), "over the 10-byte cap on a file Tessera reads: make it smaller, or raise limits.max_file_bytes in tessera.yaml") {
		t.Errorf("over the cap: %v", err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	files := with(base(), "tasks/t.txt", "T\n$$include shared/pipe.txt\n")
	dir = writeTree(t, files)
	if err := syscall.Mkfifo(filepath.Join(dir, "shared", "pipe.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err = Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	done := make(chan error, 1)
	go func() {
		_, err := c.AssembleTask(context.Background(), "t", nil)
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("assembling a template that includes a FIFO did not return")
	}
	if err == nil || !strings.Contains(err.Error(), "shared/pipe.txt: is a named pipe (FIFO), not a regular file") {
		t.Errorf("FIFO include: %v", err)
	}
}
