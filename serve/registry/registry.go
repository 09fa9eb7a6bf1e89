// Package registry reads a prompt registry out of a Git repository with
// go-git, with no git binary: the catalog at any commit, its prompts (the
// compile units, named as compile names them without ".txt"), their
// versions along the default branch's first-parent history, and the
// labels that point at them.
//
// The model:
//   - version n of a prompt is the n-th first-parent commit of the default
//     branch that changed the prompt's assembled hash; version 1 is the
//     first commit where the prompt builds. A commit whose catalog does not
//     build is skipped, with its reason logged.
//   - a label is a Git ref: refs/tessera/prompts/<prompt>/labels/<label>
//     for one prompt, refs/tessera/labels/<label> for every prompt, a tag,
//     or a branch, looked up in that order; "latest" is the head of the
//     default branch.
//   - a label points at a commit. On the default branch's first-parent
//     history, the prompt's version under it is the newest version whose
//     commit is at or before that commit. Off that history (a feature
//     branch, a tag on a side commit) the prompt is built from the commit
//     itself, and its version is the default branch's version with the
//     same hash, or 0 when no version has it.
//   - every ref the registry writes is moved by compare-and-swap, from
//     where the caller's State has it: of two servers moving one label at
//     once, one wins and the other gets a ConflictError. With
//     Options.Remote, servers with clones of their own share one
//     repository, where the refs are moved and from where they are read.
package registry

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/engine"
)

// Ref prefixes of labels.
const (
	// LabelPrefix holds repository-wide labels: refs/tessera/labels/<label>.
	LabelPrefix = "refs/tessera/labels/"
	// PromptPrefix holds one prompt's labels:
	// refs/tessera/prompts/<prompt>/labels/<label>.
	PromptPrefix = "refs/tessera/prompts/"
	// Latest is the reserved label of the default branch's head.
	Latest = "latest"
)

var labelRE = regexp.MustCompile(`^[a-z0-9_.-]{1,36}$`)

// CheckLabel returns an error unless label is a valid label name:
// ^[a-z0-9_.-]{1,36}$, as Langfuse allows.
func CheckLabel(label string) error {
	if !labelRE.MatchString(label) || label == "." || label == ".." || strings.HasSuffix(label, ".lock") || strings.HasPrefix(label, ".") {
		return fmt.Errorf("label %q is not valid: use 1 to 36 of a-z, 0-9, '_', '.' and '-', not starting with '.' nor ending in .lock", label)
	}
	return nil
}

// Options configures Open.
type Options struct {
	// Root is the catalog's directory: the root of a Git work tree or a
	// directory inside one.
	Root string
	// Branch is the default branch's name ("main"); empty takes the
	// branch HEAD points at, or HEAD itself when it is detached.
	Branch string
	// Engine builds the catalogs; it needs presets (presets.Default()).
	Engine *engine.Engine
	// Logger hears of commits skipped because their catalog does not
	// build; nil discards.
	Logger *slog.Logger
	// CacheSize is how many built catalogs are kept; 0 means 64.
	CacheSize int
	// Remote, when set, is a Git repository that several servers, each
	// with a clone of its own, share: a path or a file:// URL on a file
	// system they all reach (bare as a rule), or an https, http, ssh or
	// git URL, spoken to with go-git's transports (a password in an
	// https URL's user part is sent as HTTP Basic auth; ssh uses SSH, as
	// SSH names below say). Each Refresh first fetches its branches (into
	// refs/remotes/tessera/), tags and refs/tessera/*; labels and golden
	// cases are moved there, by compare-and-swap, and the default branch
	// is the remote's. Without it, the refs are the work tree's own.
	Remote string
	// RemoteTimeout bounds each exchange with a remote over the network
	// (a read of its refs with the objects that come with it, or a push),
	// so that one that stops answering holds up no refresh or move for
	// ever; 0 means DefaultRemoteTimeout, 30 s.
	RemoteTimeout time.Duration
	// LockWait is how long a label move waits for Git's lock on a ref
	// (<ref>.lock) that another writer holds before it fails, naming the
	// file; 0 means DefaultLockWait, 2 s.
	LockWait time.Duration
	// SSH configures an ssh remote's keys.
	SSH SSHOptions
}

// SSHOptions are the keys of an ssh remote.
type SSHOptions struct {
	// KeyFile is the private key (OpenSSH or PEM) the server logs in
	// with; empty uses the keys of the SSH agent SSH_AUTH_SOCK names.
	// KeyPassphrase unlocks an encrypted key.
	KeyFile, KeyPassphrase string
	// KnownHosts are known_hosts files holding the remote's host key,
	// which must match; empty reads the files SSH_KNOWN_HOSTS lists
	// (separated by the path list separator), or else
	// ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts.
	KnownHosts []string
}

// Registry is a prompt registry over a Git repository. It is safe for
// concurrent use.
type Registry struct {
	opts   Options
	log    *slog.Logger
	mu     sync.Mutex // guards repo: go-git is not safe for concurrent use
	repo   *git.Repository
	sub    string // the catalog's directory in the tree, "" for the root
	branch plumbing.ReferenceName
	// name is the default branch's name, heads the prefix of the branches
	// served by name: refs/heads/, or RemotePrefix with a remote.
	name, heads string
	remote      *remote

	state atomic.Pointer[State]

	refreshMu sync.Mutex // one refresh at a time
	buildMu   sync.Mutex // one build at a time
	cacheMu   sync.Mutex
	cache     map[plumbing.Hash]*list.Element // by catalog tree
	lru       *list.List
	failed    map[plumbing.Hash]error // catalog trees that do not build
}

// Open opens the Git work tree holding the catalog at opts.Root. It reads
// nothing beyond the repository's configuration: call Refresh.
func Open(ctx context.Context, opts Options) (*Registry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Engine == nil {
		return nil, errors.New("registry: Options.Engine is nil: pass &engine.Engine{Registry: presets.Default()}")
	}
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("--root %s: %w", opts.Root, err)
	}
	if fi, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("--root %s: %w", opts.Root, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("--root %s: not a directory: name the catalog's directory in a Git work tree", opts.Root)
	}
	repo, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("--root %s: %s is not in a Git work tree: the registry serves the catalog's committed history. Make it one (cd %s && git init && git add -A && git commit -m catalog), or clone the repository that holds it", opts.Root, root, root)
	}
	if err != nil {
		return nil, fmt.Errorf("--root %s: opening its Git repository: %w", opts.Root, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, fmt.Errorf("--root %s: %w", opts.Root, err)
	}
	top, err := filepath.EvalSymlinks(wt.Filesystem.Root())
	if err != nil {
		return nil, fmt.Errorf("--root %s: %w", opts.Root, err)
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return nil, fmt.Errorf("--root %s: %w", opts.Root, err)
	}
	sub, err := filepath.Rel(top, root)
	if err != nil || sub == ".." || strings.HasPrefix(sub, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("--root %s: not inside the work tree %s", opts.Root, top)
	}
	sub = filepath.ToSlash(sub)
	if sub == "." {
		sub = ""
	}
	r := &Registry{opts: opts, repo: repo, sub: sub, cache: map[plumbing.Hash]*list.Element{}, lru: list.New(), failed: map[plumbing.Hash]error{}}
	r.log = opts.Logger
	if r.log == nil {
		r.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if r.opts.CacheSize <= 0 {
		r.opts.CacheSize = 64
	}
	r.heads = "refs/heads/"
	if opts.Branch != "" {
		r.branch = plumbing.NewBranchReferenceName(opts.Branch)
	} else {
		head, err := repo.Storer.Reference(plumbing.HEAD)
		if err != nil {
			return nil, fmt.Errorf("--root %s: reading HEAD: %w", opts.Root, err)
		}
		r.branch = plumbing.HEAD // detached, as CI checkouts often are: its history
		if head.Type() == plumbing.SymbolicReference {
			r.branch = head.Target()
		}
	}
	r.name = r.branch.Short()
	if opts.Remote != "" {
		if r.remote, err = parseRemote(opts.Remote, opts.SSH); err != nil {
			return nil, err
		}
		if !r.branch.IsBranch() {
			r.name = r.remote.headBranch(ctx)
			if r.name == "" {
				return nil, fmt.Errorf("remote %s: HEAD is detached here and names no branch there: name the default branch (--branch)", opts.Remote)
			}
		}
		r.heads = RemotePrefix
		r.branch = plumbing.ReferenceName(RemotePrefix + r.name)
	}
	return r, nil
}

// Branch returns the default branch's short name, or "HEAD" for a
// detached HEAD.
func (r *Registry) Branch() string { return r.name }

// Remote returns the remote as Options gave it, or "".
func (r *Registry) Remote() string {
	if r.remote == nil {
		return ""
	}
	return r.remote.flag
}

// Sub returns the catalog's directory inside the work tree, slash-
// separated, "" for its root.
func (r *Registry) Sub() string { return r.sub }

// State returns the registry as of the last successful Refresh, or nil
// before the first.
func (r *Registry) State() *State { return r.state.Load() }

// Commit is one commit of the default branch's first-parent history.
type Commit struct {
	// Hash is the commit's hash.
	Hash plumbing.Hash
	// Tree is the catalog directory's tree at it.
	Tree plumbing.Hash
	// Time is the committer's time.
	Time time.Time
	// Message is the commit message.
	Message string
	// Err is why the catalog did not build at it, or nil.
	Err error
}

// Version is one version of a prompt.
type Version struct {
	// Number is the version, from 1.
	Number int
	// Commit is the commit that made it; Index is that commit's place in
	// State.Chain.
	Commit plumbing.Hash
	Index  int
	// Hash is the prompt hash of the assembled text.
	Hash string
	// Time and Message are the commit's.
	Time    time.Time
	Message string
}

// State is the registry at one refresh. It is never changed once
// published.
type State struct {
	// Head is the default branch's head.
	Head plumbing.Hash
	// Chain is the first-parent history, oldest first.
	Chain []Commit
	// Versions are each prompt's versions, oldest first.
	Versions map[string][]Version
	// Names are the prompts ever versioned, sorted.
	Names []string
	// Refs maps every ref name to the commit it points at (tags peeled).
	Refs map[plumbing.ReferenceName]plumbing.Hash
	// At is when the refresh that made this state finished; a later
	// refresh that finds nothing changed keeps the state as it is.
	At time.Time

	index  map[plumbing.Hash]int
	last   map[string]string // each prompt's newest version's hash
	labels *labelIndex
}

// labelIndex lists, per prompt and version, the labels that select it,
// worked out once per state.
type labelIndex struct {
	once sync.Once
	m    map[string]map[int][]string
}

// IndexOf returns the place of commit h in Chain, and whether it is on it.
func (s *State) IndexOf(h plumbing.Hash) (int, bool) {
	i, ok := s.index[h]
	return i, ok
}

// VersionAt returns the newest version of prompt name whose commit is at
// or before Chain[i], and false when there is none.
func (s *State) VersionAt(name string, i int) (Version, bool) {
	vs := s.Versions[name]
	k := sort.Search(len(vs), func(k int) bool { return vs[k].Index > i })
	if k == 0 {
		return Version{}, false
	}
	return vs[k-1], true
}

// Refresh reads the refs again and extends the version history with the
// default branch's new commits, building the catalog at each commit whose
// catalog tree changed. A force-pushed branch is read again from its
// first commit. It returns the state it published.
func (r *Registry) Refresh(ctx context.Context) (*State, error) {
	r.refreshMu.Lock()
	defer r.refreshMu.Unlock()
	prev := r.state.Load()
	if r.remote != nil {
		if err := r.fetch(ctx); err != nil {
			return nil, err
		}
	}
	refs, head, err := r.readRefs()
	if err != nil {
		return nil, err
	}
	if prev != nil && prev.Head == head {
		if maps.Equal(prev.Refs, refs) {
			return prev, nil // nothing moved: the same state, caches and all
		}
		st := *prev
		st.Refs, st.At, st.labels = refs, time.Now(), &labelIndex{}
		r.state.Store(&st)
		return &st, nil
	}
	chain, extended, err := r.firstParents(ctx, head, prev)
	if err != nil {
		return nil, err
	}
	st := &State{Head: head, Refs: refs, Versions: map[string][]Version{}, index: map[plumbing.Hash]int{}, last: map[string]string{}, labels: &labelIndex{}}
	start := 0
	if extended {
		// The old head is on the new history: keep what was computed.
		start = len(prev.Chain)
		for name, vs := range prev.Versions {
			st.Versions[name] = vs
		}
		for name, h := range prev.last {
			st.last[name] = h
		}
	}
	st.Chain = chain
	for i, c := range chain {
		st.index[c.Hash] = i
	}
	var prevTree plumbing.Hash
	if start > 0 {
		prevTree = chain[start-1].Tree
	}
	for i := start; i < len(chain); i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := &chain[i]
		if c.Tree == prevTree && i > 0 {
			c.Err = chain[i-1].Err
			continue
		}
		prevTree = c.Tree
		snap, err := r.snapshotOfTree(ctx, c.Tree, c.Time)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			c.Err = err
			r.log.Warn("commit skipped: its catalog does not build", "commit", c.Hash.String(), "err", err)
			continue
		}
		for _, name := range snap.Names {
			h := snap.Prompts[name].Result.Prompt.Hash
			if st.last[name] == h {
				continue
			}
			vs := st.Versions[name]
			// Copy on write: the previous state shares the slice.
			vs = append(vs[:len(vs):len(vs)], Version{Number: len(vs) + 1, Commit: c.Hash, Index: i, Hash: h, Time: c.Time, Message: c.Message})
			st.Versions[name] = vs
			st.last[name] = h
		}
	}
	for name := range st.Versions {
		st.Names = append(st.Names, name)
	}
	sort.Strings(st.Names)
	st.At = time.Now()
	r.state.Store(st)
	return st, nil
}

// readRefs reads every ref, with tags peeled to their commits.
func (r *Registry) readRefs() (map[plumbing.ReferenceName]plumbing.Hash, plumbing.Hash, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fs, err := gitFS(r.repo)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	out, err := refsOf(fs)
	if err != nil {
		return nil, plumbing.ZeroHash, fmt.Errorf("reading the refs: %w", err)
	}
	for name, h := range out {
		if !name.IsTag() {
			continue
		}
		if t, err := r.repo.TagObject(h); err == nil {
			c, err := t.Commit()
			if err != nil {
				delete(out, name) // a tag of something else than a commit
				continue
			}
			out[name] = c.Hash
		}
	}
	if head, err := r.repo.Storer.Reference(plumbing.HEAD); err == nil && head.Type() == plumbing.HashReference {
		out[plumbing.HEAD] = head.Hash() // detached
	}
	head, ok := out[r.branch]
	if !ok && r.remote != nil {
		return nil, plumbing.ZeroHash, fmt.Errorf("remote %s has no branch %s: push it there (git push %s %s), or name another (--branch)", r.remote.flag, r.name, r.remote.flag, r.name)
	}
	if !ok {
		return nil, plumbing.ZeroHash, fmt.Errorf("the default branch %s has no commit: commit the catalog first", r.name)
	}
	return out, head, nil
}

// firstParents returns the first-parent history ending at head, oldest
// first, and whether it extends prev's (whose head is on it).
func (r *Registry) firstParents(ctx context.Context, head plumbing.Hash, prev *State) ([]Commit, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var rev []Commit
	known := plumbing.ZeroHash
	if prev != nil {
		known = prev.Head
	}
	h := head
	for {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		if h == known {
			out := make([]Commit, len(prev.Chain)+len(rev))
			copy(out, prev.Chain)
			for i, c := range rev {
				out[len(out)-1-i] = c
			}
			return out, true, nil
		}
		c, err := r.repo.CommitObject(h)
		if errors.Is(err, plumbing.ErrObjectNotFound) && len(rev) > 0 {
			break // a shallow clone: the history starts at its boundary
		}
		if err != nil {
			return nil, false, fmt.Errorf("reading commit %s: %w", h, err)
		}
		tree, err := r.catalogTree(c)
		if err != nil {
			return nil, false, err
		}
		rev = append(rev, Commit{Hash: c.Hash, Tree: tree, Time: c.Committer.When.UTC(), Message: strings.TrimSpace(c.Message)})
		if c.NumParents() == 0 {
			break
		}
		h = c.ParentHashes[0]
	}
	out := make([]Commit, len(rev))
	for i, c := range rev {
		out[len(out)-1-i] = c
	}
	return out, false, nil
}

// catalogTree returns the hash of the catalog directory's tree at c, or
// the zero hash when it does not exist there. The caller holds r.mu.
func (r *Registry) catalogTree(c *object.Commit) (plumbing.Hash, error) {
	if r.sub == "" {
		return c.TreeHash, nil
	}
	t, err := c.Tree()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("reading the tree of commit %s: %w", c.Hash, err)
	}
	sub, err := t.Tree(r.sub)
	if err != nil {
		return plumbing.ZeroHash, nil
	}
	return sub.Hash, nil
}

// storer returns the repository's object storage.
func (r *Registry) storer() storer.EncodedObjectStorer { return r.repo.Storer }

// ErrNoCatalog is the error of a commit without the catalog's directory.
var ErrNoCatalog = errors.New("the catalog's directory does not exist at this commit")

// openCatalog opens the catalog held in tree h.
func (r *Registry) openCatalog(ctx context.Context, h plumbing.Hash, mtime time.Time) (*catalog.Catalog, error) {
	if h.IsZero() {
		return nil, ErrNoCatalog
	}
	st := lockedStorer{r.storer(), &r.mu}
	t, err := object.GetTree(st, h)
	if err != nil {
		return nil, fmt.Errorf("reading tree %s: %w", h, err)
	}
	return r.opts.Engine.OpenFS(ctx, &treeFS{store: st, root: t, mtime: mtime})
}

// lockedStorer reads objects under the registry's lock, each read in full
// before the lock is let go, so that catalogs read at request time share
// the repository safely.
type lockedStorer struct {
	storer.EncodedObjectStorer
	mu *sync.Mutex
}

// EncodedObject reads object h of type t in full.
func (s lockedStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, err := s.EncodedObjectStorer.EncodedObject(t, h)
	if err != nil {
		return nil, err
	}
	rd, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	m := &plumbing.MemoryObject{}
	m.SetType(o.Type())
	if _, err := io.Copy(m, rd); err != nil {
		return nil, err
	}
	return m, nil
}
