package registry

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// GoldenPrefix holds golden cases: refs/tessera/golden/<prompt>/<audit id>
// points at the commit the case was rendered at.
const GoldenPrefix = "refs/tessera/golden/"

// GoldenRef returns the ref of prompt name's golden case id.
func GoldenRef(name, id string) plumbing.ReferenceName {
	return plumbing.ReferenceName(GoldenPrefix + name + "/" + id)
}

// Golden returns the audit ids of prompt name's golden cases in st,
// sorted.
func (r *Registry) Golden(st *State, name string) []string {
	prefix := GoldenPrefix + name + "/"
	var ids []string
	for ref := range st.Refs {
		if id, ok := strings.CutPrefix(ref.String(), prefix); ok && !strings.Contains(id, "/") {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// AddGolden marks audit record id, rendered from prompt name at commit
// c, as a golden case of the prompt, and returns the state after.
func (r *Registry) AddGolden(ctx context.Context, name, id string, c plumbing.Hash) (*State, error) {
	ref := GoldenRef(name, id)
	if err := ref.Validate(); err != nil || strings.Contains(id, "/") {
		return nil, fmt.Errorf("audit id %q cannot name a golden case of %q: use an id of letters, digits and '-'", id, name)
	}
	return r.update(ctx, []refUpdate{{Name: ref, New: c}})
}

// RemoveGolden unmarks golden case id of prompt name.
func (r *Registry) RemoveGolden(ctx context.Context, name, id string) (*State, error) {
	st := r.state.Load()
	if st == nil {
		return nil, errors.New("the registry has not been read yet")
	}
	ref := GoldenRef(name, id)
	old, ok := st.Refs[ref]
	if !ok {
		return nil, notFound("prompt %q has no golden case %q", name, id)
	}
	return r.update(ctx, []refUpdate{{Name: ref, Old: old}})
}
