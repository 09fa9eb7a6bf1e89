package registry

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/preset"
)

// Snapshot is the catalog of one tree, built: every prompt it compiles.
// It is shared by every commit with the same catalog tree, and never
// changed once made.
type Snapshot struct {
	// Tree is the catalog directory's tree.
	Tree plumbing.Hash
	// Catalog is the catalog, read from the tree.
	Catalog *catalog.Catalog
	// Prompts are the prompts by name.
	Prompts map[string]*Prompt
	// Names are the prompts' names, sorted.
	Names []string
}

// Prompt is one built prompt of a snapshot.
type Prompt struct {
	// Name is compile's path of the unit without ".txt".
	Name string
	// Unit is the compile unit.
	Unit preset.Unit
	// Result is the built prompt.
	Result *engine.Result
	// Blobs maps each source file's path (relative to the catalog) to its
	// Git blob hash.
	Blobs map[string]string
}

// Name returns the name of the prompt compile writes to out.
func Name(out string) string { return strings.TrimSuffix(out, ".txt") }

// snapshotOfTree returns the built catalog of tree h, from the cache or
// built now.
func (r *Registry) snapshotOfTree(ctx context.Context, h plumbing.Hash, mtime time.Time) (*Snapshot, error) {
	if s, err, ok := r.cached(h); ok {
		return s, err
	}
	r.buildMu.Lock()
	defer r.buildMu.Unlock()
	if s, err, ok := r.cached(h); ok {
		return s, err
	}
	s, err := r.build(ctx, h, mtime)
	if err != nil {
		if ctx.Err() == nil {
			r.cacheMu.Lock()
			r.failed[h] = err
			r.cacheMu.Unlock()
		}
		return nil, err
	}
	r.cacheMu.Lock()
	defer r.cacheMu.Unlock()
	r.cache[h] = r.lru.PushFront(s)
	for r.lru.Len() > r.opts.CacheSize {
		old := r.lru.Remove(r.lru.Back()).(*Snapshot)
		delete(r.cache, old.Tree)
	}
	return s, nil
}

func (r *Registry) cached(h plumbing.Hash) (*Snapshot, error, bool) {
	r.cacheMu.Lock()
	defer r.cacheMu.Unlock()
	if err, ok := r.failed[h]; ok {
		return nil, err, true
	}
	if e, ok := r.cache[h]; ok {
		r.lru.MoveToFront(e)
		return e.Value.(*Snapshot), nil, true
	}
	return nil, nil, false
}

func (r *Registry) build(ctx context.Context, h plumbing.Hash, mtime time.Time) (*Snapshot, error) {
	cat, err := r.openCatalog(ctx, h, mtime)
	if err != nil {
		return nil, err
	}
	built, err := r.opts.Engine.Build(ctx, cat)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Tree: h, Catalog: cat, Prompts: make(map[string]*Prompt, len(built))}
	st := lockedStorer{r.storer(), &r.mu}
	tree, err := object.GetTree(st, h)
	if err != nil {
		return nil, fmt.Errorf("reading tree %s: %w", h, err)
	}
	for _, b := range built {
		p := &Prompt{Name: Name(b.Unit.Out), Unit: b.Unit, Result: b.Result, Blobs: map[string]string{}}
		for _, src := range b.Result.Prompt.Sources {
			if e, err := tree.FindEntry(src.Path); err == nil {
				p.Blobs[src.Path] = e.Hash.String()
			}
		}
		s.Prompts[p.Name] = p
		s.Names = append(s.Names, p.Name)
	}
	sort.Strings(s.Names)
	return s, nil
}

// SnapshotAt returns the built catalog at commit c.
func (r *Registry) SnapshotAt(ctx context.Context, c plumbing.Hash) (*Snapshot, error) {
	if st := r.state.Load(); st != nil {
		if i, ok := st.index[c]; ok {
			cm := st.Chain[i]
			return r.snapshotOfTree(ctx, cm.Tree, cm.Time)
		}
	}
	r.mu.Lock()
	cm, err := r.repo.CommitObject(c)
	var tree plumbing.Hash
	if err == nil {
		tree, err = r.catalogTree(cm)
	}
	r.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", c, err)
	}
	return r.snapshotOfTree(ctx, tree, cm.Committer.When.UTC())
}

// CommitInfo returns commit c's time and message.
func (r *Registry) CommitInfo(c plumbing.Hash) (time.Time, string, error) {
	if st := r.state.Load(); st != nil {
		if i, ok := st.index[c]; ok {
			return st.Chain[i].Time, st.Chain[i].Message, nil
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	cm, err := r.repo.CommitObject(c)
	if err != nil {
		return time.Time{}, "", fmt.Errorf("commit %s: %w", c, err)
	}
	return cm.Committer.When.UTC(), strings.TrimSpace(cm.Message), nil
}
