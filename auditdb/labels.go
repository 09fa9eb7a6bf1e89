package auditdb

import (
	"context"
	"fmt"
	"math"
	"time"
)

// LabelMove is one move of a label from one version of a prompt to
// another: who moved it, why and when.
type LabelMove struct {
	// ID numbers moves in the order they were kept, from 1.
	ID     int64
	Prompt string
	Label  string
	// FromVersion and FromCommit are where the label was, 0 and "" when
	// it is new; ToVersion and ToCommit where it went, 0 and "" when it
	// was removed.
	FromVersion, ToVersion int
	FromCommit, ToCommit   string
	// Actor is the public key (or name) that moved it; Reason says why.
	Actor, Reason string
	// At is when, to the microsecond, in UTC.
	At time.Time
}

// AddLabelMove keeps m and returns it with its ID, and At set to now when
// it was zero.
func (db *DB) AddLabelMove(ctx context.Context, m LabelMove) (LabelMove, error) {
	if m.Prompt == "" || m.Label == "" {
		return m, fmt.Errorf("label move: the prompt (%q) and the label (%q) must be named", m.Prompt, m.Label)
	}
	if m.At.IsZero() {
		m.At = time.Now()
	}
	m.At = time.UnixMicro(m.At.UnixMicro()).UTC()
	err := db.sql.QueryRowContext(ctx, db.q.addMove, m.Prompt, m.Label, m.FromVersion, m.ToVersion, m.FromCommit, m.ToCommit, m.Actor, m.Reason, m.At.UnixMicro()).Scan(&m.ID)
	if err != nil {
		return m, fmt.Errorf("audit database %s: keep the move of label %s of %s: %w", db.name, m.Label, m.Prompt, err)
	}
	return m, nil
}

// LabelMoves returns the moves of prompt's labels, or of every prompt's
// when prompt is "", newest first; at most limit of them, or all when
// limit is 0 or less.
func (db *DB) LabelMoves(ctx context.Context, prompt string, limit int) ([]LabelMove, error) {
	n := int64(limit)
	if limit <= 0 {
		n = math.MaxInt64
	}
	q, args := db.q.moves, []any{n}
	if prompt != "" {
		q, args = db.q.movesOf, []any{prompt, n}
	}
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("audit database %s: label moves: %w", db.name, err)
	}
	defer rows.Close()
	var out []LabelMove
	for rows.Next() {
		var m LabelMove
		var at int64
		if err := rows.Scan(&m.ID, &m.Prompt, &m.Label, &m.FromVersion, &m.ToVersion, &m.FromCommit, &m.ToCommit, &m.Actor, &m.Reason, &at); err != nil {
			return nil, fmt.Errorf("audit database %s: label moves: %w", db.name, err)
		}
		m.At = time.UnixMicro(at).UTC()
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit database %s: label moves: %w", db.name, err)
	}
	return out, nil
}
