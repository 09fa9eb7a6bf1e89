package auditdb

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tessera-dev/tessera/audit"
)

// MaxList is the most records one List returns.
const MaxList = 1000

// Filter selects the records List returns; every field that is set must
// match.
type Filter struct {
	// ID, Hash, Preset, Label, WorkflowID and NodeID match the record's
	// correlation id, prompt hash, preset, label, workflow and node
	// exactly.
	ID, Hash, Preset, Label, WorkflowID, NodeID string
	// Since and Until bound the assembly time: Since <= time < Until.
	// They are compared with the record's timestamp as written, which
	// is UTC for every record Tessera writes (audit.Timestamp).
	Since, Until time.Time
	// Before pages back: only records on lines before it. 0 starts from
	// the newest.
	Before int64
	// Limit is the most records returned: 50 when 0, at most MaxList.
	Limit int
}

// List returns the records f selects, newest first (by line), for an
// inspector that searches and pages through them: the next page is
// Filter.Before set to the last entry's Line.
func (db *DB) List(ctx context.Context, f Filter) ([]audit.Entry, error) {
	limit := f.Limit
	switch {
	case limit == 0:
		limit = 50
	case limit < 0 || limit > MaxList:
		return nil, fmt.Errorf("audit database: list: limit %d is not between 1 and %d", limit, MaxList)
	}
	var where []string
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		if db.dialect == postgresDB {
			cond = strings.Replace(cond, "?", fmt.Sprintf("$%d", len(args)), 1)
		}
		where = append(where, cond)
	}
	for _, c := range []struct{ col, v string }{
		{"correlation_id", f.ID}, {"prompt_hash", f.Hash}, {"preset", f.Preset}, {"label", f.Label}, {"workflow_id", f.WorkflowID}, {"node_id", f.NodeID},
	} {
		if c.v != "" {
			add(c.col+" = ?", c.v)
		}
	}
	if !f.Since.IsZero() {
		add("assembled_at >= ?", audit.Timestamp(f.Since))
	}
	if !f.Until.IsZero() {
		add("assembled_at < ?", audit.Timestamp(f.Until))
	}
	if f.Before > 0 {
		add("line_no < ?", f.Before)
	}
	q := "SELECT line_no, line FROM audit_records"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	args = append(args, limit)
	if db.dialect == postgresDB {
		q += fmt.Sprintf(" ORDER BY line_no DESC LIMIT $%d", len(args))
	} else {
		q += " ORDER BY line_no DESC LIMIT ?"
	}
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("audit database %s: list: %w", db.name, err)
	}
	defer rows.Close()
	var out []audit.Entry
	for rows.Next() {
		var no int64
		var line []byte
		if err := rows.Scan(&no, &line); err != nil {
			return nil, fmt.Errorf("audit database %s: list: %w", db.name, err)
		}
		r, err := audit.ParseRecord(line)
		if err != nil {
			return nil, fmt.Errorf("audit database %s: line %d: %w", db.name, no, err)
		}
		out = append(out, audit.Entry{Line: int(no), Record: r})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit database %s: list: %w", db.name, err)
	}
	return out, nil
}
