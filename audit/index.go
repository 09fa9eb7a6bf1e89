package audit

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"slices"
)

// The index is a file beside the log, <log>.idx, that says where each
// record is, by correlation id and by prompt hash, so that finding a
// record reads a few lines instead of the whole log. It is a cache:
//
//   - It is updated by Append under the log's lock, and never makes an
//     append fail: if it cannot be written, the record is still logged
//     and the next lookup brings the index up to date.
//   - It covers the log up to a length it records, with the log's
//     modification time when it was last brought up to date and a
//     fingerprint of the bytes just before that length. A log changed
//     since by anything but an indexed append (an edit, a rewrite, a
//     writer that keeps no index) has a different modification time, and
//     its index is rebuilt from scratch on the next use.
//   - It is never trusted over the log: every place it gives is read and
//     parsed, and a record is returned only if the log line there holds
//     the id or hash asked for. Deleting it is always safe.
//
// Layout: a header, then entries of 24 bytes (a 64-bit key, the record's
// byte offset and its line number), all little-endian. The first
// header.sorted entries are sorted by key and found by binary search; the
// header.tail entries after them are in log order and scanned. When the
// tail grows past a sixteenth of the sorted part (and a minimum), the
// next append merges it in and writes a new file in its place.
const (
	indexMagic   = "TSXIDX1\n"
	headerSize   = 56
	entrySize    = 24
	fingerprintN = 64      // bytes of the log the fingerprint covers
	minTail      = 1024    // entries the tail may hold before a merge
	maxLineBytes = 1 << 30 // a line longer than this is not read as a record
)

// IndexSuffix is appended to a log's path to name its index.
const IndexSuffix = ".idx"

// indexHeader is the index's header.
type indexHeader struct {
	covered     int64  // log bytes indexed
	newlines    int64  // newlines in those bytes
	fingerprint uint64 // of the fingerprintN bytes before covered
	sorted      int64  // entries in the sorted part
	tail        int64  // entries after it, in log order
	mtime       int64  // the log's modification time, in nanoseconds
}

// indexEntry is one entry: a key (see idKey, hashKey), and the record's
// offset in the log and 1-based line.
type indexEntry struct {
	key    uint64
	offset int64
	line   int64
}

// idKey and hashKey are the keys a record is indexed under; badKey is
// the key of every line that is not a record (a torn write, an edit), so
// that a lookup can report them as a scan of the whole log would.
func idKey(id string) uint64     { return key('i', id) }
func hashKey(hash string) uint64 { return key('h', hash) }

var badKey = key('b', "")

func key(kind byte, s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte{kind, 0})
	h.Write([]byte(s))
	return h.Sum64()
}

func (h *indexHeader) marshal() []byte {
	b := make([]byte, headerSize)
	copy(b, indexMagic)
	binary.LittleEndian.PutUint64(b[8:], uint64(h.covered))
	binary.LittleEndian.PutUint64(b[16:], uint64(h.newlines))
	binary.LittleEndian.PutUint64(b[24:], h.fingerprint)
	binary.LittleEndian.PutUint64(b[32:], uint64(h.sorted))
	binary.LittleEndian.PutUint64(b[40:], uint64(h.tail))
	binary.LittleEndian.PutUint64(b[48:], uint64(h.mtime))
	return b
}

// parseIndexHeader reads a header, checking what can be checked without
// the log: the magic, and counts that fit a file of size bytes.
func parseIndexHeader(b []byte, size int64) (indexHeader, error) {
	if len(b) < headerSize || string(b[:8]) != indexMagic {
		return indexHeader{}, errors.New("not a Tessera log index")
	}
	h := indexHeader{
		covered:     int64(binary.LittleEndian.Uint64(b[8:])),
		newlines:    int64(binary.LittleEndian.Uint64(b[16:])),
		fingerprint: binary.LittleEndian.Uint64(b[24:]),
		sorted:      int64(binary.LittleEndian.Uint64(b[32:])),
		tail:        int64(binary.LittleEndian.Uint64(b[40:])),
		mtime:       int64(binary.LittleEndian.Uint64(b[48:])),
	}
	n := (size - headerSize) / entrySize
	if h.covered < 0 || h.newlines < 0 || h.newlines > h.covered || h.sorted < 0 || h.tail < 0 || h.sorted > n || h.tail > n-h.sorted {
		return indexHeader{}, errors.New("index header does not match its size")
	}
	return h, nil
}

func putEntry(b []byte, e indexEntry) {
	binary.LittleEndian.PutUint64(b, e.key)
	binary.LittleEndian.PutUint64(b[8:], uint64(e.offset))
	binary.LittleEndian.PutUint64(b[16:], uint64(e.line))
}

func getEntry(b []byte) indexEntry {
	return indexEntry{
		key:    binary.LittleEndian.Uint64(b),
		offset: int64(binary.LittleEndian.Uint64(b[8:])),
		line:   int64(binary.LittleEndian.Uint64(b[16:])),
	}
}

// fingerprint hashes the fingerprintN bytes of log before end.
func fingerprint(log io.ReaderAt, end int64) (uint64, error) {
	start := max(end-fingerprintN, 0)
	buf := make([]byte, end-start)
	if _, err := log.ReadAt(buf, start); err != nil {
		return 0, err
	}
	h := fnv.New64a()
	h.Write(buf)
	return h.Sum64(), nil
}

// index is an open index file and its header, used under the log's lock.
type index struct {
	f   *os.File
	h   indexHeader
	buf []byte // entries to append, marshalled
	// own is the line an append just wrote, whose keys are known without
	// reading it: its offset (-1 for none) and keys.
	ownAt   int64
	ownKeys []uint64
}

// openIndex opens (creating if need be) the index of the log at path,
// whose open file log is held locked and is as st describes, and brings
// it up to date with the log: a missing, unreadable or stale index is
// rebuilt, and lines beyond what it covers are indexed.
func openIndex(ctx context.Context, path string, log io.ReaderAt, st os.FileInfo) (*index, error) {
	f, err := os.OpenFile(path+IndexSuffix, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	x := &index{f: f, ownAt: -1}
	if err := x.load(ctx, log, st); err != nil {
		f.Close()
		return nil, err
	}
	return x, nil
}

// load reads the header and checks it against the log, then indexes what
// the log holds beyond it.
func (x *index) load(ctx context.Context, log io.ReaderAt, logSt os.FileInfo) error {
	st, err := x.f.Stat()
	if err != nil {
		return err
	}
	head := make([]byte, headerSize)
	_, rerr := x.f.ReadAt(head, 0)
	h, herr := parseIndexHeader(head, st.Size())
	fresh := rerr != nil || herr != nil || h.covered > logSt.Size() || h.mtime != logSt.ModTime().UnixNano()
	if !fresh && h.covered > 0 {
		fp, err := fingerprint(log, h.covered)
		fresh = err != nil || fp != h.fingerprint
	}
	if fresh {
		h = indexHeader{}
		if err := x.f.Truncate(0); err != nil {
			return err
		}
	}
	x.h = h
	return x.catchUp(ctx, log, logSt)
}

// catchUp indexes the log's lines from what the index covers up to the
// log's size in st, and records its modification time.
func (x *index) catchUp(ctx context.Context, log io.ReaderAt, st os.FileInfo) error {
	size, mtime := st.Size(), st.ModTime().UnixNano()
	if x.h.covered == size && x.h.mtime == mtime {
		return nil
	}
	// An append indexes one record: a buffer its size, not the 256 KiB a
	// rebuild reads with.
	r := bufio.NewReaderSize(io.NewSectionReader(log, x.h.covered, size-x.h.covered), int(min(max(size-x.h.covered, 4096), 256<<10)))
	off, line := x.h.covered, x.h.newlines+1
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long, lerr := readLong(r, b)
			b, err = long, lerr
		}
		if len(b) > 0 && b[len(b)-1] == '\n' {
			keys := x.ownKeys
			if off != x.ownAt {
				keys = lineKeys(b)
			}
			x.add(keys, off, line)
			off += int64(len(b))
			line++
			continue
		}
		// A last line without its newline (a torn write, or one being
		// written) stays out of the index until it is complete.
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	return x.commit(log, off, line-1, mtime)
}

// readLong reads the rest of a line longer than the reader's buffer.
func readLong(r *bufio.Reader, first []byte) ([]byte, error) {
	b := append([]byte(nil), first...)
	for {
		more, err := r.ReadSlice('\n')
		b = append(b, more...)
		if len(b) > maxLineBytes {
			return nil, fmt.Errorf("a line of over %d bytes", maxLineBytes)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return b, err
		}
	}
}

// add indexes the line that starts at off, line n, under keys.
func (x *index) add(keys []uint64, off, n int64) {
	for _, k := range keys {
		var e [entrySize]byte
		putEntry(e[:], indexEntry{key: k, offset: off, line: n})
		x.buf = append(x.buf, e[:]...)
	}
}

// lineKeys returns the keys a log line is indexed under: every
// correlation id and prompt hash it names, and badKey if it is not a
// record. A line may name more than its own (a preset's inputs may quote
// another record); lookups check each candidate against the parsed
// record, so extra keys cost a read, never a wrong answer. A blank line,
// which Scan skips, has none.
func lineKeys(line []byte) []uint64 {
	body := trimEOL(line)
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	var keys []uint64
	named := false
	for _, k := range []struct {
		name string
		key  func(string) uint64
	}{{`"correlation_id"`, idKey}, {`"assembled_prompt_hash"`, hashKey}} {
		rest := body
		for {
			i := bytes.Index(rest, []byte(k.name))
			if i < 0 {
				break
			}
			rest = rest[i+len(k.name):]
			if v, ok := jsonStringValue(rest); ok {
				keys = append(keys, k.key(v))
				named = named || v != ""
			}
		}
	}
	if !named || !json.Valid(body) {
		keys = append(keys, badKey)
	}
	return keys
}

// jsonStringValue reads `: "value"` at the start of b, for a value
// without escapes (correlation ids and hashes have none).
func jsonStringValue(b []byte) (string, bool) {
	b = bytes.TrimLeft(b, " \t")
	if len(b) == 0 || b[0] != ':' {
		return "", false
	}
	b = bytes.TrimLeft(b[1:], " \t")
	if len(b) == 0 || b[0] != '"' {
		return "", false
	}
	end := bytes.IndexAny(b[1:], "\"\\")
	if end < 0 || b[1+end] != '"' {
		return "", false
	}
	return string(b[1 : 1+end]), true
}

// commit writes the entries added since the last commit after the
// existing ones, then a header that covers the log up to covered bytes
// holding newlines newlines. The header is written last, so an index cut
// short by a crash still reads as it was before.
func (x *index) commit(log io.ReaderAt, covered, newlines, mtime int64) error {
	fp := uint64(0)
	if covered > 0 {
		var err error
		if fp, err = fingerprint(log, covered); err != nil {
			return err
		}
	}
	n := int64(len(x.buf) / entrySize)
	if len(x.buf) > 0 {
		if _, err := x.f.WriteAt(x.buf, headerSize+(x.h.sorted+x.h.tail)*entrySize); err != nil {
			return err
		}
		x.buf = x.buf[:0]
	}
	x.h.tail += n
	x.h.covered, x.h.newlines, x.h.fingerprint, x.h.mtime = covered, newlines, fp, mtime
	if _, err := x.f.WriteAt(x.h.marshal(), 0); err != nil {
		return err
	}
	if x.h.tail > max(minTail, x.h.sorted/16) {
		return x.merge()
	}
	return nil
}

// merge sorts every entry into the sorted part, writing a new file in
// the index's place.
func (x *index) merge() error {
	all := make([]byte, (x.h.sorted+x.h.tail)*entrySize)
	if _, err := x.f.ReadAt(all, headerSize); err != nil {
		return err
	}
	entries := make([]indexEntry, 0, len(all)/entrySize)
	for i := 0; i < len(all); i += entrySize {
		entries = append(entries, getEntry(all[i:]))
	}
	slices.SortStableFunc(entries, func(a, b indexEntry) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.offset, b.offset))
	})
	for i, e := range entries {
		putEntry(all[i*entrySize:], e)
	}
	h := x.h
	h.sorted, h.tail = int64(len(entries)), 0
	name := x.f.Name()
	tmp, err := os.CreateTemp(dirOf(name), ".tessera-index-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(h.marshal(), all...))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	x.f.Close()
	x.f, x.h = f, h
	return nil
}

// lookup returns the entries whose key is k, sorted part first, by offset.
func (x *index) lookup(k uint64) ([]indexEntry, error) {
	var out []indexEntry
	e := make([]byte, entrySize)
	at := func(i int64) (indexEntry, error) {
		if _, err := x.f.ReadAt(e, headerSize+i*entrySize); err != nil {
			return indexEntry{}, err
		}
		return getEntry(e), nil
	}
	lo, hi := int64(0), x.h.sorted
	for lo < hi {
		mid := lo + (hi-lo)/2
		m, err := at(mid)
		if err != nil {
			return nil, err
		}
		if m.key < k {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for i := lo; i < x.h.sorted; i++ {
		m, err := at(i)
		if err != nil {
			return nil, err
		}
		if m.key != k {
			break
		}
		out = append(out, m)
	}
	if x.h.tail > 0 {
		tail := make([]byte, x.h.tail*entrySize)
		if _, err := x.f.ReadAt(tail, headerSize+x.h.sorted*entrySize); err != nil {
			return nil, err
		}
		for i := 0; i < len(tail); i += entrySize {
			if binary.LittleEndian.Uint64(tail[i:]) == k {
				out = append(out, getEntry(tail[i:]))
			}
		}
	}
	return out, nil
}

func (x *index) close() error { return x.f.Close() }

// dirOf is filepath.Dir without the import, for names from os.File.Name.
func dirOf(name string) string {
	for i := len(name) - 1; i >= 0; i-- {
		if os.IsPathSeparator(name[i]) {
			return name[:i+1]
		}
	}
	return "."
}

// FindHash returns every record whose prompt hash is hash, in log order,
// as Find does for a correlation id.
func (l *Log) FindHash(ctx context.Context, hash string) ([]Entry, []BadLine, error) {
	return l.find(ctx, hashKey(hash), func(r *Record) bool { return r.AssembledPromptHash == hash })
}

// find looks key up in the index, brought up to date under the log's
// lock, and returns the records at the places it gives that match; if
// the index cannot be used (a read-only directory, say), it scans the
// whole log.
func (l *Log) find(ctx context.Context, k uint64, match func(*Record) bool) ([]Entry, []BadLine, error) {
	if !indexing {
		return l.scanFor(ctx, match)
	}
	f, err := os.OpenFile(l.Path, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("audit log: %w", err)
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		return l.scanFor(ctx, match)
	}
	defer unlockFile(f)
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("audit log %s: %w", l.Path, err)
	}
	x, err := openIndex(ctx, l.Path, f, st)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return l.scanFor(ctx, match)
	}
	defer x.close()
	cands, err := x.lookup(k)
	if err != nil {
		return l.scanFor(ctx, match)
	}
	bads, err := x.lookup(badKey)
	if err != nil {
		return l.scanFor(ctx, match)
	}
	// Each place the index gives must be the start of a line that names
	// the key; one that does not shows the index is wrong, and then the
	// log decides, and the index is rebuilt on its next use.
	lied := func() ([]Entry, []BadLine, error) {
		_ = x.f.Truncate(0)
		return l.scanFor(ctx, match)
	}
	read := func(c indexEntry, k uint64) ([]byte, bool) {
		line, err := readLineAt(f, c.offset, x.h.covered)
		return line, err == nil && slices.Contains(lineKeys(line), k)
	}
	var bad []BadLine
	slices.SortFunc(bads, func(a, b indexEntry) int { return cmp.Compare(a.offset, b.offset) })
	for _, c := range bads {
		line, ok := read(c, badKey)
		if !ok {
			return lied()
		}
		if _, perr := ParseRecord(line); perr != nil {
			bad = append(bad, BadLine{Line: int(c.line), Err: perr})
		}
	}
	slices.SortFunc(cands, func(a, b indexEntry) int { return cmp.Compare(a.offset, b.offset) })
	cands = slices.CompactFunc(cands, func(a, b indexEntry) bool { return a.offset == b.offset })
	var found []Entry
	for _, c := range cands {
		line, ok := read(c, k)
		if !ok {
			return lied()
		}
		r, perr := ParseRecord(line)
		if perr != nil || !match(r) {
			continue // a hash collision, or a line that quotes another record
		}
		found = append(found, Entry{Line: int(c.line), Record: r})
	}
	return found, bad, nil
}

// readLineAt reads the line that starts at off, checking that off is the
// start of a line within the first end bytes.
func readLineAt(f io.ReaderAt, off, end int64) ([]byte, error) {
	if off < 0 || off >= end {
		return nil, errors.New("offset outside the indexed log")
	}
	if off > 0 {
		var prev [1]byte
		if _, err := f.ReadAt(prev[:], off-1); err != nil || prev[0] != '\n' {
			return nil, errors.New("offset not at the start of a line")
		}
	}
	r := bufio.NewReader(io.NewSectionReader(f, off, end-off))
	line, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		line, err = readLong(r, line)
	}
	if err != nil {
		return nil, err
	}
	return line, nil
}

// scanFor is the whole-log scan the index stands in for.
func (l *Log) scanFor(ctx context.Context, match func(*Record) bool) ([]Entry, []BadLine, error) {
	var (
		found []Entry
		bad   []BadLine
	)
	err := l.Scan(ctx, func(e Entry, err error) error {
		if err != nil {
			bad = append(bad, BadLine{Line: e.Line, Err: err})
		} else if match(e.Record) {
			found = append(found, e)
		}
		return nil
	})
	return found, bad, err
}

// indexAppend brings the index up to date with the log, whose open file
// f the caller holds locked, just after an append of r as the log's last
// n bytes: before describes the log as it was before the append, which
// the index must match to be kept; then the new record is indexed, under
// the keys it is known to have. Failing to, it leaves the index for the
// next use to rebuild.
func (l *Log) indexAppend(f *os.File, before os.FileInfo, r *Record, n int) {
	if !indexing || before == nil {
		return
	}
	after, err := f.Stat()
	if err != nil {
		return
	}
	x, err := openIndex(context.Background(), l.Path, f, before)
	if err != nil {
		return
	}
	defer x.close()
	x.ownAt, x.ownKeys = after.Size()-int64(n), []uint64{idKey(r.CorrelationID), hashKey(r.AssembledPromptHash)}
	_ = x.catchUp(context.Background(), f, after)
}
