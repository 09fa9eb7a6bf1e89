package serve

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tessera-dev/tessera/serve/registry"
)

// LabelRef is the value of a prompt's label ref when it was last
// recorded in the label history.
type LabelRef struct {
	// Ref is the ref's full name.
	Ref string
	// Commit is the commit it pointed at, "" when it was removed.
	Commit string
	// Seq counts the ref's recorded changes, from 1; 0 is a ref never
	// recorded.
	Seq int64
}

// PendingMove is a label move that a server is about to make through
// the API: kept before the ref moves, so that a server that stops
// between the move and its record leaves a move the next server to read
// the ref records.
type PendingMove struct {
	// ID numbers pending moves, from 1.
	ID int64
	// Ref is the label's ref, Old and New its values before and after
	// the move ("" for none).
	Ref, Old, New string
	// Move is the move as the history will keep it.
	Move LabelMove
}

// LabelLedger is a Store that keeps the label history complete across
// crashes and servers: the value of each label ref when it was last
// recorded, which servers sharing the store advance by compare-and-swap
// in the transaction that records the moves, and the moves a server is
// about to make. MemStore is one, and so is the database store of
// tessera serve; for a Store that is not, the server keeps them in
// memory (lost when it stops).
type LabelLedger interface {
	// LabelRefs returns every label ref recorded, by name.
	LabelRefs(ctx context.Context) (map[string]LabelRef, error)
	// AddPendingMoves keeps the moves, at once, and returns them with
	// their IDs.
	AddPendingMoves(ctx context.Context, ms []PendingMove) ([]PendingMove, error)
	// PendingMoves returns the pending moves, oldest first.
	PendingMoves(ctx context.Context) ([]PendingMove, error)
	// DropPendingMoves deletes pending moves that were not made.
	DropPendingMoves(ctx context.Context, ids ...int64) error
	// AdvanceLabelRef records that ref, last recorded with seq (0:
	// never), now points at commit ("": removed): at once, it keeps moves
	// in the history, deletes the pending moves done names and sets the
	// ref's row, only if the row still has seq, and reports whether it
	// did.
	AdvanceLabelRef(ctx context.Context, ref string, seq int64, commit string, moves []LabelMove, done []int64) (bool, error)
}

// OutsideActor is who the history names for a label move that no server
// made through the API: one made with git (git update-ref), on the
// remote or in the repository.
const OutsideActor = "git"

// Reasons the history gives a move made outside the API: seen by a
// running server, or found when a server started (made while none ran).
const (
	outsideReason = "moved outside the API"
	startupReason = "moved outside the API; found at start-up"
)

// pendingTimeout is how long a pending move waits for its ref by
// default: longer than a move takes (a push times out after 30 s).
const pendingTimeout = 2 * time.Minute

// Steps of a label move at which Config.MoveHook is called.
const (
	// StepPending: the pending moves are kept, the refs not moved.
	StepPending = "pending"
	// StepMoved: the refs moved, the moves not yet recorded.
	StepMoved = "moved"
)

// labelOf splits a prompt's own label ref into the prompt and the label,
// when it is one of a prompt of st.
func labelOf(st *registry.State, ref string) (name, label string, ok bool) {
	rest, ok := strings.CutPrefix(ref, registry.PromptPrefix)
	if !ok {
		return "", "", false
	}
	k := strings.LastIndex(rest, "/labels/")
	if k < 0 {
		return "", "", false
	}
	name, label = rest[:k], rest[k+len("/labels/"):]
	if _, ok := st.Versions[name]; !ok || registry.CheckLabel(label) != nil {
		return "", "", false
	}
	return name, label, true
}

// hashString is h in hexadecimal, "" for the zero hash.
func hashString(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// labelDiffs returns the prompts' own label refs whose value in st is
// not the one recorded in rows, sorted.
func labelDiffs(st *registry.State, rows map[string]LabelRef) []string {
	names := map[string]bool{}
	for ref := range st.Refs {
		names[ref.String()] = true
	}
	for ref := range rows {
		names[ref] = true
	}
	var out []string
	for ref := range names {
		if _, _, ok := labelOf(st, ref); ok && hashString(st.Refs[plumbing.ReferenceName(ref)]) != rows[ref].Commit {
			out = append(out, ref)
		}
	}
	slices.Sort(out)
	return out
}

// reconcile records in the history what moved since the store last
// recorded each label ref: moves made with git (by OutsideActor; at
// start-up, those made while no server ran) and moves made through the
// API by a server that stopped before it recorded them (pending moves,
// recorded as their key made them). A pending move older than the
// timeout that this pass did not record was not made (or was recorded
// already, as a move with git), and is dropped. Of servers sharing the
// store, one records each move: each ref advances by compare-and-swap.
func (s *Server) reconcile(ctx context.Context, st *registry.State) {
	rows, err := s.ledger.LabelRefs(ctx)
	if err != nil {
		s.log.Error("reading the recorded label refs", "err", err)
		return
	}
	reason := outsideReason
	if !s.reconciled.Load() {
		reason = startupReason
	}
	if len(labelDiffs(st, rows)) > 0 {
		// Read the refs again, after the rows: a ref found where its row
		// does not have it moved after the row was written, and was not
		// read by a server that is behind.
		if fresh, err := s.reg.Refresh(ctx); err == nil {
			st = fresh
		} else {
			s.log.Error("reading the registry failed", "err", err)
			return
		}
	}
	pend, err := s.ledger.PendingMoves(ctx)
	if err != nil {
		s.log.Error("reading the pending label moves", "err", err)
		return
	}
	done := map[int64]bool{}
	for _, ref := range labelDiffs(st, rows) {
		cur := hashString(st.Refs[plumbing.ReferenceName(ref)])
		var p *PendingMove
		for i := len(pend) - 1; i >= 0; i-- {
			if pend[i].Ref == ref && pend[i].New == cur && !done[pend[i].ID] {
				p = &pend[i]
				break
			}
		}
		ok, err := s.advance(ctx, st, ref, rows[ref], cur, p, reason)
		if err != nil {
			s.log.Error("recording a label move", "ref", ref, "err", err)
			continue
		}
		if ok && p != nil {
			done[p.ID] = true
		}
	}
	s.reconciled.Store(true)
	timeout := s.cfg.PendingMoveTimeout
	if timeout == 0 {
		timeout = pendingTimeout
	}
	var drop []int64
	for _, p := range pend {
		if !done[p.ID] && time.Since(p.Move.At) >= timeout {
			s.log.Warn("dropping a label move that was never made", "ref", p.Ref, "actor", p.Move.Actor, "at", p.Move.At)
			drop = append(drop, p.ID)
		}
	}
	if len(drop) > 0 {
		if err := s.ledger.DropPendingMoves(ctx, drop...); err != nil {
			s.log.Error("dropping label moves never made", "err", err)
		}
	}
}

// advance records that ref, recorded as row, is at cur in st: the
// pending move p when it takes the ref there (after a move with git from
// where the row has it to where p started, when they differ), a move
// with git otherwise. A ref never recorded whose history already ends at
// cur (a store from before the ledger) is recorded without a move.
func (s *Server) advance(ctx context.Context, st *registry.State, ref string, row LabelRef, cur string, p *PendingMove, reason string) (bool, error) {
	name, label, _ := labelOf(st, ref)
	from := LabelMove{FromCommit: row.Commit, FromVersion: versionOf(st, name, row.Commit)}
	if row.Seq == 0 {
		from = LabelMove{}
		last, err := s.lastMove(ctx, name, label)
		if err != nil {
			return false, err
		}
		if last != nil {
			from.FromCommit, from.FromVersion = last.ToCommit, last.ToVersion
		}
	}
	outside := func(to string) LabelMove {
		return LabelMove{Prompt: name, Label: label, FromCommit: from.FromCommit, FromVersion: from.FromVersion,
			ToCommit: to, ToVersion: versionOf(st, name, to), Actor: OutsideActor, Reason: reason, At: time.Now().UTC()}
	}
	var moves []LabelMove
	var done []int64
	switch {
	case p != nil:
		if from.FromCommit != p.Old {
			moves = append(moves, outside(p.Old))
		}
		moves, done = append(moves, p.Move), []int64{p.ID}
	case row.Seq == 0 && from.FromCommit == cur:
		// recorded before the ledger: nothing moved
	default:
		moves = append(moves, outside(cur))
	}
	return s.ledger.AdvanceLabelRef(ctx, ref, row.Seq, cur, moves, done)
}

// lastMove returns the newest move of prompt name's label in the
// history, or nil.
func (s *Server) lastMove(ctx context.Context, name, label string) (*LabelMove, error) {
	moves, err := s.store.LabelMoves(ctx, name, 1000)
	if err != nil {
		return nil, err
	}
	for _, m := range moves {
		if m.Label == label {
			return &m, nil
		}
	}
	return nil, nil
}

// complete records the moves a PATCH made, each from where the store has
// its ref; a move whose ref the store has elsewhere (a move with git or
// through another server that no server recorded yet) is left to
// reconcile, which reads the refs afresh.
func (s *Server) complete(ctx context.Context, st *registry.State, pend []PendingMove) {
	rows, err := s.ledger.LabelRefs(ctx)
	if err != nil {
		s.log.Error("reading the recorded label refs", "err", err)
		return
	}
	left := false
	for i := range pend {
		p := &pend[i]
		row := rows[p.Ref]
		if row.Seq != 0 && row.Commit != p.Old {
			left = true
			continue
		}
		ok, err := s.advance(ctx, st, p.Ref, row, p.New, p, outsideReason)
		if err != nil {
			s.log.Error("recording a label move", "ref", p.Ref, "err", err)
		}
		if !ok {
			left = true // another server recorded the ref first: it may not have been this move
		}
	}
	if left {
		s.reconcile(ctx, st)
	}
}

// versionOf returns prompt name's version at commit c (hexadecimal; ""
// for none) in st: the newest at or before it on the default branch, or
// 0 off it.
func versionOf(st *registry.State, name, c string) int {
	if c == "" || !plumbing.IsHash(c) {
		return 0
	}
	if i, ok := st.IndexOf(plumbing.NewHash(c)); ok {
		if v, ok := st.VersionAt(name, i); ok {
			return v.Number
		}
	}
	return 0
}

// memLedger is a LabelLedger in memory, recording moves in a Store: the
// ledger of a MemStore, and of a Store that is not a LabelLedger.
type memLedger struct {
	mu      sync.Mutex
	store   Store
	refs    map[string]LabelRef
	pending []PendingMove
	next    int64
}

func newMemLedger(store Store) *memLedger {
	return &memLedger{store: store, refs: map[string]LabelRef{}}
}

// LabelRefs returns every label ref recorded.
func (l *memLedger) LabelRefs(ctx context.Context) (map[string]LabelRef, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.refs), nil
}

// AddPendingMoves keeps ms and returns them with their IDs.
func (l *memLedger) AddPendingMoves(ctx context.Context, ms []PendingMove) ([]PendingMove, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]PendingMove, len(ms))
	for i, p := range ms {
		l.next++
		p.ID = l.next
		if p.Move.At.IsZero() {
			p.Move.At = time.Now().UTC()
		}
		l.pending = append(l.pending, p)
		out[i] = p
	}
	return out, nil
}

// PendingMoves returns the pending moves, oldest first.
func (l *memLedger) PendingMoves(ctx context.Context) ([]PendingMove, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.pending), nil
}

// DropPendingMoves deletes the pending moves with the given IDs.
func (l *memLedger) DropPendingMoves(ctx context.Context, ids ...int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = slices.DeleteFunc(l.pending, func(p PendingMove) bool { return slices.Contains(ids, p.ID) })
	return nil
}

// AdvanceLabelRef records moves and sets ref's row, if it still has seq.
func (l *memLedger) AdvanceLabelRef(ctx context.Context, ref string, seq int64, commit string, moves []LabelMove, done []int64) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.refs[ref].Seq != seq {
		return false, nil
	}
	for _, m := range moves {
		if _, err := l.store.AddLabelMove(ctx, m); err != nil {
			return false, err
		}
	}
	l.refs[ref] = LabelRef{Ref: ref, Commit: commit, Seq: seq + 1}
	l.pending = slices.DeleteFunc(l.pending, func(p PendingMove) bool { return slices.Contains(done, p.ID) })
	return true, nil
}
