package auditdb

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/tessera-dev/tessera/audit"
)

// page is how many lines a read takes at a time: a scan holds no
// transaction open while its callback runs.
const page = 256

// Record returns the first record whose correlation id is id, or an
// error wrapping ErrNotFound.
func (db *DB) Record(ctx context.Context, id string) (*audit.Record, error) {
	var line []byte
	err := db.sql.QueryRowContext(ctx, db.q.recordByID, id).Scan(&line)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("audit database %s: correlation id %s: %w", db.name, strconv.Quote(id), ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("audit database %s: %w", db.name, err)
	}
	r, err := audit.ParseRecord(line)
	if err != nil {
		return nil, fmt.Errorf("audit database %s: correlation id %s: %w", db.name, strconv.Quote(id), err)
	}
	return r, nil
}

// Each calls fn with each record q selects, in order (see audit.Store).
// Entry.Line is the record's line in an export.
func (db *DB) Each(ctx context.Context, q audit.Query, fn func(audit.Entry) error) error {
	if q.ID != "" && q.Hash != "" {
		return errors.New("a query selects by correlation id or by prompt hash, not both")
	}
	return db.scan(ctx, q, func(no int64, line []byte) error {
		r, err := audit.ParseRecord(line)
		if err != nil {
			return fmt.Errorf("audit database %s: line %d: %w", db.name, no, err)
		}
		return fn(audit.Entry{Line: int(no), Record: r})
	})
}

// Lines calls fn with every line in order (see audit.Store).
func (db *DB) Lines(ctx context.Context, fn func(line []byte) error) error {
	return db.scan(ctx, audit.Query{}, func(_ int64, line []byte) error { return fn(line) })
}

// scan reads the lines q selects a page at a time and calls fn for each.
func (db *DB) scan(ctx context.Context, q audit.Query, fn func(no int64, line []byte) error) error {
	var after int64
	for {
		var rows *sql.Rows
		var err error
		switch {
		case q.ID != "":
			rows, err = db.sql.QueryContext(ctx, db.q.byID, q.ID, after, page)
		case q.Hash != "":
			rows, err = db.sql.QueryContext(ctx, db.q.byHash, q.Hash, after, page)
		default:
			rows, err = db.sql.QueryContext(ctx, db.q.linesFrom, after, page)
		}
		if err != nil {
			return fmt.Errorf("audit database %s: %w", db.name, err)
		}
		type got struct {
			no   int64
			line []byte
		}
		var lines []got
		for rows.Next() {
			var g got
			if err := rows.Scan(&g.no, &g.line); err != nil {
				rows.Close()
				return fmt.Errorf("audit database %s: %w", db.name, err)
			}
			lines = append(lines, g)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return fmt.Errorf("audit database %s: %w", db.name, err)
		}
		for _, g := range lines {
			if err := fn(g.no, g.line); err != nil {
				return err
			}
		}
		if len(lines) < page {
			return nil
		}
		after = lines[len(lines)-1].no
	}
}

// Count returns the number of records.
func (db *DB) Count(ctx context.Context) (int64, error) {
	var n int64
	if err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_records`).Scan(&n); err != nil {
		return 0, fmt.Errorf("audit database %s: %w", db.name, err)
	}
	return n, nil
}

// VerifyChain checks the chain of every record, with signatures when key
// is not nil (see audit.Log.VerifyChain).
func (db *DB) VerifyChain(ctx context.Context, key []byte) (*audit.ChainReport, error) {
	return audit.VerifyStoreChain(ctx, db, db.name, key)
}

// Export writes every record to w as a JSON Lines log: each line as it
// was appended or imported, byte for byte, with a final newline. It
// returns the number of records written.
func (db *DB) Export(ctx context.Context, w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	var n int64
	err := db.Lines(ctx, func(line []byte) error {
		n++
		if _, err := bw.Write(line); err != nil {
			return err
		}
		return bw.WriteByte('\n')
	})
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}

// importLine is one line of a log to import, checked.
type importLine struct {
	no   int // its line in the file
	line []byte
	rec  *audit.Record
}

// Import adds the records of the JSON Lines log data, named name in
// errors, after the database's records, in one transaction, each line
// kept byte for byte. Every non-empty line must be a valid record
// (audit.Record.Validate) and the log's chain must hold (audit.Log's
// VerifyChain, signatures counted but not checked); otherwise nothing is
// imported and the error names the line. A log whose records are chained
// must continue the database's chain: into a database that is not empty
// only a log that follows its last line can be imported. Import returns
// the number of records imported.
func (db *DB) Import(ctx context.Context, name string, data []byte) (int, error) {
	lines, err := parseLog(ctx, name, data)
	if err != nil {
		return 0, err
	}
	if len(lines) == 0 {
		return 0, nil
	}
	if err := db.send(ctx, &writeReq{lines: lines}); err != nil {
		return 0, fmt.Errorf("import %s: %w", name, err)
	}
	return len(lines), nil
}

// parseLog reads and checks a JSON Lines log for Import: every non-empty
// line must be a valid record, and its chain must hold. Errors name the
// file (name) and line.
func parseLog(ctx context.Context, name string, data []byte) ([]importLine, error) {
	var lines []importLine
	no := 0
	for rest := data; len(rest) > 0; {
		no++
		line, after, _ := bytes.Cut(rest, []byte{'\n'})
		rest = after
		if len(line) == 0 {
			continue
		}
		r, err := audit.ParseRecord(line)
		if err == nil {
			err = r.Validate()
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w: fix or remove the line, then import again", name, no, err)
		}
		// Keep what the indexed columns need, not the prompt a second
		// time: the line holds it.
		slim := &audit.Record{CorrelationID: r.CorrelationID, AssembledPromptHash: r.AssembledPromptHash, AssemblyTimestamp: r.AssemblyTimestamp,
			Preset: r.Preset, Name: r.Name, Label: r.Label, PrevHash: r.PrevHash}
		lines = append(lines, importLine{no: no, line: line, rec: slim})
	}
	rep, err := audit.VerifyLines(ctx, bytes.NewReader(data), name, nil)
	if err != nil {
		return nil, err
	}
	if b := rep.Break; b != nil {
		return nil, fmt.Errorf("%s:%d: the chain breaks: %v: the log was changed; see tessera log verify", name, b.Line, b.Err)
	}
	return lines, nil
}
