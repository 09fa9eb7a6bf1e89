package audit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Log is an audit log: a JSON Lines file of records. The zero value is not
// usable; set Path.
type Log struct {
	// Path is the log file. Append creates it and its directory if needed.
	Path string
	// Sync makes Append flush each record to stable storage before it
	// returns; slower, and what an audit trail that must survive a power
	// cut needs.
	Sync bool
}

// Append writes r as one line at the end of the log. The line is written
// with a single write while holding an exclusive lock on the file, so
// concurrent appends from several processes never interleave. If the file
// does not end in a newline (a writer died mid-line), Append starts a new
// line first, so a torn line never swallows the next record.
func (l *Log) Append(ctx context.Context, r *Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	line, err := r.Marshal()
	if err != nil {
		return err
	}
	if dir := filepath.Dir(l.Path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("audit log %s: %w", l.Path, err)
		}
	}
	f, err := os.OpenFile(l.Path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		return fmt.Errorf("audit log %s: lock: %w", l.Path, err)
	}
	defer unlockFile(f)
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	if st.Size() > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], st.Size()-1); err != nil {
			return fmt.Errorf("audit log %s: %w", l.Path, err)
		}
		if last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("audit log %s: append: %w", l.Path, err)
	}
	if l.Sync {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("audit log %s: sync: %w", l.Path, err)
		}
	}
	return nil
}

// Entry is a record and the log line it is on.
type Entry struct {
	Line   int
	Record *Record
}

// BadLine is a log line that is not a record: a torn write or an edit.
type BadLine struct {
	Line int
	Err  error
}

// Find returns every record whose correlation id is id, in log order. A
// correlation id may be shared by several assemblies of one run. It also
// returns the lines it could not read, which a caller may report.
func (l *Log) Find(ctx context.Context, id string) ([]Entry, []BadLine, error) {
	var (
		found []Entry
		bad   []BadLine
	)
	err := l.Scan(ctx, func(e Entry, err error) error {
		if err != nil {
			bad = append(bad, BadLine{Line: e.Line, Err: err})
		} else if e.Record.CorrelationID == id {
			found = append(found, e)
		}
		return nil
	})
	return found, bad, err
}

// Scan calls fn for each line of the log in order, with the parsed record
// or the reason the line is not one. Blank lines are skipped. Scan stops
// at the first error fn returns and returns it.
func (l *Log) Scan(ctx context.Context, fn func(Entry, error) error) error {
	f, err := os.Open(l.Path)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, rerr := br.ReadBytes('\n')
		if len(line) > 0 && len(trimEOL(line)) > 0 {
			r, perr := ParseRecord(line)
			if err := fn(Entry{Line: n, Record: r}, perr); err != nil {
				return err
			}
		}
		if errors.Is(rerr, io.EOF) {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("audit log %s: %w", l.Path, rerr)
		}
	}
}

func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}
