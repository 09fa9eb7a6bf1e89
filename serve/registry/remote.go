package registry

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// RemotePrefix holds the remote's branches in a registry with a remote:
// refs/remotes/tessera/<branch>.
const RemotePrefix = "refs/remotes/tessera/"

// remote is the repository that servers with clones of their own share:
// a Git repository (bare, as a rule) on a file system they all reach, or
// one a Git server serves over the network.
// Label and golden refs are moved there, by compare-and-swap, and read
// back from there; the default branch and the other branches and tags are
// read from there too, so every server numbers the same versions.
type remote struct {
	// flag is the remote as it was given, with any password hidden, for
	// messages.
	flag string
	// dir is its directory, for a remote on a file system; url is its
	// address, for one over the network (https, http, ssh, git, or
	// scp-like user@host:path), which go-git's transports speak.
	dir, url string
	// auth logs in to a remote over ssh; nil for the others.
	auth transport.AuthMethod
}

// parseRemote checks s: a path or file:// URL of a Git repository on the
// file system (opened once to check it), or a network URL.
func parseRemote(s string, sshOpts SSHOptions) (*remote, error) {
	p := s
	if rest, ok := strings.CutPrefix(s, "file://"); ok {
		p = rest
	} else if strings.Contains(s, "://") || isSCP(s) {
		ep, err := transport.NewEndpoint(s)
		if err != nil {
			return nil, fmt.Errorf("remote %s: %w", hidePassword(s), err)
		}
		switch ep.Protocol {
		case "http", "https", "ssh", "git":
		default:
			return nil, fmt.Errorf("remote %s: protocol %q is not supported: give a path, or an https, http, ssh or git URL", hidePassword(s), ep.Protocol)
		}
		rm := &remote{flag: hidePassword(s), url: s}
		if ep.Protocol == "ssh" {
			if rm.auth, err = sshAuth(ep, sshOpts); err != nil {
				return nil, fmt.Errorf("remote %s: %w", rm.flag, err)
			}
		}
		return rm, nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w", s, err)
	}
	r := &remote{flag: s, dir: abs}
	if _, err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

// hidePassword returns URL s with its password, if any, written as
// "xxxxx".
func hidePassword(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	return u.Redacted()
}

// isSCP reports whether s is Git's scp-like address, user@host:path.
func isSCP(s string) bool {
	at, colon := strings.Index(s, "@"), strings.Index(s, ":")
	return at > 0 && colon > at && !strings.ContainsAny(s[:at], "/\\")
}

// open opens the remote afresh, so that packs written since the last
// open (by git push, say) are seen.
func (rm *remote) open() (*git.Repository, error) {
	if fi, err := os.Stat(rm.dir); err != nil {
		return nil, fmt.Errorf("remote %s: %w: make it with git init --bare %s, then push the default branch to it", rm.flag, err, rm.dir)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("remote %s: not a directory: give a Git repository's directory", rm.flag)
	}
	repo, err := git.PlainOpenWithOptions(rm.dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w: give a Git repository (git init --bare %s, then push the default branch to it)", rm.flag, err, rm.dir)
	}
	return repo, nil
}

// gitFS returns the Git directory of repo as a file system, for ref
// locks.
func gitFS(repo *git.Repository) (billy.Filesystem, error) {
	fs, ok := repo.Storer.(*filesystem.Storage)
	if !ok {
		return nil, fmt.Errorf("the repository is not on a file system (%T)", repo.Storer)
	}
	return fs.Filesystem(), nil
}

// headBranch returns the branch the remote's HEAD names, or "".
func (rm *remote) headBranch(ctx context.Context) string {
	if rm.url != "" {
		ctx, cancel := context.WithTimeout(ctx, DefaultRemoteTimeout)
		defer cancel()
		sess, err := rm.uploadSession()
		if err != nil {
			return ""
		}
		defer sess.Close()
		ar, err := sess.AdvertisedReferencesContext(ctx)
		if err != nil {
			return ""
		}
		for _, v := range ar.Capabilities.Get(capability.SymRef) {
			if from, to, ok := strings.Cut(v, ":"); ok && from == "HEAD" && plumbing.ReferenceName(to).IsBranch() {
				return plumbing.ReferenceName(to).Short()
			}
		}
		return ""
	}
	repo, err := rm.open()
	if err != nil {
		return ""
	}
	head, err := repo.Storer.Reference(plumbing.HEAD)
	if err != nil || head.Type() != plumbing.SymbolicReference || !head.Target().IsBranch() {
		return ""
	}
	return head.Target().Short()
}

// mirrored maps a ref of the remote to the local ref that mirrors it, and
// whether local refs there that the remote lacks are deleted.
func mirrored(name plumbing.ReferenceName) (plumbing.ReferenceName, bool) {
	s := name.String()
	switch {
	case strings.HasPrefix(s, "refs/tessera/"):
		return name, true
	case name.IsBranch():
		return plumbing.ReferenceName(RemotePrefix + name.Short()), true
	case name.IsTag():
		return name, true
	}
	return "", false
}

// fetch makes the local repository's refs/tessera/*, refs/remotes/tessera/*
// and tags those of the remote (refs/heads/* mirrored under
// refs/remotes/tessera/), copying the objects it lacks. Local
// refs/tessera/* and refs/remotes/tessera/* that the remote lacks are
// deleted; local tags are kept. It takes r.mu only while it reads or
// writes the local repository, never over the network.
func (r *Registry) fetch(ctx context.Context) error {
	var (
		theirs map[plumbing.ReferenceName]plumbing.Hash
		src    storer.EncodedObjectStorer // the remote's objects, on a file system
		err    error
	)
	if r.remote.url != "" {
		if theirs, err = r.fetchNet(ctx); err != nil {
			return err
		}
	} else {
		rrepo, err := r.remote.open()
		if err != nil {
			return err
		}
		rfs, err := gitFS(rrepo)
		if err != nil {
			return fmt.Errorf("remote %s: %w", r.remote.flag, err)
		}
		if theirs, err = refsOf(rfs); err != nil {
			return fmt.Errorf("remote %s: reading its refs: %w", r.remote.flag, err)
		}
		src = rrepo.Storer
	}
	want := map[plumbing.ReferenceName]plumbing.Hash{}
	for name, h := range theirs {
		if local, ok := mirrored(name); ok {
			want[local] = h
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	have, err := r.localRefs()
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		h := want[name]
		if have[name] == h {
			continue
		}
		if src != nil {
			if err := copyObjects(ctx, src, r.repo.Storer, h); err != nil {
				return fmt.Errorf("remote %s: fetching %s: %w", r.remote.flag, name, err)
			}
		} else if r.repo.Storer.HasEncodedObject(h) != nil {
			return fmt.Errorf("remote %s: fetching %s: object %s did not come", r.remote.flag, name, h)
		}
		if err := r.repo.Storer.SetReference(plumbing.NewHashReference(name, h)); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(have)) {
		s := name.String()
		if _, ok := want[name]; ok || !(strings.HasPrefix(s, "refs/tessera/") || strings.HasPrefix(s, RemotePrefix)) {
			continue
		}
		if err := r.repo.Storer.RemoveReference(name); err != nil {
			return fmt.Errorf("deleting %s, which the remote no longer has: %w", name, err)
		}
	}
	return nil
}

// localRefs lists the local repository's refs. The caller holds r.mu.
func (r *Registry) localRefs() (map[plumbing.ReferenceName]plumbing.Hash, error) {
	fs, err := gitFS(r.repo)
	if err != nil {
		return nil, err
	}
	have, err := refsOf(fs)
	if err != nil {
		return nil, fmt.Errorf("reading the refs: %w", err)
	}
	return have, nil
}

// push copies to the remote the objects ups point at, then applies ups
// there by compare-and-swap.
func (r *Registry) push(ctx context.Context, ups []refUpdate) error {
	if r.remote.url != "" {
		return r.pushNet(ctx, ups)
	}
	rrepo, err := r.remote.open()
	if err != nil {
		return err
	}
	src := lockedStorer{r.storer(), &r.mu}
	for _, u := range ups {
		if u.New.IsZero() {
			continue
		}
		if err := copyObjects(ctx, src, rrepo.Storer, u.New); err != nil {
			return fmt.Errorf("remote %s: pushing %s: %w", r.remote.flag, u.Name, err)
		}
	}
	fs, err := gitFS(rrepo)
	if err != nil {
		return fmt.Errorf("remote %s: %w", r.remote.flag, err)
	}
	if err := casRefs(ctx, fs, rrepo.Storer, ups, r.lockWait()); err != nil {
		if IsConflict(err) {
			return err
		}
		return fmt.Errorf("remote %s: %w", r.remote.flag, err)
	}
	return nil
}

// copyObjects copies into dst the objects reachable from root that it
// lacks, each after the objects it points at, so that dst never holds an
// object without what it reaches (Git's rule, which lets the walk stop at
// the first object dst has).
func copyObjects(ctx context.Context, src, dst storer.EncodedObjectStorer, root plumbing.Hash) error {
	seen := map[plumbing.Hash]bool{}
	var visit func(h plumbing.Hash) error
	visit = func(h plumbing.Hash) error {
		if seen[h] {
			return nil
		}
		seen[h] = true
		if dst.HasEncodedObject(h) == nil {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		o, err := src.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return fmt.Errorf("reading object %s: %w", h, err)
		}
		var next []plumbing.Hash
		switch o.Type() {
		case plumbing.CommitObject:
			c, err := object.DecodeCommit(src, o)
			if err != nil {
				return fmt.Errorf("reading commit %s: %w", h, err)
			}
			next = append([]plumbing.Hash{c.TreeHash}, c.ParentHashes...)
		case plumbing.TreeObject:
			t, err := object.DecodeTree(src, o)
			if err != nil {
				return fmt.Errorf("reading tree %s: %w", h, err)
			}
			for _, e := range t.Entries {
				if e.Mode != filemode.Submodule {
					next = append(next, e.Hash)
				}
			}
		case plumbing.TagObject:
			t, err := object.DecodeTag(src, o)
			if err != nil {
				return fmt.Errorf("reading tag %s: %w", h, err)
			}
			next = append(next, t.Target)
		}
		for _, n := range next {
			if err := visit(n); err != nil {
				return err
			}
		}
		if _, err := dst.SetEncodedObject(o); err != nil {
			return fmt.Errorf("writing object %s: %w", h, err)
		}
		return nil
	}
	return visit(root)
}
