package registry

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// NotFoundError says that a prompt, version, label or commit does not
// exist.
type NotFoundError struct{ Msg string }

// Error returns the message.
func (e *NotFoundError) Error() string { return e.Msg }

func notFound(format string, args ...any) error {
	return &NotFoundError{Msg: fmt.Sprintf(format, args...)}
}

// IsNotFound reports whether err is a NotFoundError.
func IsNotFound(err error) bool {
	var nf *NotFoundError
	return errors.As(err, &nf)
}

// Resolved is one prompt as a label, version or commit selects it.
type Resolved struct {
	// Name is the prompt's name.
	Name string
	// Version is its version, or 0 for a prompt built off the default
	// branch whose hash no version has.
	Version int
	// Commit is the commit it was built from: the version's commit for a
	// versioned prompt.
	Commit plumbing.Hash
	// Ref is the ref that selected it, or "" for a version.
	Ref string
	// Prompt is the built prompt.
	Prompt *Prompt
	// Snapshot is the catalog it was built in.
	Snapshot *Snapshot
}

// PromptRef returns the ref of prompt name's own label.
func PromptRef(name, label string) plumbing.ReferenceName {
	return plumbing.ReferenceName(PromptPrefix + name + "/labels/" + label)
}

// LabelRef returns the ref label names for prompt name in st and the
// commit it points at: the prompt's own label, a repository-wide label, a
// tag, then a branch; "latest" is the default branch's head.
func (r *Registry) LabelRef(st *State, name, label string) (plumbing.ReferenceName, plumbing.Hash, bool) {
	if label == Latest {
		return r.branch, st.Head, true
	}
	for _, ref := range []plumbing.ReferenceName{
		PromptRef(name, label),
		plumbing.ReferenceName(LabelPrefix + label),
		plumbing.NewTagReferenceName(label),
		plumbing.ReferenceName(r.heads + label),
	} {
		if h, ok := st.Refs[ref]; ok {
			return ref, h, true
		}
	}
	return "", plumbing.ZeroHash, false
}

// ByVersion returns version n of prompt name.
func (r *Registry) ByVersion(ctx context.Context, st *State, name string, n int) (*Resolved, error) {
	vs, ok := st.Versions[name]
	if !ok {
		return nil, notFound("prompt %q not found", name)
	}
	if n < 1 || n > len(vs) {
		return nil, notFound("prompt %q has no version %d: its versions are 1 to %d", name, n, len(vs))
	}
	return r.atVersion(ctx, st, name, vs[n-1], "")
}

func (r *Registry) atVersion(ctx context.Context, st *State, name string, v Version, ref string) (*Resolved, error) {
	c := st.Chain[v.Index]
	snap, err := r.snapshotOfTree(ctx, c.Tree, c.Time)
	if err != nil {
		return nil, fmt.Errorf("version %d of %s (commit %s): %w", v.Number, name, c.Hash, err)
	}
	p, ok := snap.Prompts[name]
	if !ok {
		return nil, fmt.Errorf("version %d of %s (commit %s): the prompt is not in the catalog", v.Number, name, c.Hash)
	}
	return &Resolved{Name: name, Version: v.Number, Commit: v.Commit, Ref: ref, Prompt: p, Snapshot: snap}, nil
}

// ByLabel returns prompt name as label selects it.
func (r *Registry) ByLabel(ctx context.Context, st *State, name, label string) (*Resolved, error) {
	if _, ok := st.Versions[name]; !ok {
		return nil, notFound("prompt %q not found", name)
	}
	ref, c, ok := r.LabelRef(st, name, label)
	if !ok {
		return nil, notFound("prompt %q has no label %q", name, label)
	}
	return r.atCommit(ctx, st, name, c, ref.String())
}

// ByCommit returns prompt name as commit c (a full or abbreviated
// hexadecimal hash of at least 7 digits) built it.
func (r *Registry) ByCommit(ctx context.Context, st *State, name, c string) (*Resolved, error) {
	h, err := r.CommitHash(st, c)
	if err != nil {
		return nil, err
	}
	return r.atCommit(ctx, st, name, h, "")
}

// CommitHash returns the commit c names: a full hash, or 7 or more
// digits of one on the default branch.
func (r *Registry) CommitHash(st *State, c string) (plumbing.Hash, error) {
	if len(c) < 7 || len(c) > 40 || strings.Trim(c, "0123456789abcdef") != "" {
		return plumbing.ZeroHash, fmt.Errorf("commit %q is not a commit hash: give 7 to 40 lower-case hexadecimal digits", c)
	}
	if len(c) == 40 {
		return plumbing.NewHash(c), nil
	}
	var found plumbing.Hash
	for _, cm := range st.Chain {
		if strings.HasPrefix(cm.Hash.String(), c) {
			if !found.IsZero() {
				return plumbing.ZeroHash, fmt.Errorf("commit %q is ambiguous: give more digits", c)
			}
			found = cm.Hash
		}
	}
	if found.IsZero() {
		return plumbing.ZeroHash, notFound("commit %q is not on the default branch: give its full hash", c)
	}
	return found, nil
}

func (r *Registry) atCommit(ctx context.Context, st *State, name string, c plumbing.Hash, ref string) (*Resolved, error) {
	if i, ok := st.index[c]; ok {
		v, ok := st.VersionAt(name, i)
		if !ok {
			return nil, notFound("prompt %q does not exist at commit %s", name, c)
		}
		return r.atVersion(ctx, st, name, v, ref)
	}
	snap, err := r.SnapshotAt(ctx, c)
	if err != nil {
		if strings.Contains(err.Error(), "object not found") {
			return nil, notFound("commit %s not found", c)
		}
		return nil, err
	}
	p, ok := snap.Prompts[name]
	if !ok {
		return nil, notFound("prompt %q does not exist at commit %s", name, c)
	}
	res := &Resolved{Name: name, Commit: c, Ref: ref, Prompt: p, Snapshot: snap}
	vs := st.Versions[name]
	for k := len(vs) - 1; k >= 0; k-- {
		if vs[k].Hash == p.Result.Prompt.Hash {
			res.Version = vs[k].Number
			break
		}
	}
	return res, nil
}

// Labels returns the labels that select version n of prompt name in st,
// sorted: its own labels, the repository-wide labels and the tags that
// resolve to it, and "latest" for the newest version.
func (r *Registry) Labels(st *State, name string, n int) []string {
	st.labels.once.Do(func() { st.labels.m = r.labelMap(st) })
	return st.labels.m[name][n]
}

func (r *Registry) labelMap(st *State) map[string]map[int][]string {
	m := map[string]map[int][]string{}
	add := func(name string, n int, label string) {
		if m[name] == nil {
			m[name] = map[int][]string{}
		}
		for _, l := range m[name][n] {
			if l == label {
				return
			}
		}
		m[name][n] = append(m[name][n], label)
	}
	for name, vs := range st.Versions {
		add(name, vs[len(vs)-1].Number, Latest)
	}
	for ref, c := range st.Refs {
		s := ref.String()
		var names []string
		var label string
		switch {
		case strings.HasPrefix(s, PromptPrefix):
			rest := strings.TrimPrefix(s, PromptPrefix)
			k := strings.LastIndex(rest, "/labels/")
			if k < 0 {
				continue
			}
			names, label = []string{rest[:k]}, rest[k+len("/labels/"):]
		case strings.HasPrefix(s, LabelPrefix):
			names, label = st.Names, strings.TrimPrefix(s, LabelPrefix)
		case ref.IsTag():
			names, label = st.Names, ref.Short()
		default:
			continue
		}
		i, ok := st.index[c]
		if !ok {
			continue // off the default branch: fetched by label, not listed
		}
		for _, name := range names {
			if got, _, _ := r.LabelRef(st, name, label); got != ref {
				continue // shadowed by a label nearer the prompt
			}
			if v, ok := st.VersionAt(name, i); ok {
				add(name, v.Number, label)
			}
		}
	}
	for _, byVersion := range m {
		for _, ls := range byVersion {
			sort.Strings(ls)
		}
	}
	return m
}

// SetLabel points prompt name's own label at version n's commit, and
// returns the state after the move. It moves the label only if it is
// still where the current state has it.
func (r *Registry) SetLabel(ctx context.Context, name, label string, n int) (*State, error) {
	return r.MoveLabels(ctx, r.state.Load(), name, map[string]int{label: n}, nil)
}

// RemoveLabel deletes prompt name's own label, if it is still where the
// current state has it. A label that only a repository-wide label ref or
// a tag gives cannot be removed for one prompt.
func (r *Registry) RemoveLabel(ctx context.Context, name, label string) (*State, error) {
	return r.MoveLabels(ctx, r.state.Load(), name, nil, []string{label})
}

// MoveLabels points each label of set at its version's commit and
// deletes each label of remove, all of prompt name's own labels, in one
// compare-and-swap: only if every one of them is still where st, the
// state the caller read, has it (on the remote, with one). Otherwise it
// moves none, reads the refs again and returns a ConflictError. It
// returns the state after the move.
func (r *Registry) MoveLabels(ctx context.Context, st *State, name string, set map[string]int, remove []string) (*State, error) {
	if st == nil {
		return nil, errors.New("the registry has not been read yet")
	}
	vs, ok := st.Versions[name]
	if !ok {
		return nil, notFound("prompt %q not found", name)
	}
	var ups []refUpdate
	for label, n := range set {
		if n < 1 || n > len(vs) {
			return nil, notFound("prompt %q has no version %d", name, n)
		}
		ref := PromptRef(name, label)
		if err := ref.Validate(); err != nil {
			return nil, fmt.Errorf("label %q of %q: %w", label, name, err)
		}
		ups = append(ups, refUpdate{Name: ref, Old: st.Refs[ref], New: vs[n-1].Commit})
	}
	for _, label := range remove {
		ref := PromptRef(name, label)
		old, ok := st.Refs[ref]
		if !ok {
			if got, _, ok := r.LabelRef(st, name, label); ok {
				return nil, fmt.Errorf("label %q of %q comes from %s, which every prompt shares: delete it with git (git update-ref -d %s or git tag -d)", label, name, got, got)
			}
			return nil, notFound("prompt %q has no label %q", name, label)
		}
		ups = append(ups, refUpdate{Name: ref, Old: old})
	}
	return r.update(ctx, ups)
}

// update applies ups by compare-and-swap (on the remote, with one) and
// reads the repository again, after a conflict too.
func (r *Registry) update(ctx context.Context, ups []refUpdate) (*State, error) {
	var err error
	if r.remote != nil {
		err = r.push(ctx, ups)
	} else {
		var fs billy.Filesystem
		r.mu.Lock()
		if fs, err = gitFS(r.repo); err == nil {
			err = casRefs(ctx, fs, r.repo.Storer, ups, r.lockWait())
		}
		r.mu.Unlock()
	}
	st, rerr := r.Refresh(ctx)
	if err != nil {
		// After a conflict the caller moves again from the state read
		// here: a reading that failed (a writer's files caught half-way
		// on a loaded machine) is tried again before the conflict is
		// returned, and one that still fails is returned with it.
		for wait := 10 * time.Millisecond; rerr != nil && IsConflict(err) && wait <= 80*time.Millisecond; wait *= 2 {
			select {
			case <-ctx.Done():
				return nil, errors.Join(err, ctx.Err())
			case <-time.After(wait):
			}
			st, rerr = r.Refresh(ctx)
		}
		if rerr != nil {
			return st, errors.Join(err, fmt.Errorf("reading the refs again: %w", rerr))
		}
		return st, err
	}
	return st, rerr
}
