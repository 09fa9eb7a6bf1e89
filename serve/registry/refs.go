package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// ConflictError says that a ref was not where the server last saw it when
// it went to move it: another server (or a Git user) moved it first. The
// move was not made.
type ConflictError struct {
	// Ref is the ref that moved.
	Ref plumbing.ReferenceName
	// Want is where the server last saw it, Got where it was; the zero
	// hash is a ref that does not exist.
	Want, Got plumbing.Hash
}

// Error says which ref moved, from where to where.
func (e *ConflictError) Error() string {
	at := func(h plumbing.Hash) string {
		if h.IsZero() {
			return "absent"
		}
		return h.String()
	}
	return fmt.Sprintf("%s moved since this server read it (it was %s, it is %s): read it again and retry", e.Ref, at(e.Want), at(e.Got))
}

// IsConflict reports whether err is a ConflictError.
func IsConflict(err error) bool {
	var c *ConflictError
	return errors.As(err, &c)
}

// refUpdate is one compare-and-swap of a ref: from Old (zero: the ref
// must not exist) to New (zero: delete it).
type refUpdate struct {
	Name     plumbing.ReferenceName
	Old, New plumbing.Hash
}

// DefaultLockWait is Options.LockWait's default.
const DefaultLockWait = 2 * time.Second

// casRefs applies ups to the refs of the repository whose Git directory
// is fs (and whose refs st reads) only when every ref is still at its
// Old value; otherwise it changes nothing and returns a ConflictError.
// It takes Git's own lock, <ref>.lock, on each ref, so it is safe against
// other processes doing the same, tessera serve and git alike, on any
// file system where creating a file with O_EXCL is atomic.
func casRefs(ctx context.Context, fs billy.Filesystem, st storer.ReferenceStorer, ups []refUpdate, wait time.Duration) (err error) {
	ups = slices.Clone(ups)
	slices.SortFunc(ups, func(a, b refUpdate) int { return strings.Compare(a.Name.String(), b.Name.String()) })
	locks := make([]billy.File, len(ups))
	defer func() {
		for i, f := range locks {
			if f != nil {
				f.Close()
				fs.Remove(lockName(ups[i].Name)) // not renamed: let it go
			}
		}
	}()
	for i, u := range ups {
		if i > 0 && ups[i-1].Name == u.Name {
			return fmt.Errorf("%s is updated twice in one move", u.Name)
		}
		if locks[i], err = lockRef(ctx, fs, u.Name, wait); err != nil {
			return err
		}
	}
	for _, u := range ups {
		cur, err := refHash(st, u.Name)
		if err != nil {
			return err
		}
		if cur != u.Old {
			return &ConflictError{Ref: u.Name, Want: u.Old, Got: cur}
		}
	}
	for i, u := range ups {
		f := locks[i]
		if u.New.IsZero() {
			if err := removeRef(ctx, fs, u.Name, wait); err != nil {
				return fmt.Errorf("deleting %s: %w", u.Name, err)
			}
			continue
		}
		if _, err := f.Write([]byte(u.New.String() + "\n")); err != nil {
			return fmt.Errorf("writing %s: %w", lockName(u.Name), err)
		}
		if s, ok := f.(interface{ Sync() error }); ok {
			if err := s.Sync(); err != nil {
				return fmt.Errorf("writing %s: %w", lockName(u.Name), err)
			}
		}
		locks[i] = nil
		if err := f.Close(); err != nil {
			fs.Remove(lockName(u.Name))
			return fmt.Errorf("writing %s: %w", lockName(u.Name), err)
		}
		if err := fs.Rename(lockName(u.Name), u.Name.String()); err != nil {
			fs.Remove(lockName(u.Name))
			return fmt.Errorf("writing %s: %w", u.Name, err)
		}
	}
	return nil
}

func lockName(ref plumbing.ReferenceName) string { return ref.String() + ".lock" }

// lockRef creates ref's lock file, waiting up to wait while another
// writer holds it.
func lockRef(ctx context.Context, fs billy.Filesystem, ref plumbing.ReferenceName, wait time.Duration) (billy.File, error) {
	name := lockName(ref)
	if err := fs.MkdirAll(path.Dir(ref.String()), 0o755); err != nil {
		return nil, fmt.Errorf("locking %s: %w", ref, err)
	}
	deadline := time.Now().Add(wait)
	for {
		f, err := fs.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("locking %s: %w", ref, err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is locked by %s: another server or git is writing it; if none is, a writer stopped half-way: delete %s", ref, name, fs.Join(fs.Root(), name))
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// refHash reads ref afresh (loose or packed), the zero hash when it does
// not exist.
func refHash(st storer.ReferenceStorer, name plumbing.ReferenceName) (plumbing.Hash, error) {
	ref, err := st.Reference(name)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("reading %s: %w", name, err)
	}
	return ref.Hash(), nil
}

// refsOf returns the hash refs of the repository whose Git directory is
// fs: its loose refs under refs/ over its packed-refs. Unlike go-git's
// listing, it passes over the lock files of writers at work
// (<ref>.lock), which a server moving a label or git update-ref leaves
// for a moment, and a writer that stopped half-way leaves for good. Tags
// are not peeled.
func refsOf(fs billy.Filesystem) (map[plumbing.ReferenceName]plumbing.Hash, error) {
	out := map[plumbing.ReferenceName]plumbing.Hash{}
	data, err := readAll(fs, "packed-refs")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("reading packed-refs: %w", err)
	}
	for line := range strings.Lines(string(data)) {
		h, name, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && !strings.HasPrefix(h, "#") && !strings.HasPrefix(h, "^") && plumbing.IsHash(h) {
			out[plumbing.ReferenceName(name)] = plumbing.NewHash(h)
		}
	}
	var walk func(dir string) error
	walk = func(dir string) error {
		entries, err := fs.ReadDir(dir)
		if errors.Is(err, os.ErrNotExist) {
			return nil // deleted as we read
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", dir, err)
		}
		for _, e := range entries {
			p := dir + "/" + e.Name()
			if e.IsDir() {
				if err := walk(p); err != nil {
					return err
				}
				continue
			}
			if strings.HasSuffix(e.Name(), ".lock") {
				continue
			}
			h, err := looseRef(fs, p)
			if errors.Is(err, os.ErrNotExist) {
				delete(out, plumbing.ReferenceName(p)) // deleted as we read: packed-refs may be stale too
				continue
			}
			if err != nil {
				return err
			}
			if !h.IsZero() {
				out[plumbing.ReferenceName(p)] = h
			}
		}
		return nil
	}
	if err := walk("refs"); err != nil {
		return nil, err
	}
	return out, nil
}

// looseRef reads the loose ref file p: its hash, or zero for a symbolic
// ref. A file found empty (go-git writes a ref by truncating it first) is
// read again for a moment before it is an error.
func looseRef(fs billy.Filesystem, p string) (plumbing.Hash, error) {
	for try := 0; ; try++ {
		data, err := readAll(fs, p)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		s := strings.TrimSpace(string(data))
		switch {
		case strings.HasPrefix(s, "ref:"):
			return plumbing.ZeroHash, nil
		case plumbing.IsHash(s):
			return plumbing.NewHash(s), nil
		case s == "" && try < 20:
			time.Sleep(time.Millisecond)
			continue
		}
		return plumbing.ZeroHash, fmt.Errorf("%s holds %q, not a commit hash", p, s)
	}
}

func readAll(fs billy.Filesystem, p string) ([]byte, error) {
	f, err := fs.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// removeRef deletes ref, whose lock the caller holds, as git does: from
// packed-refs first, under packed-refs.lock, then its loose file, so that
// a reader never sees an older value come back.
func removeRef(ctx context.Context, fs billy.Filesystem, ref plumbing.ReferenceName, wait time.Duration) error {
	data, err := readAll(fs, "packed-refs")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("reading packed-refs: %w", err)
	}
	if packedLine(string(data), ref) >= 0 {
		const packed = plumbing.ReferenceName("packed-refs")
		f, err := lockRef(ctx, fs, packed, wait)
		if err != nil {
			return err
		}
		// Read again under the lock: another writer may have changed it.
		data, err := readAll(fs, "packed-refs")
		if err == nil {
			err = writePacked(f, string(data), ref)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = fs.Rename(lockName(packed), "packed-refs")
		}
		if err != nil {
			fs.Remove(lockName(packed))
			return fmt.Errorf("rewriting packed-refs: %w", err)
		}
	}
	if err := fs.Remove(ref.String()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// packedLine returns the index of ref's line in packed-refs text, or -1.
func packedLine(text string, ref plumbing.ReferenceName) int {
	i := 0
	for line := range strings.Lines(text) {
		if _, name, ok := strings.Cut(strings.TrimSpace(line), " "); ok && name == ref.String() {
			return i
		}
		i++
	}
	return -1
}

// writePacked writes packed-refs text to w without ref's line and the
// peeled line ("^<hash>") that follows it.
func writePacked(w io.Writer, text string, ref plumbing.ReferenceName) error {
	skip := packedLine(text, ref)
	var b strings.Builder
	i := 0
	for line := range strings.Lines(text) {
		drop := i == skip || i == skip+1 && strings.HasPrefix(line, "^")
		if !drop {
			b.WriteString(line)
		}
		i++
	}
	_, err := io.WriteString(w, b.String())
	return err
}
