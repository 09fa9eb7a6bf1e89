package registry

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path"
	"sort"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// treeFS is a read-only fs.FS over one Git tree: the catalog as it was
// at a commit. Symbolic links and submodules are not followed: they read
// as files that do not exist, so a catalog served from Git cannot reach
// outside its tree.
type treeFS struct {
	store storer.EncodedObjectStorer
	mu    sync.Mutex // guards root, whose lookups fill a cache of go-git's
	root  *object.Tree
	mtime time.Time
}

var (
	_ fs.ReadFileFS = (*treeFS)(nil)
	_ fs.ReadDirFS  = (*treeFS)(nil)
	_ fs.StatFS     = (*treeFS)(nil)
)

// lookup returns the entry at name, a valid fs path; "." is the root.
func (t *treeFS) lookup(op, name string) (*object.TreeEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return &object.TreeEntry{Name: ".", Mode: filemode.Dir, Hash: t.root.Hash}, nil
	}
	t.mu.Lock()
	e, err := t.root.FindEntry(name)
	t.mu.Unlock()
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	switch e.Mode {
	case filemode.Dir, filemode.Regular, filemode.Executable, filemode.Deprecated:
		return e, nil
	}
	return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
}

func (t *treeFS) Open(name string) (fs.File, error) {
	e, err := t.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if e.Mode == filemode.Dir {
		ents, err := t.readDir(name, e.Hash)
		if err != nil {
			return nil, err
		}
		return &dirFile{info: t.info(path.Base(name), e, 0), ents: ents}, nil
	}
	b, err := t.blob(name, e.Hash)
	if err != nil {
		return nil, err
	}
	return &file{info: t.info(path.Base(name), e, int64(len(b))), r: bytes.NewReader(b)}, nil
}

func (t *treeFS) ReadFile(name string) ([]byte, error) {
	e, err := t.lookup("readfile", name)
	if err != nil {
		return nil, err
	}
	if e.Mode == filemode.Dir {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: errors.New("is a directory")}
	}
	return t.blob(name, e.Hash)
}

func (t *treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	e, err := t.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if e.Mode != filemode.Dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	return t.readDir(name, e.Hash)
}

func (t *treeFS) Stat(name string) (fs.FileInfo, error) {
	e, err := t.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	var size int64
	if e.Mode != filemode.Dir {
		o, err := t.store.EncodedObject(plumbing.BlobObject, e.Hash)
		if err != nil {
			return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
		}
		size = o.Size()
	}
	return t.info(path.Base(name), e, size), nil
}

func (t *treeFS) blob(name string, h plumbing.Hash) ([]byte, error) {
	b, err := object.GetBlob(t.store, h)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	r, err := b.Reader()
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, nil
}

func (t *treeFS) readDir(name string, h plumbing.Hash) ([]fs.DirEntry, error) {
	tree, err := object.GetTree(t.store, h)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	out := make([]fs.DirEntry, 0, len(tree.Entries))
	for i := range tree.Entries {
		e := &tree.Entries[i]
		switch e.Mode {
		case filemode.Dir, filemode.Regular, filemode.Executable, filemode.Deprecated:
		default:
			continue
		}
		p := e.Name
		if name != "." {
			p = name + "/" + e.Name
		}
		out = append(out, &dirEntry{fs: t, path: p, e: *e})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

func (t *treeFS) info(name string, e *object.TreeEntry, size int64) *fileInfo {
	return &fileInfo{name: name, dir: e.Mode == filemode.Dir, size: size, mtime: t.mtime}
}

type fileInfo struct {
	name  string
	dir   bool
	size  int64
	mtime time.Time
}

func (i *fileInfo) Name() string       { return i.name }
func (i *fileInfo) Size() int64        { return i.size }
func (i *fileInfo) ModTime() time.Time { return i.mtime }
func (i *fileInfo) IsDir() bool        { return i.dir }
func (i *fileInfo) Sys() any           { return nil }
func (i *fileInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

type dirEntry struct {
	fs   *treeFS
	path string
	e    object.TreeEntry
}

func (d *dirEntry) Name() string { return d.e.Name }
func (d *dirEntry) IsDir() bool  { return d.e.Mode == filemode.Dir }
func (d *dirEntry) Type() fs.FileMode {
	if d.IsDir() {
		return fs.ModeDir
	}
	return 0
}
func (d *dirEntry) Info() (fs.FileInfo, error) { return d.fs.Stat(d.path) }

type file struct {
	info *fileInfo
	r    *bytes.Reader
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *file) Close() error               { return nil }

type dirFile struct {
	info *fileInfo
	ents []fs.DirEntry
	off  int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: errors.New("is a directory")}
}
func (d *dirFile) Close() error { return nil }

// ReadDir reads the directory's entries as fs.ReadDirFile does.
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.ents[d.off:]
	if n <= 0 {
		d.off = len(d.ents)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(rest))
	d.off += n
	return rest[:n], nil
}
