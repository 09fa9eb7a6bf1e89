package serve

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tessera-dev/tessera/serve/registry"
)

// OutsideActor is who the history names for a label move that no server
// made through the API: one made with git (git update-ref), on the
// remote or in the repository.
const OutsideActor = "git"

// outsideReason is the reason the history gives such a move.
const outsideReason = "moved outside the API"

// moveKey names the move of ref from old to cur for EventClaimer: the
// server that moves a label through the API claims it before it moves,
// so that no server takes the move for one made with git.
func moveKey(ref plumbing.ReferenceName, old, cur plumbing.Hash) string {
	return "move " + ref.String() + " " + old.String() + " " + cur.String()
}

// claimMoves claims the moves of prompt name's labels that a PATCH is
// about to make from st: set to version numbers, remove deleted.
func (s *Server) claimMoves(ctx context.Context, st *registry.State, name string, set map[string]int, remove []string) {
	c, ok := s.store.(EventClaimer)
	if !ok {
		return
	}
	vs := st.Versions[name]
	claim := func(label string, cur plumbing.Hash) {
		ref := registry.PromptRef(name, label)
		if _, err := c.ClaimEvent(ctx, moveKey(ref, st.Refs[ref], cur)); err != nil {
			s.log.Error("claiming a label move", "prompt", name, "label", label, "err", err)
		}
	}
	for _, label := range slices.Sorted(maps.Keys(set)) {
		if n := set[label]; n >= 1 && n <= len(vs) {
			claim(label, vs[n-1].Commit)
		}
	}
	for _, label := range remove {
		claim(label, plumbing.ZeroHash)
	}
}

// recordOutsideMoves records in the history the moves of prompts' own
// labels between the last state this server examined and st that no
// server recorded: moves made with git. A move is skipped when a server
// claimed it before making it through the API, when the history's last
// move of the label already ends where the label is (two moves between
// polls), or when another server claimed it first.
func (s *Server) recordOutsideMoves(ctx context.Context, st *registry.State) {
	prev := s.examined.Swap(st)
	if prev == nil || prev == st {
		return
	}
	names := map[plumbing.ReferenceName]bool{}
	for ref := range prev.Refs {
		names[ref] = true
	}
	for ref := range st.Refs {
		names[ref] = true
	}
	claimer, _ := s.store.(EventClaimer)
	for _, ref := range slices.Sorted(maps.Keys(names)) {
		old, cur := prev.Refs[ref], st.Refs[ref]
		if old == cur {
			continue
		}
		rest, ok := strings.CutPrefix(ref.String(), registry.PromptPrefix)
		if !ok {
			continue
		}
		k := strings.LastIndex(rest, "/labels/")
		if k < 0 {
			continue
		}
		name, label := rest[:k], rest[k+len("/labels/"):]
		if _, ok := st.Versions[name]; !ok || registry.CheckLabel(label) != nil {
			continue
		}
		if s.recorded(ctx, name, label, cur) {
			continue
		}
		if claimer != nil {
			ok, err := claimer.ClaimEvent(ctx, moveKey(ref, old, cur))
			if err != nil {
				s.log.Error("claiming a label move", "ref", ref.String(), "err", err)
				continue // better a move left out than one recorded twice
			}
			if !ok {
				continue
			}
		}
		m := LabelMove{Prompt: name, Label: label, Actor: OutsideActor, Reason: outsideReason, At: time.Now().UTC()}
		if !old.IsZero() {
			m.FromVersion, m.FromCommit = versionAt(prev, name, old), old.String()
		}
		if !cur.IsZero() {
			m.ToVersion, m.ToCommit = versionAt(st, name, cur), cur.String()
		}
		if _, err := s.store.AddLabelMove(ctx, m); err != nil {
			s.log.Error("recording a label move made outside the API", "prompt", name, "label", label, "err", err)
		}
	}
}

// recorded reports whether the history's newest move of prompt name's
// label ends at commit cur (zero: removed).
func (s *Server) recorded(ctx context.Context, name, label string, cur plumbing.Hash) bool {
	moves, err := s.store.LabelMoves(ctx, name, 100)
	if err != nil {
		s.log.Error("reading the label history", "prompt", name, "err", err)
		return true // unknown: record nothing
	}
	for _, m := range moves {
		if m.Label != label {
			continue
		}
		if cur.IsZero() {
			return m.ToVersion == 0 && m.ToCommit == ""
		}
		return m.ToCommit == cur.String()
	}
	return false
}

// versionAt returns prompt name's version at commit c in st: the newest
// at or before it on the default branch, the version with the same text
// off it (unknown here: 0).
func versionAt(st *registry.State, name string, c plumbing.Hash) int {
	if i, ok := st.IndexOf(c); ok {
		if v, ok := st.VersionAt(name, i); ok {
			return v.Number
		}
	}
	return 0
}
