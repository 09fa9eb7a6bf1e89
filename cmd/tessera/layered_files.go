package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/preset/layered"
)

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressBar draws a bar on one terminal line, ending it when done.
func progressBar(w io.Writer, label string) func(done, total int) {
	const width = 30
	return func(done, total int) {
		n := width
		if total > 0 {
			n = done * width / total
		}
		fmt.Fprintf(w, "\r%s [%s%s] %d/%d", label, strings.Repeat("#", n), strings.Repeat(" ", width-n), done, total)
		if done >= total {
			fmt.Fprintln(w)
		}
	}
}

// writeAtomic writes data to name through a temporary file in the same
// directory renamed over it, so that name is never half written.
func writeAtomic(name string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	mode := os.FileMode(0o644)
	if st, err := os.Stat(name); err == nil {
		mode = st.Mode().Perm()
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}

// layeredSetup reads the setup directory (--dir, else the catalog's
// layered directory) with every file capped at the command's
// --max-file-bytes, and returns it with the directory and the cap.
func (a *app) layeredSetup(ctx context.Context, dir string) (*layered.Setup, string, int64, error) {
	d, err := a.layeredDir(ctx, dir)
	if err != nil {
		return nil, "", 0, err
	}
	max, err := a.maxFileBytes()
	if err != nil {
		return nil, "", 0, err
	}
	setup, err := layered.ParseSetup(func(name string) (string, []byte, error) {
		p := filepath.Join(d, filepath.FromSlash(name))
		data, err := fileread.File(p, max)
		return filepath.ToSlash(p), data, err
	})
	if err != nil {
		return nil, "", 0, failure{err}
	}
	return setup, d, max, nil
}
