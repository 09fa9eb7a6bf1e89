// Package gittest makes Git repositories for tests of the registry and of
// programs that serve one, with go-git and no git binary: a work tree in a
// temporary directory holding a copy of a catalog, commits with fixed
// times, branches, tags and refs.
package gittest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Repo is a Git work tree made for a test.
type Repo struct {
	tb testing.TB
	// Dir is the work tree's root.
	Dir string
	// Git is the repository.
	Git *git.Repository
	// When is the time of the next commit; each commit adds a minute.
	When time.Time
}

// New makes an empty repository whose default branch is main.
func New(tb testing.TB) *Repo {
	tb.Helper()
	dir := tb.TempDir()
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")}})
	if err != nil {
		tb.Fatal(err)
	}
	return &Repo{tb: tb, Dir: dir, Git: r, When: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
}

// CopyDir copies the files under src into the work tree under dst (a
// slash path, "" for the root).
func (r *Repo) CopyDir(src, dst string) {
	r.tb.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		r.Write(filepath.ToSlash(filepath.Join(dst, rel)), string(data))
		return nil
	})
	if err != nil {
		r.tb.Fatal(err)
	}
}

// Write writes a file of the work tree (a slash path).
func (r *Repo) Write(p, content string) {
	r.tb.Helper()
	full := filepath.Join(r.Dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.tb.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		r.tb.Fatal(err)
	}
}

// Read reads a file of the work tree.
func (r *Repo) Read(p string) string {
	r.tb.Helper()
	data, err := os.ReadFile(filepath.Join(r.Dir, filepath.FromSlash(p)))
	if err != nil {
		r.tb.Fatal(err)
	}
	return string(data)
}

// Commit stages every change and commits it on the current branch.
func (r *Repo) Commit(msg string) plumbing.Hash {
	r.tb.Helper()
	wt, err := r.Git.Worktree()
	if err != nil {
		r.tb.Fatal(err)
	}
	if err := wt.AddGlob("."); err != nil {
		r.tb.Fatal(err)
	}
	sig := &object.Signature{Name: "Test", Email: "test@example.com", When: r.When}
	r.When = r.When.Add(time.Minute)
	h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
	if err != nil {
		r.tb.Fatal(err)
	}
	return h
}

// Branch creates branch name at the current commit and checks it out.
func (r *Repo) Branch(name string) {
	r.tb.Helper()
	wt, err := r.Git.Worktree()
	if err != nil {
		r.tb.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(name), Create: true, Keep: true}); err != nil {
		r.tb.Fatal(err)
	}
}

// Checkout checks branch name out.
func (r *Repo) Checkout(name string) {
	r.tb.Helper()
	wt, err := r.Git.Worktree()
	if err != nil {
		r.tb.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(name), Force: true}); err != nil {
		r.tb.Fatal(err)
	}
}

// SetRef points ref name at h.
func (r *Repo) SetRef(name string, h plumbing.Hash) {
	r.tb.Helper()
	if err := r.Git.Storer.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(name), h)); err != nil {
		r.tb.Fatal(err)
	}
}

// Tag makes an annotated tag name at h.
func (r *Repo) Tag(name string, h plumbing.Hash) {
	r.tb.Helper()
	sig := &object.Signature{Name: "Test", Email: "test@example.com", When: r.When}
	if _, err := r.Git.CreateTag(name, h, &git.CreateTagOptions{Tagger: sig, Message: name}); err != nil {
		r.tb.Fatal(err)
	}
}

// Bare makes a bare repository in a temporary directory holding every
// object of r and its branches and tags, as git push --mirror would,
// and returns its directory: a remote for servers that each have a
// clone.
func (r *Repo) Bare() string {
	r.tb.Helper()
	dir := r.tb.TempDir()
	bare, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{Bare: true, InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")}})
	if err != nil {
		r.tb.Fatal(err)
	}
	copyRepo(r.tb, r.Git, bare)
	return dir
}

// Clone makes a work tree in a temporary directory from the repository
// at dir (a bare one, as Bare makes), with its objects, its branches and
// tags, and main checked out.
func Clone(tb testing.TB, dir string) *Repo {
	tb.Helper()
	src, err := git.PlainOpen(dir)
	if err != nil {
		tb.Fatal(err)
	}
	c := New(tb)
	copyRepo(tb, src, c.Git)
	wt, err := c.Git.Worktree()
	if err != nil {
		tb.Fatal(err)
	}
	head, err := c.Git.Reference(plumbing.NewBranchReferenceName("main"), true)
	if err != nil {
		tb.Fatal(err)
	}
	if err := wt.Reset(&git.ResetOptions{Commit: head.Hash(), Mode: git.HardReset}); err != nil {
		tb.Fatal(err)
	}
	return c
}

// copyRepo copies every object, branch and tag of src into dst. The
// objects go in packfiles, not one file each: a copy of a catalog's
// history is then a few files written, not hundreds. Between two
// repositories on disk, src's packfiles are copied as they are (encoding
// them again costs more than the rest of a clone) and only its loose
// objects are packed; any other storage has every object packed anew.
func copyRepo(tb testing.TB, src, dst *git.Repository) {
	tb.Helper()
	var hashes []plumbing.Hash
	add := func(h plumbing.Hash) error {
		hashes = append(hashes, h)
		return nil
	}
	srcDisk, ok := src.Storer.(*filesystem.Storage)
	dstDisk, ok2 := dst.Storer.(*filesystem.Storage)
	if ok && ok2 {
		if err := copyPacks(srcDisk, dstDisk); err != nil {
			tb.Fatalf("copying the packfiles: %v", err)
		}
		if err := srcDisk.ForEachObjectHash(add); err != nil {
			tb.Fatalf("listing the loose objects: %v", err)
		}
	} else {
		objs, err := src.Storer.IterEncodedObjects(plumbing.AnyObject)
		if err != nil {
			tb.Fatal(err)
		}
		if err := objs.ForEach(func(o plumbing.EncodedObject) error { return add(o.Hash()) }); err != nil {
			tb.Fatal(err)
		}
	}
	if len(hashes) > 0 {
		var pack bytes.Buffer
		if _, err := packfile.NewEncoder(&pack, src.Storer, false).Encode(hashes, 0); err != nil {
			tb.Fatal(err)
		}
		if err := packfile.UpdateObjectStorage(dst.Storer, &pack); err != nil {
			tb.Fatal(err)
		}
	}
	refs, err := src.References()
	if err != nil {
		tb.Fatal(err)
	}
	err = refs.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() != plumbing.HashReference || !(ref.Name().IsBranch() || ref.Name().IsTag()) {
			return nil
		}
		return dst.Storer.SetReference(ref)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// copyPacks copies the packfiles of src, each with its index, into dst
// (those dst has already are left as they are), and has dst read its
// packfiles' indexes again.
func copyPacks(src, dst *filesystem.Storage) error {
	packs, err := src.ObjectPacks()
	if err != nil {
		return err
	}
	from := filepath.Join(src.Filesystem().Root(), "objects", "pack")
	to := filepath.Join(dst.Filesystem().Root(), "objects", "pack")
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	for _, h := range packs {
		for _, ext := range []string{".idx", ".pack"} {
			name := "pack-" + h.String() + ext
			if _, err := os.Stat(filepath.Join(to, name)); err == nil {
				continue
			}
			data, err := os.ReadFile(filepath.Join(from, name))
			if err != nil {
				return err
			}
			// Written whole under a temporary name and renamed, the
			// index before the pack: a reader that lists the packs
			// (by their .pack) finds each one whole, with its index.
			tmp := filepath.Join(to, "tmp-"+name)
			if err := os.WriteFile(tmp, data, 0o644); err != nil {
				return err
			}
			if err := os.Rename(tmp, filepath.Join(to, name)); err != nil {
				return err
			}
		}
	}
	dst.Reindex()
	return nil
}

// Push copies r's objects, branches and tags to the repository at dir,
// as a forced git push --all --tags would.
func (r *Repo) Push(dir string) {
	r.tb.Helper()
	dst, err := git.PlainOpen(dir)
	if err != nil {
		r.tb.Fatal(err)
	}
	copyRepo(r.tb, r.Git, dst)
}

// Pack moves every loose object of r into one packfile, as git gc
// would: a copy of the repository is then a few files written, not one
// file and one directory per object.
func (r *Repo) Pack() {
	r.tb.Helper()
	loose, ok := r.Git.Storer.(storer.LooseObjectStorer)
	if !ok {
		r.tb.Fatalf("pack: the storage %T keeps no loose objects", r.Git.Storer)
	}
	var hashes []plumbing.Hash
	err := loose.ForEachObjectHash(func(h plumbing.Hash) error {
		hashes = append(hashes, h)
		return nil
	})
	if err != nil {
		r.tb.Fatalf("pack: listing the loose objects: %v", err)
	}
	if len(hashes) == 0 {
		return
	}
	var pack bytes.Buffer
	if _, err := packfile.NewEncoder(&pack, r.Git.Storer, false).Encode(hashes, 0); err != nil {
		r.tb.Fatalf("pack: encoding %d objects: %v", len(hashes), err)
	}
	if err := packfile.UpdateObjectStorage(r.Git.Storer, &pack); err != nil {
		r.tb.Fatalf("pack: writing the packfile: %v", err)
	}
	for _, h := range hashes {
		if err := loose.DeleteLooseObject(h); err != nil {
			r.tb.Fatalf("pack: removing loose object %s: %v", h, err)
		}
	}
	// The loose objects' directories, objects/00 to objects/ff, now empty.
	objects := filepath.Join(r.Dir, git.GitDirName, "objects")
	dirs, err := os.ReadDir(objects)
	if err != nil {
		r.tb.Fatalf("pack: %v", err)
	}
	for _, d := range dirs {
		if d.IsDir() && len(d.Name()) == 2 {
			if err := os.Remove(filepath.Join(objects, d.Name())); err != nil {
				r.tb.Fatalf("pack: %v", err)
			}
		}
	}
}

// A Snapshot is a repository kept in memory, work tree and .git as they
// were when it was taken, with the time of its next commit: tests that
// each need the same history make it once and start from a copy.
type Snapshot struct {
	files map[string][]byte // by slash path under the work tree's root
	dirs  []string          // every directory, parents first
	when  time.Time
}

// Snapshot reads every file of r's work tree and repository into memory.
func (r *Repo) Snapshot() *Snapshot {
	r.tb.Helper()
	s := &Snapshot{files: map[string][]byte{}, when: r.When}
	err := filepath.WalkDir(r.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(r.Dir, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			s.dirs = append(s.dirs, rel)
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s.files[rel] = data
		default:
			return &fs.PathError{Op: "snapshot", Path: p, Err: fs.ErrInvalid}
		}
		return nil
	})
	if err != nil {
		r.tb.Fatal(err)
	}
	return s
}

// Copy writes the snapshot into a temporary directory of tb's and opens
// it: a repository of its own, as the one the snapshot was taken of was.
func (s *Snapshot) Copy(tb testing.TB) *Repo {
	tb.Helper()
	dir := tb.TempDir()
	for _, d := range s.dirs {
		if err := os.Mkdir(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	for p, data := range s.files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	r, err := git.PlainOpen(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return &Repo{tb: tb, Dir: dir, Git: r, When: s.when}
}

// Once makes a repository with make the first time it is called, keeps a
// snapshot of it, and returns a copy of that snapshot, with what make
// returned, each time: a history made once for every test of a package.
// make's repository belongs to the test of the first call.
func Once[T any](make func(tb testing.TB) (*Repo, T)) func(tb testing.TB) (*Repo, T) {
	var (
		once sync.Once
		snap *Snapshot
		val  T
		ok   bool
	)
	return func(tb testing.TB) (*Repo, T) {
		tb.Helper()
		once.Do(func() {
			var r *Repo
			r, val = make(tb)
			r.Pack()
			snap, ok = r.Snapshot(), true
		})
		if !ok {
			tb.Fatal("the repository shared by the tests could not be made: see the first test that asked for it")
		}
		return snap.Copy(tb), val
	}
}
