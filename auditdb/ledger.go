package auditdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// LabelRef is the value of a prompt's label ref when it was last
// recorded in the label history.
type LabelRef struct {
	// Ref is the ref's full name.
	Ref string
	// Commit is the commit it pointed at, "" when it was removed.
	Commit string
	// Seq counts the row's changes, from 1; 0 is a ref never recorded.
	Seq int64
}

// PendingMove is a label move that a server is about to make: written
// before the ref moves, and turned into a LabelMove when a server sees
// the ref where the move takes it.
type PendingMove struct {
	// ID numbers pending moves, from 1.
	ID int64
	// Ref is the label's ref, Old and New its value before and after the
	// move ("" for none).
	Ref, Old, New string
	// Move is the move as the history will keep it.
	Move LabelMove
}

// LabelRefs returns every label ref recorded, by name.
func (db *DB) LabelRefs(ctx context.Context) (map[string]LabelRef, error) {
	rows, err := db.sql.QueryContext(ctx, db.q.labelRefs)
	if err != nil {
		return nil, fmt.Errorf("audit database %s: label refs: %w", db.name, err)
	}
	defer rows.Close()
	out := map[string]LabelRef{}
	for rows.Next() {
		var r LabelRef
		if err := rows.Scan(&r.Ref, &r.Commit, &r.Seq); err != nil {
			return nil, fmt.Errorf("audit database %s: label refs: %w", db.name, err)
		}
		out[r.Ref] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit database %s: label refs: %w", db.name, err)
	}
	return out, nil
}

// AddPendingMoves keeps ms, in one transaction, and returns them with
// their IDs, and each move's At set to now when it was zero.
func (db *DB) AddPendingMoves(ctx context.Context, ms []PendingMove) (out []PendingMove, err error) {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("audit database %s: keep pending label moves: %w", db.name, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	for _, p := range ms {
		m := p.Move
		if p.Ref == "" || m.Prompt == "" || m.Label == "" {
			return nil, fmt.Errorf("audit database %s: a pending label move needs its ref (%q), prompt (%q) and label (%q)", db.name, p.Ref, m.Prompt, m.Label)
		}
		if m.At.IsZero() {
			m.At = time.Now()
		}
		p.Move.At = time.UnixMicro(m.At.UnixMicro()).UTC()
		if err := tx.QueryRowContext(ctx, db.q.addPending, p.Ref, p.Old, p.New, m.Prompt, m.Label, m.FromVersion, m.ToVersion, m.FromCommit, m.ToCommit, m.Actor, m.Reason, p.Move.At.UnixMicro()).Scan(&p.ID); err != nil {
			return nil, fmt.Errorf("audit database %s: keep the pending move of %s: %w", db.name, p.Ref, err)
		}
		out = append(out, p)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("audit database %s: keep pending label moves: %w", db.name, err)
	}
	return out, nil
}

// PendingMoves returns the pending moves, oldest first.
func (db *DB) PendingMoves(ctx context.Context) ([]PendingMove, error) {
	rows, err := db.sql.QueryContext(ctx, db.q.pending)
	if err != nil {
		return nil, fmt.Errorf("audit database %s: pending label moves: %w", db.name, err)
	}
	defer rows.Close()
	var out []PendingMove
	for rows.Next() {
		var p PendingMove
		m := &p.Move
		var at int64
		if err := rows.Scan(&p.ID, &p.Ref, &p.Old, &p.New, &m.Prompt, &m.Label, &m.FromVersion, &m.ToVersion, &m.FromCommit, &m.ToCommit, &m.Actor, &m.Reason, &at); err != nil {
			return nil, fmt.Errorf("audit database %s: pending label moves: %w", db.name, err)
		}
		m.At = time.UnixMicro(at).UTC()
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit database %s: pending label moves: %w", db.name, err)
	}
	return out, nil
}

// DropPendingMoves deletes the pending moves with the given IDs: moves
// that were not made. An ID no longer pending is passed over.
func (db *DB) DropPendingMoves(ctx context.Context, ids ...int64) error {
	for _, id := range ids {
		if _, err := db.sql.ExecContext(ctx, db.q.dropPending, id); err != nil {
			return fmt.Errorf("audit database %s: drop pending label move %d: %w", db.name, id, err)
		}
	}
	return nil
}

// AdvanceLabelRef records that ref, last recorded with seq (0: never),
// now points at commit ("" : removed), in one transaction: it keeps
// moves in the label history, deletes the pending moves done names, and
// sets the ref's row to commit with seq+1. It does all of that only if
// the row still has seq, and reports whether it did: of the servers that
// advance a ref from one seq, one does, so each move is recorded once.
func (db *DB) AdvanceLabelRef(ctx context.Context, ref string, seq int64, commit string, moves []LabelMove, done []int64) (ok bool, err error) {
	fail := func(err error) (bool, error) {
		return false, fmt.Errorf("audit database %s: record label ref %s: %w", db.name, ref, err)
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fail(err)
	}
	defer func() {
		if !ok || err != nil {
			tx.Rollback()
		}
	}()
	var res sql.Result
	if seq == 0 {
		res, err = tx.ExecContext(ctx, db.q.insertRef, ref, commit)
	} else {
		res, err = tx.ExecContext(ctx, db.q.updateRef, commit, ref, seq)
	}
	if err != nil {
		return fail(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fail(err)
	} else if n != 1 {
		return false, nil // another server recorded it first
	}
	for _, m := range moves {
		if m.Prompt == "" || m.Label == "" {
			return fail(errors.New("a label move needs its prompt and label"))
		}
		if m.At.IsZero() {
			m.At = time.Now()
		}
		var id int64
		if err := tx.QueryRowContext(ctx, db.q.addMove, m.Prompt, m.Label, m.FromVersion, m.ToVersion, m.FromCommit, m.ToCommit, m.Actor, m.Reason, m.At.UnixMicro()).Scan(&id); err != nil {
			return fail(err)
		}
	}
	for _, id := range done {
		if _, err := tx.ExecContext(ctx, db.q.dropPending, id); err != nil {
			return fail(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return true, nil
}
