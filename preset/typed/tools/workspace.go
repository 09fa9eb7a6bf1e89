package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
)

// maxSnapshotBytes bounds what a workspace snapshot copies.
const maxSnapshotBytes = 64 << 20

// Workspace is a directory a workspace section gives a prompt's tools: a
// filesystem confined to its root by os.Root, so no path a tool is
// given (.., an absolute path, a symbolic link) reaches outside it. It is
// a Snapshotter, so a failed tool call leaves the files as they were.
type Workspace struct {
	root *os.Root
}

// OpenWorkspace opens dir as a workspace.
func OpenWorkspace(dir string) (*Workspace, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w: name an existing directory", err)
	}
	return &Workspace{root: r}, nil
}

// Root returns the workspace's os.Root, for reading and writing inside
// it; nil for a nil workspace.
func (w *Workspace) Root() *os.Root {
	if w == nil {
		return nil
	}
	return w.root
}

// Close closes the workspace's root.
func (w *Workspace) Close() error {
	if w == nil || w.root == nil {
		return nil
	}
	return w.root.Close()
}

// wsSnapshot is a workspace's files and directories.
type wsSnapshot struct {
	dirs  map[string]fs.FileMode
	files map[string]wsFile
}

type wsFile struct {
	data []byte
	mode fs.FileMode
}

// Snapshot implements Snapshotter: it copies every file and directory of
// the workspace (symbolic links are not followed, and are not restored);
// a workspace of more than 64 MiB of files is an error.
func (w *Workspace) Snapshot(ctx context.Context) (any, error) {
	if w == nil || w.root == nil {
		return nil, errors.New("workspace: not open")
	}
	snap := wsSnapshot{dirs: map[string]fs.FileMode{}, files: map[string]wsFile{}}
	total := 0
	err := fs.WalkDir(w.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case p == ".":
		case d.IsDir():
			snap.dirs[p] = info.Mode().Perm()
		case info.Mode().IsRegular():
			data, err := w.root.ReadFile(p)
			if err != nil {
				return err
			}
			if total += len(data); total > maxSnapshotBytes {
				return fmt.Errorf("the workspace holds more than %d bytes: too much to snapshot for a tool call", maxSnapshotBytes)
			}
			snap.files[p] = wsFile{data: data, mode: info.Mode().Perm()}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("workspace snapshot: %w", err)
	}
	return snap, nil
}

// Restore implements Snapshotter: files and directories made since the
// snapshot are removed, changed and removed ones are written back.
func (w *Workspace) Restore(ctx context.Context, snapshot any) error {
	if w == nil || w.root == nil {
		return errors.New("workspace: not open")
	}
	snap, ok := snapshot.(wsSnapshot)
	if !ok {
		return fmt.Errorf("workspace: a snapshot from Workspace.Snapshot, not %T", snapshot)
	}
	var extra []string
	err := fs.WalkDir(w.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		_, isDir := snap.dirs[p]
		_, isFile := snap.files[p]
		if d.IsDir() && !isDir || !d.IsDir() && !isFile {
			extra = append(extra, p)
			if d.IsDir() {
				return fs.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("workspace restore: %w", err)
	}
	for _, p := range extra {
		if err := w.root.RemoveAll(p); err != nil {
			return fmt.Errorf("workspace restore: %w", err)
		}
	}
	dirs := make([]string, 0, len(snap.dirs))
	for d := range snap.dirs {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	for _, d := range dirs {
		if err := w.root.MkdirAll(d, snap.dirs[d]); err != nil {
			return fmt.Errorf("workspace restore: %w", err)
		}
	}
	for p, f := range snap.files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if now, err := w.root.ReadFile(p); err == nil && bytes.Equal(now, f.data) {
			continue
		}
		if err := w.root.WriteFile(p, f.data, f.mode); err != nil {
			return fmt.Errorf("workspace restore: %w", err)
		}
	}
	return nil
}
