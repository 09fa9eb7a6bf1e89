package auditdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tessera-dev/tessera/audit"
)

// maxBatch caps the records one group commit takes from waiting callers;
// a caller's records are never split between commits.
const maxBatch = 4096

// chainLock is the PostgreSQL advisory lock writers hold while they add
// lines, so the chain and the line numbers stay one sequence.
const chainLock int64 = 0x7465737365726131 // "tessera1"

// writeReq is one caller's records, or the checked lines of an import,
// waiting for the writer.
type writeReq struct {
	recs  []*audit.Record
	lines []importLine
	done  chan error
}

// row is one line ready to insert.
type row struct {
	no   int64
	rec  *audit.Record
	hash string
	line []byte
}

// Append adds recs to the database, in order, each chained to the line
// before it as audit.Log.Append chains it, and sets each record's
// PrevHash. When Append returns nil the records are committed. Callers
// appending at the same time share one transaction (group commit); a
// caller's records are committed together or not at all. A record must
// have a correlation id (see audit.CheckCorrelationID).
//
// If ctx ends while the records wait for their commit, Append returns its
// error at once, and the records may still be committed.
func (db *DB) Append(ctx context.Context, recs ...*audit.Record) error {
	for i, r := range recs {
		if r == nil {
			return fmt.Errorf("audit database %s: record %d of %d is nil", db.name, i+1, len(recs))
		}
		if err := audit.CheckCorrelationID(r.CorrelationID); err != nil {
			return fmt.Errorf("audit database %s: record %d of %d: %w", db.name, i+1, len(recs), err)
		}
	}
	if len(recs) == 0 {
		return ctx.Err()
	}
	return db.send(ctx, &writeReq{recs: recs})
}

// Add is Append, for audit.Store.
func (db *DB) Add(ctx context.Context, recs ...*audit.Record) error { return db.Append(ctx, recs...) }

// send hands req to the writer and waits for its commit.
func (db *DB) send(ctx context.Context, req *writeReq) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	req.done = make(chan error, 1)
	select {
	case db.reqs <- req:
	case <-ctx.Done():
		return ctx.Err()
	case <-db.quit:
		return ErrClosed
	}
	select {
	case err := <-req.done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("audit database %s: %w while the records waited for their commit: they may yet be committed", db.name, ctx.Err())
	}
}

// gatherWait is how long the writer waits for callers to come back
// after a commit that served several: they were all waiting on that
// commit, and each is likely to send its next records at once.
const gatherWait = 500 * time.Microsecond

// writer commits what callers send, taking every request waiting when
// it starts a transaction into that transaction. After a commit that
// served n callers, it waits up to gatherWait for n requests before it
// commits again, so that callers that take turns share commits instead
// of each paying for one.
func (db *DB) writer() {
	defer db.wg.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	last := 0 // the requests of the previous commit
	for {
		var first *writeReq
		select {
		case first = <-db.reqs:
		case <-db.quit:
			return
		}
		batch := []*writeReq{first}
		n := len(first.recs) + len(first.lines)
		var deadline <-chan time.Time
		if last > 1 {
			timer.Reset(gatherWait)
			deadline = timer.C
		}
	take:
		for n < maxBatch {
			if len(batch) >= last {
				deadline = nil
			}
			if deadline == nil {
				select {
				case r := <-db.reqs:
					batch = append(batch, r)
					n += len(r.recs) + len(r.lines)
				default:
					break take
				}
				continue
			}
			select {
			case r := <-db.reqs:
				batch = append(batch, r)
				n += len(r.recs) + len(r.lines)
			case <-deadline:
				deadline = nil
			}
		}
		timer.Stop()
		last = len(batch)
		errs := db.commit(context.Background(), batch)
		for i, r := range batch {
			r.done <- errs[i]
		}
	}
}

// commit writes the batch in one transaction and returns each request's
// error.
func (db *DB) commit(ctx context.Context, batch []*writeReq) []error {
	errs := make([]error, len(batch))
	fail := func(err error) []error {
		err = fmt.Errorf("audit database %s: the records were not written: %w", db.name, err)
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
		return errs
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	if db.dialect == postgresDB {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, chainLock); err != nil {
			return fail(err)
		}
	}
	no, prev, err := head(ctx, tx, db.q.head)
	if err != nil {
		return fail(err)
	}
	var rows []row
	key := db.signingKey()
	for i, req := range batch {
		var add []row
		add, errs[i] = prepare(req, no, prev, key)
		if errs[i] != nil {
			errs[i] = fmt.Errorf("audit database %s: %w", db.name, errs[i])
			continue
		}
		if len(add) > 0 {
			no, prev = add[len(add)-1].no, add[len(add)-1].hash
		}
		rows = append(rows, add...)
	}
	if len(rows) > 0 {
		if err := db.insert(ctx, tx, rows); err != nil {
			return fail(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return errs
}

// prepare makes the rows of one request, after line no whose hash is
// prev, its records signed with key when it is not nil.
func prepare(req *writeReq, no int64, prev string, key []byte) ([]row, error) {
	rows := make([]row, 0, len(req.recs)+len(req.lines))
	if req.lines != nil {
		if link := firstPrev(req.lines); link != "" && link != prev {
			return nil, fmt.Errorf("the log does not continue the database's chain: its first chained line (line %d) follows a line hashing to %s, and the database's last line hashes to %s: import it into an empty database, or import the log this one continues first", req.lines[0].no, link, prev)
		}
		if no > 0 && req.lines[0].rec.PrevHash == "" {
			return nil, errors.New("the log's first line is not chained (it was written before records were chained) and the database is not empty: import it into an empty database")
		}
		for _, l := range req.lines {
			no++
			h := audit.LineHash(l.line)
			rows = append(rows, row{no: no, rec: l.rec, hash: h, line: l.line})
		}
		return rows, nil
	}
	for i, r := range req.recs {
		line, err := audit.Seal(r, prev, key)
		if err != nil {
			return nil, fmt.Errorf("record %d of %d: %w", i+1, len(req.recs), err)
		}
		line = line[:len(line)-1]
		no++
		prev = audit.LineHash(line)
		rows = append(rows, row{no: no, rec: r, hash: prev, line: line})
	}
	return rows, nil
}

// firstPrev is the prev_hash of the first line of an import, "" when it
// has none.
func firstPrev(lines []importLine) string {
	if len(lines) == 0 {
		return ""
	}
	return lines[0].rec.PrevHash
}

// head returns the last line's number and hash, or 0 and GenesisHash.
func head(ctx context.Context, tx *sql.Tx, q string) (int64, string, error) {
	var no int64
	var h string
	err := tx.QueryRowContext(ctx, q).Scan(&no, &h)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, audit.GenesisHash, nil
	}
	return no, h, err
}

// insertChunk is the most rows one INSERT statement carries.
const insertChunk = 200

// insert adds rows with multi-row INSERT statements.
func (db *DB) insert(ctx context.Context, tx *sql.Tx, rows []row) error {
	const cols = 10
	prefix := db.q.insertRecord[:strings.Index(db.q.insertRecord, "VALUES")+len("VALUES ")]
	args := make([]any, 0, insertChunk*cols)
	var b strings.Builder
	for len(rows) > 0 {
		chunk := rows[:min(len(rows), insertChunk)]
		rows = rows[len(chunk):]
		b.Reset()
		b.WriteString(prefix)
		args = args[:0]
		for i, r := range chunk {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			for c := range cols {
				if c > 0 {
					b.WriteString(", ")
				}
				if db.dialect == postgresDB {
					fmt.Fprintf(&b, "$%d", i*cols+c+1)
				} else {
					b.WriteByte('?')
				}
			}
			b.WriteByte(')')
			rec := r.rec
			// A workflow node's prompt is named <workflow>/<node>; its
			// columns keep the two apart.
			wf, node, _ := strings.Cut(rec.Name, "/")
			args = append(args, r.no, rec.CorrelationID, rec.AssembledPromptHash, rec.AssemblyTimestamp, rec.Preset, rec.Label, wf, node, r.hash, r.line)
		}
		if _, err := tx.ExecContext(ctx, b.String(), args...); err != nil {
			return err
		}
	}
	return nil
}
