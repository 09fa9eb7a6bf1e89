package audit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	// NoIndex turns the log's index off: Append does not keep it and
	// lookups read the whole log. An index already beside the log is
	// left as it is; lookups with the index on check it before they use
	// it.
	NoIndex bool
	// Key, when set, is the HMAC-SHA256 key of the log: Append signs
	// every record with it, and VerifyChain and Replay check the
	// signatures, a chained record without one breaking the chain. See
	// CheckKey for what a key must be.
	Key []byte
	// Warn, if set, is told of problems with the index that do not stop
	// an append or a lookup: an index that cannot be written (a
	// read-only directory, a full disk), after which lookups read more
	// of the log than they need to. The record is logged and the answer
	// is right either way.
	Warn func(error)

	// file, if set, stands in for the open log file in Append, so that
	// tests can make writes fail; index does the same for the index and
	// its temporary files.
	file  func(*os.File) logFile
	index func(*os.File) logFile
}

// logFile is what Append does with the open log file, under its lock.
type logFile interface {
	io.Writer
	io.ReaderAt
	Stat() (os.FileInfo, error)
	Truncate(size int64) error
	Sync() error
}

// Append writes r as one line at the end of the log. The line is written
// with a single write while holding an exclusive lock on the file, so
// concurrent appends from several processes never interleave. If the file
// does not end in a newline (a writer died mid-line), Append starts a new
// line first, so a torn line never swallows the next record.
//
// An append that fails leaves the log as it was: if the write fails or is
// short (a full disk), or, with Sync, if the record cannot be flushed,
// Append cuts the file back to the length it had before, so that an error
// always means the record is not in the log and a retry cannot write it
// twice. The error names the log and says it is unchanged. Only if the
// cut itself fails does the log keep the partial record, as a torn line
// that readers report as a bad line and the next append starts after;
// the error then says so. Append cuts only if nothing was added after its
// own bytes, so that on a system without flock, where another process may
// append at the same time, it never cuts another writer's record.
//
// The line carries, as its last members, the hash of the line before it
// (prev_hash) and, when the log has a Key, its signature (sig); see
// VerifyChain. Both are computed under the lock, so the chain holds
// whatever other processes append. When the append succeeds, r's PrevHash
// and Sig are set to what the line holds, so that r marshals to the line
// as written.
//
// After the record is written, and under the same lock, Append adds it to
// the log's index (see Find). Nothing that goes wrong with the index
// fails the append; Warn is told, and the next lookup mends the index.
func (l *Log) Append(ctx context.Context, r *Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.Key != nil {
		if err := CheckKey(l.Key); err != nil {
			return fmt.Errorf("audit log %s: %w", l.Path, err)
		}
	}
	line, err := sealable(r)
	if err != nil {
		return err
	}
	if dir := filepath.Dir(l.Path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("audit log %s: %w", l.Path, err)
		}
	}
	f, err := openLog(l.Path, os.O_RDWR|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		return fmt.Errorf("audit log %s: lock: %w", l.Path, err)
	}
	defer unlockFile(f)
	var lf logFile = f
	if l.file != nil {
		lf = l.file(f)
	}
	off, line, err := l.write(lf, line)
	if err != nil {
		return err
	}
	if link := parseLink(line[:len(line)-1]); link.chained {
		r.PrevHash, r.Sig = link.prev, ""
		if link.sig != nil {
			r.Sig = SigPrefix + string(link.sig)
		}
	}
	l.indexAppend(lf, off, line, r)
	return nil
}

// write chains line, a record from sealable, to the last line of f,
// which the caller holds locked, signs it with the log's key, and appends
// it; on failure it cuts f back to its length before. It returns the
// offset the line starts at and the line as written.
func (l *Log) write(f logFile, line []byte) (int64, []byte, error) {
	off, line, err := l.writeSealed(f, line)
	if err != nil {
		return 0, nil, err
	}
	if line[0] == '\n' {
		line = line[1:]
	}
	return off, line, nil
}

func (l *Log) writeSealed(f logFile, line []byte) (int64, []byte, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, nil, fmt.Errorf("audit log %s: %w", l.Path, err)
	}
	size := st.Size()
	prev, err := lastLineHash(f, size)
	if err != nil {
		return 0, nil, fmt.Errorf("audit log %s: read its last line to chain the record to: %w", l.Path, cause(err))
	}
	line = seal(line, prev, l.Key)
	off := size
	if size > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], size-1); err != nil {
			return 0, nil, fmt.Errorf("audit log %s: %w", l.Path, err)
		}
		if last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
			off++
		}
	}
	n, err := f.Write(line)
	if err == nil && n < len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		if uerr := undo(f, size, int64(n)); uerr != nil {
			return 0, nil, fmt.Errorf("audit log %s: append failed part-way and the partial record could not be taken out (%v): "+
				"the log ends in a torn line, which readers report as a bad line and the next append starts after: %w", l.Path, uerr, cause(err))
		}
		return 0, nil, fmt.Errorf("audit log %s: append failed, the log is unchanged: %w — free space on its disk or fix the cause, then retry", l.Path, cause(err))
	}
	if l.Sync {
		if err := f.Sync(); err != nil {
			if uerr := undo(f, size, int64(n)); uerr != nil {
				return 0, nil, fmt.Errorf("audit log %s: sync failed and the record could not be taken out (%v): "+
					"it is in the log but may not be on disk: %w", l.Path, uerr, cause(err))
			}
			return 0, nil, fmt.Errorf("audit log %s: sync failed, the record was taken out and the log is unchanged: %w — check its disk, then retry", l.Path, cause(err))
		}
	}
	return off, line, nil
}

// undo cuts f back to size, after an append that wrote n bytes at its end
// failed. It cuts only if f is size+n bytes long: longer, another writer
// appended after those bytes, which only a platform without a file lock
// allows, and cutting would take its record too.
func undo(f logFile, size, n int64) error {
	if n == 0 {
		return nil
	}
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat: %w", err)
	}
	if st.Size() != size+n {
		return fmt.Errorf("the file is %d bytes, not the %d written up to the failure: another writer appended after it", st.Size(), size+n)
	}
	if err := f.Truncate(size); err != nil {
		return fmt.Errorf("truncate: %w", cause(err))
	}
	return nil
}

// cause returns the reason in an error from a file operation, without the
// operation and path that the error from Append already gives.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
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
// returns the lines that are not records, which a caller may report.
//
// Find looks id up in the log's index (Path + IndexSuffix), which Append
// keeps, and reads only the lines the index points at, plus any after
// what it covers. The index is never trusted over the log: each line it
// gives is read and must be the line indexed, parse, and hold id. When
// the index is missing, damaged, or does not match the log (which was
// edited, cut short or replaced), or has no record with id, Find reads
// the whole log, as it did before there was an index, and writes the
// index again from it unless the index proved right.
func (l *Log) Find(ctx context.Context, id string) ([]Entry, []BadLine, error) {
	return l.findEntries(ctx, kindID, id)
}

// FindHash returns every record whose prompt hash (assembled_prompt_hash)
// is hash, in log order, and the lines that are not records, as Find does
// for a correlation id.
func (l *Log) FindHash(ctx context.Context, hash string) ([]Entry, []BadLine, error) {
	return l.findEntries(ctx, kindHash, hash)
}

// findEntries returns the records a lookup finds, each read.
func (l *Log) findEntries(ctx context.Context, kind byte, value string) ([]Entry, []BadLine, error) {
	var found []Entry
	bad, err := l.each(ctx, kind, value, func(e Entry) error {
		found = append(found, e)
		return nil
	})
	return found, bad, err
}

// each calls fn with each record a lookup finds, in log order, reading
// one record at a time, and returns the lines that are not records. It
// returns fn's first error.
func (l *Log) each(ctx context.Context, kind byte, value string, fn func(Entry) error) ([]BadLine, error) {
	hits, bad, _, err := l.find(ctx, kind, value)
	if err != nil || len(hits) == 0 {
		return bad, err
	}
	f, err := openLog(l.Path, os.O_RDONLY)
	if err != nil {
		return bad, fmt.Errorf("audit log: %w", err)
	}
	defer f.Close()
	var buf []byte
	for _, h := range hits {
		if err := ctx.Err(); err != nil {
			return bad, err
		}
		e, err := h.load(f, &buf)
		if err != nil {
			return bad, fmt.Errorf("audit log %s: %w", l.Path, err)
		}
		if err := fn(e); err != nil {
			return bad, err
		}
	}
	return bad, nil
}

// Scan calls fn for each line of the log in order, with the parsed record
// or the reason the line is not one. Blank lines are skipped. Scan stops
// at the first error fn returns and returns it.
func (l *Log) Scan(ctx context.Context, fn func(Entry, error) error) error {
	f, err := openLog(l.Path, os.O_RDONLY)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	defer f.Close()
	return scanLines(ctx, f, 0, 0, l.Path, func(li lineInfo) error {
		if len(trimEOL(li.text)) == 0 {
			return nil
		}
		r, perr := ParseRecord(li.text)
		return fn(Entry{Line: int(li.no), Record: r}, perr)
	})
}

func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}
