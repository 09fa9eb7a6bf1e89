package audit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// kindNone matches no record: a scan that only indexes.
const kindNone byte = 0xff

// matches reports whether r has value as its correlation id (kindID) or
// prompt hash (kindHash).
func matches(kind byte, value string, r *Record) bool {
	switch kind {
	case kindID:
		return r.CorrelationID == value
	case kindHash:
		return r.AssembledPromptHash == value
	}
	return false
}

// valueOf is what r is indexed under for kind.
func valueOf(kind byte, r *Record) string {
	if kind == kindHash {
		return r.AssembledPromptHash
	}
	return r.CorrelationID
}

// lineInfo is one line of the log as a scan reads it.
type lineInfo struct {
	off, no int64
	// text is the line with its '\n', if it has one; it is valid only
	// during the call it is passed to.
	text []byte
}

func (li lineInfo) complete() bool { return len(li.text) > 0 && li.text[len(li.text)-1] == '\n' }

// scanLines reads r, which holds the log from byte off on, after line no,
// and calls fn for each line, blank ones included; the last may lack its
// '\n'. Scan and the index split the log into lines with this one
// function, so they cannot disagree on what a line is or its number.
func scanLines(ctx context.Context, r io.Reader, off, no int64, name string, fn func(lineInfo) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	isLong := false
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		s, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long, isLong = append(long, s...), true
			continue
		}
		text := s
		if isLong {
			long = append(long, s...)
			text = long
		}
		if len(text) > 0 {
			no++
			if ferr := fn(lineInfo{off: off, no: no, text: text}); ferr != nil {
				return ferr
			}
			off += int64(len(text))
		}
		long, isLong = long[:0], false
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("audit log %s: %w", name, err)
		}
	}
}

// collected is what a scan gathers to index the lines it read.
type collected struct {
	ents []entry
	end  int64 // where the last line with entries ends
	last entry // that line's last entry
	no   int64 // the number of the last complete line read
	err  error // why the lines cannot be indexed, if they cannot
}

// add indexes a complete line: blank, a record r, or not a record (perr).
func (c *collected) add(li lineInfo, blank bool, r *Record, perr error) {
	if !li.complete() {
		return
	}
	c.no = li.no
	if blank || c.err != nil {
		return
	}
	n := len(c.ents)
	if c.ents, c.err = lineEntries(c.ents, li.off, li.no, li.text, r, perr != nil); c.err == nil && len(c.ents) > n {
		c.last = c.ents[len(c.ents)-1]
		c.end = c.last.end()
	}
}

// scanFind reads the log from r as scanLines does, and returns the
// records with value as their kind of key and the lines that are not
// records; with col, it also indexes every complete line it reads.
func scanFind(ctx context.Context, r io.Reader, off, no int64, name string, kind byte, value string, col *collected) (found []hit, bad []BadLine, err error) {
	if col != nil {
		col.no, col.end = no, off
	}
	err = scanLines(ctx, r, off, no, name, func(li lineInfo) error {
		blank := len(trimEOL(li.text)) == 0
		var (
			rec  *Record
			perr error
		)
		if !blank {
			rec, perr = ParseRecord(li.text)
			if perr != nil {
				bad = append(bad, BadLine{Line: int(li.no), Err: perr})
			} else if matches(kind, value, rec) {
				found = append(found, hitAt(li, rec))
			}
		}
		if col != nil {
			col.add(li, blank, rec, perr)
		}
		return nil
	})
	return found, bad, err
}

// A hit is a record a lookup found: where its line is, so that it is read
// again when it is wanted and a lookup of many large records holds none of
// them; or, for a last line with no line end (which a later append may
// yet complete), the record itself.
type hit struct {
	at  entry   // the line: offset, number, length and CRC
	rec *Record // the record, when the line is incomplete
}

// hitAt is the hit of the record r read from line li.
func hitAt(li lineInfo, r *Record) hit {
	if !li.complete() {
		return hit{at: entry{line: li.no}, rec: r}
	}
	return hit{at: entry{off: li.off, line: li.no, n: uint32(len(li.text)), crc: lineCRC(li.text)}}
}

// load reads the hit's record from log again, checking that its line is
// the one found; buf is reused between calls.
func (h hit) load(log io.ReaderAt, buf *[]byte) (Entry, error) {
	if h.rec != nil {
		return Entry{Line: int(h.at.line), Record: h.rec}, nil
	}
	text, err := readLine(log, h.at, buf)
	if err != nil {
		return Entry{}, fmt.Errorf("the log changed while it was read: %w", err)
	}
	r, err := ParseRecord(text)
	if err != nil {
		return Entry{}, fmt.Errorf("line %d: %w", h.at.line, err)
	}
	return Entry{Line: int(h.at.line), Record: r}, nil
}

// badIndex is why an index cannot answer a lookup: it does not match the
// log, or is damaged.
type badIndex struct{ err error }

func (b *badIndex) Error() string { return b.err.Error() }
func (b *badIndex) Unwrap() error { return b.err }

func notTrusted(format string, args ...any) error {
	return &badIndex{fmt.Errorf(format, args...)}
}

// indexedFind answers a lookup from index v of the log read through log,
// size bytes long: it reads and checks every line v gives, then reads the
// lines after what v covers, indexing them into rem. It returns a
// *badIndex error, and no answer, if v does not match the log.
func indexedFind(ctx context.Context, log io.ReaderAt, size int64, name string, v *indexView, kind byte, value string, rem *collected) ([]hit, []BadLine, error) {
	if v.covered > size {
		return nil, nil, notTrusted("it covers %d bytes of the log, which has %d", v.covered, size)
	}
	var buf []byte
	if v.covered > 0 {
		if _, err := readLine(log, v.last, nil); err != nil {
			return nil, nil, notTrusted("the log is not the one it indexed: %v", err)
		}
	}
	recs, bads, err := v.lookup(kind, value)
	if err != nil {
		return nil, nil, &badIndex{err}
	}
	var (
		found []hit
		bad   []BadLine
	)
	for _, e := range bads {
		text, err := readLine(log, e, &buf)
		if err != nil {
			return nil, nil, &badIndex{err}
		}
		_, perr := ParseRecord(text)
		if perr == nil {
			return nil, nil, notTrusted("line %d, which it has as not a record, is one", e.line)
		}
		bad = append(bad, BadLine{Line: int(e.line), Err: perr})
	}
	for _, e := range recs {
		text, err := readLine(log, e, &buf)
		if err != nil {
			return nil, nil, &badIndex{err}
		}
		r, perr := ParseRecord(text)
		if perr != nil {
			return nil, nil, notTrusted("line %d, which it has as a record, is not one: %v", e.line, perr)
		}
		if !matches(kind, value, r) {
			if keyOf(kind, valueOf(kind, r)) == e.key {
				continue // another value with the same 64-bit key
			}
			return nil, nil, notTrusted("line %d is not under the key it has it under", e.line)
		}
		found = append(found, hit{at: e})
	}
	if v.covered < size {
		more, moreBad, err := scanFind(ctx, io.NewSectionReader(log, v.covered, size-v.covered), v.covered, v.last.line, name, kind, value, rem)
		if err != nil {
			return nil, nil, err
		}
		found, bad = append(found, more...), append(bad, moreBad...)
	}
	return found, bad, nil
}

// lookupInfo says how a lookup was answered, for tests.
type lookupInfo struct {
	indexed  bool   // from the index and the lines it gave
	scanned  string // why the whole log was read, if it was
	rebuilt  bool   // the index was written again from that read
	extended bool   // lines after what the index covered were added to it
}

const whyMiss = "the index has no record with it"

// find returns the records with value as their kind of key, in log order,
// and the lines that are not records. It answers from the index when it
// can: the lines the index gives, each read and checked, and the lines
// after what it covers. When the index is missing, damaged or does not
// match the log, or has no record with the key, it reads the whole log,
// and builds the index again from it unless the index was right.
func (l *Log) find(ctx context.Context, kind byte, value string) ([]hit, []BadLine, lookupInfo, error) {
	var info lookupInfo
	if err := ctx.Err(); err != nil {
		return nil, nil, info, err
	}
	f, err := openLog(l.Path, os.O_RDONLY)
	if err != nil {
		return nil, nil, info, fmt.Errorf("audit log: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, info, fmt.Errorf("audit log %s: %w", l.Path, err)
	}
	size := st.Size()
	if l.NoIndex {
		info.scanned = "Log.NoIndex"
		found, bad, err := scanFind(ctx, io.NewSectionReader(f, 0, size), 0, 0, l.Path, kind, value, nil)
		return found, bad, info, err
	}
	var why string
	v, closeIndex, err := l.readIndex()
	if err != nil {
		why = err.Error()
	} else {
		defer closeIndex()
		var rem collected
		found, bad, err := indexedFind(ctx, f, size, l.Path, v, kind, value, &rem)
		var bi *badIndex
		switch {
		case errors.As(err, &bi):
			why = bi.Error()
		case err != nil:
			return nil, nil, info, err
		default:
			if len(rem.ents) > 0 && indexing {
				if werr := l.extendIndex(f, v, &rem); werr != nil {
					l.warn(fmt.Errorf("audit index %s: cannot add the log's last lines to it (%w); lookups read them each time until it can", l.indexPath(), werr))
				} else {
					info.extended = true
				}
			}
			if len(found) > 0 {
				info.indexed = true
				return found, bad, info, nil
			}
			why = whyMiss
		}
	}
	info.scanned = why
	var col *collected
	if indexing {
		col = &collected{}
	}
	found, bad, err := scanFind(ctx, io.NewSectionReader(f, 0, size), 0, 0, l.Path, kind, value, col)
	if err != nil {
		return nil, nil, info, err
	}
	if indexing && (why != whyMiss || len(found) > 0) {
		switch werr := l.rebuildIndex(f, size, col); {
		case werr == nil:
			info.rebuilt = true
		case !errors.Is(werr, errLogMoved):
			l.warn(fmt.Errorf("audit index %s: cannot write it (%w), so lookups in %s read the whole log; make its directory writable, or ignore this", l.indexPath(), werr, l.Path))
		}
	}
	return found, bad, info, nil
}

// readIndex opens the index for a lookup.
func (l *Log) readIndex() (*indexView, func(), error) {
	path := l.indexPath()
	f, st, err := openIndex(path, os.O_RDONLY)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	v, err := openView(f, st.Size())
	if err == nil {
		return v, func() { f.Close() }, nil
	}
	f.Close()
	return nil, nil, fmt.Errorf("%s: %w", path, err)
}
