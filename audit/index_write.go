package audit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tessera-dev/tessera/internal/proc"
)

func (l *Log) indexPath() string { return l.Path + IndexSuffix }

func (l *Log) warn(err error) {
	if l.Warn != nil {
		l.Warn(err)
	}
}

// wrapIndex returns what the index's writes go through: the file, or the
// test's stand-in for it.
func (l *Log) wrapIndex(f *os.File) logFile {
	if l.index != nil {
		return l.index(f)
	}
	return f
}

// openIndex opens the index at path, refusing anything but a regular
// file, so that a link or a directory put in its place is never read or
// written through, and returns what it is.
func openIndex(path string, flag int) (*os.File, os.FileInfo, error) {
	notRegular := errors.New("it is not a regular file")
	if openSafe != 0 {
		f, err := os.OpenFile(path, flag|openSafe, 0)
		if err != nil {
			if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
				return nil, nil, notRegular
			}
			return nil, nil, err
		}
		st, err := f.Stat()
		if err == nil && !st.Mode().IsRegular() {
			err = notRegular
		} else if err == nil && flag&(os.O_WRONLY|os.O_RDWR) != 0 && links(st) > 1 {
			err = &LinkedError{Path: path, Links: links(st)}
		}
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		return f, st, nil
	}
	for try := 0; ; try++ {
		fi, err := os.Lstat(path)
		if err != nil {
			return nil, nil, err
		}
		if !fi.Mode().IsRegular() {
			return nil, nil, notRegular
		}
		f, err := os.OpenFile(path, flag, 0)
		if err != nil {
			return nil, nil, err
		}
		st, err := f.Stat()
		if err == nil && os.SameFile(fi, st) {
			return f, st, nil
		}
		f.Close()
		if err != nil {
			return nil, nil, err
		}
		if try == 2 {
			// Replaced between the two looks, three times over.
			return nil, nil, errors.New("it keeps being replaced while it is opened")
		}
	}
}

// indexMode is the index's permissions: the log's, so that whoever may
// read the log may read its index.
func indexMode(log logFile) fs.FileMode {
	if st, err := log.Stat(); err == nil {
		return st.Mode().Perm() & 0o666
	}
	return 0o644
}

// errLogMoved: the log changed while it was being indexed; the index is
// left for the next lookup.
var errLogMoved = errors.New("the log changed while it was indexed")

// indexAppend indexes the record r, the line text just appended at off
// to the log lf, which the caller holds locked. It never fails the
// append: a problem goes to Warn, and leaves an index that the next
// lookup brings up to date.
func (l *Log) indexAppend(lf logFile, off int64, text []byte, r *Record) {
	if l.NoIndex || !indexing {
		return
	}
	if err := l.indexRecord(lf, off, text, r); err != nil {
		l.warn(fmt.Errorf("audit index %s: the record is in the log but not in its index (%w); the next lookup adds it", l.indexPath(), err))
	}
}

func (l *Log) indexRecord(lf logFile, off int64, text []byte, r *Record) error {
	// A record without a correlation id is a line ParseRecord refuses.
	bad := r.CorrelationID == ""
	f, st, err := openIndex(l.indexPath(), os.O_RDWR|os.O_APPEND)
	if errors.Is(err, fs.ErrNotExist) {
		if off != 0 {
			return nil // a log older than its index: the first lookup builds it
		}
		ents, err := lineEntries(nil, 0, 1, text, r, bad)
		if err != nil {
			return err
		}
		t, err := l.newTempIndex(header{})
		if err != nil {
			return err
		}
		defer t.abort()
		if err := t.write(ents); err != nil {
			return err
		}
		return t.commit(indexMode(lf))
	}
	if err != nil {
		return err
	}
	defer f.Close()
	xf := l.wrapIndex(f)
	v, err := openView(xf, st.Size())
	if err != nil || v.covered > off {
		return nil // damaged, or the log is shorter: the next lookup rebuilds it
	}
	if v.covered > 0 {
		if _, err := readLine(lf, v.last, nil); err != nil {
			return nil // not this log's: the next lookup rebuilds it
		}
	}
	no := v.last.line
	var ents []entry
	if v.covered < off {
		// Lines another writer left out (one that keeps no index, or
		// whose index write failed).
		if off-v.covered > catchUpMax {
			return nil // too many to read under the lock: the next lookup does
		}
		col, err := indexLines(io.NewSectionReader(lf, v.covered, off-v.covered), v.covered, no, l.Path)
		if err != nil {
			return err
		}
		ents, no = col.ents, col.no
	}
	if ents, err = lineEntries(ents, off, no+1, text, r, bad); err != nil {
		return err
	}
	if err := appendEntries(xf, v.size, st.Size(), ents); err != nil {
		return err
	}
	return l.maybeCompact(xf, lf, v.hdr.nBase, v.nTail+int64(len(ents)))
}

// indexLines indexes the complete lines of the log read from r, which
// starts at byte off after line no.
func indexLines(r io.Reader, off, no int64, name string) (*collected, error) {
	col := &collected{}
	if _, _, err := scanFind(context.Background(), r, off, no, name, kindNone, "", col); err != nil {
		return nil, err
	}
	return col, col.err
}

// appendEntries writes ents at the end of the index xf, whose entries
// end at valid and whose file is size bytes: anything after valid, an
// unfinished write, is cut off first. A write that fails is taken out
// again where it can be; where it cannot, what is left is an unfinished
// write that readers ignore.
func appendEntries(xf logFile, valid, size int64, ents []entry) error {
	if size != valid {
		if err := xf.Truncate(valid); err != nil {
			return fmt.Errorf("cutting off an unfinished write: %w", cause(err))
		}
	}
	buf := make([]byte, len(ents)*entSize)
	for i, e := range ents {
		e.put(buf[i*entSize:])
	}
	n, err := xf.Write(buf)
	if err == nil && n < len(buf) {
		err = io.ErrShortWrite
	}
	if err != nil {
		_ = undo(xf, valid, int64(n))
		return cause(err)
	}
	return nil
}

// maybeCompact merges the tail into the sorted part once it has grown
// past its share, writing a new index in place of xf. The caller holds
// the log's lock.
func (l *Log) maybeCompact(xf logFile, lf logFile, nBase, nTail int64) error {
	if nTail <= max(compactMin, nBase/compactDiv) {
		return nil
	}
	st, err := xf.Stat()
	if err != nil {
		return err
	}
	v, err := openView(xf, st.Size())
	if err != nil {
		return err
	}
	var tail []entry
	if err := v.scanTail(nil, func(e entry) { tail = append(tail, e) }); err != nil {
		return l.dropIndex(err)
	}
	slices.SortFunc(tail, cmpEntry)
	t, err := l.newTempIndex(header{nBase: v.hdr.nBase + int64(len(tail)), end: v.covered, last: v.last})
	if err != nil {
		return err
	}
	defer t.abort()
	const chunk = 4096
	buf := make([]byte, min(v.hdr.nBase, chunk)*entSize)
	for lo := int64(0); lo < v.hdr.nBase; lo += chunk {
		b := buf[:min(v.hdr.nBase-lo, chunk)*entSize]
		if _, err := v.r.ReadAt(b, hdrSize+lo*entSize); err != nil {
			return err
		}
		for j := 0; j < len(b); j += entSize {
			e, ok := getEntry(b[j:])
			if !ok {
				return l.dropIndex(fmt.Errorf("entry %d of its sorted part is damaged", lo+int64(j/entSize)))
			}
			i := 0
			for i < len(tail) && cmpEntry(tail[i], e) < 0 {
				i++
			}
			if err := t.write(tail[:i]); err != nil {
				return err
			}
			tail = tail[i:]
			if err := t.write([]entry{e}); err != nil {
				return err
			}
		}
	}
	if err := t.write(tail); err != nil {
		return err
	}
	return t.commit(indexMode(lf))
}

// dropIndex removes an index found damaged while it was being merged, so
// that the next lookup builds it again.
func (l *Log) dropIndex(why error) error {
	if err := os.Remove(l.indexPath()); err != nil {
		return fmt.Errorf("%v, and it cannot be removed: %w", why, err)
	}
	return fmt.Errorf("%v; it was removed, and the next lookup builds it again", why)
}

// rebuildIndex writes the index col holds, of the log f up to byte
// scanned, in place of the old one. The sorted part is written and synced
// without the log's lock; then, under it, the lines appended since are
// added and the file is renamed into place, so appends wait only for
// those.
func (l *Log) rebuildIndex(f *os.File, scanned int64, col *collected) error {
	if col.err != nil {
		return col.err
	}
	slices.SortFunc(col.ents, cmpEntry)
	t, err := l.newTempIndex(header{nBase: int64(len(col.ents)), end: col.end, last: col.last})
	if err != nil {
		return err
	}
	defer t.abort()
	if err := t.write(col.ents); err != nil {
		return err
	}
	if err := t.sync(); err != nil {
		return err
	}
	if err := lockFile(f); err != nil {
		return err
	}
	defer unlockFile(f)
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() < scanned {
		return errLogMoved
	}
	if col.end > 0 {
		if _, err := readLine(f, col.last, nil); err != nil {
			return errLogMoved
		}
	}
	since, err := indexLines(io.NewSectionReader(f, col.end, st.Size()-col.end), col.end, col.last.line, l.Path)
	if err != nil {
		return err
	}
	if err := t.write(since.ents); err != nil {
		return err
	}
	return t.commit(indexMode(f))
}

// extendIndex adds rem, the entries of the lines after what index v
// covers, to the index, unless another writer has moved it on since v
// was read.
func (l *Log) extendIndex(f *os.File, v *indexView, rem *collected) error {
	if rem.err != nil {
		return rem.err
	}
	if err := lockFile(f); err != nil {
		return err
	}
	defer unlockFile(f)
	x, st, err := openIndex(l.indexPath(), os.O_RDWR|os.O_APPEND)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	defer x.Close()
	xf := l.wrapIndex(x)
	now, err := openView(xf, st.Size())
	if err != nil || now.covered != v.covered || now.last != v.last {
		return nil
	}
	if _, err := readLine(f, rem.last, nil); err != nil {
		return nil
	}
	if err := appendEntries(xf, now.size, st.Size(), rem.ents); err != nil {
		return err
	}
	return l.maybeCompact(xf, f, now.hdr.nBase, now.nTail+int64(len(rem.ents)))
}

// removeTempLeftovers removes the temporary indexes, named
// "<index>.<pid>-<random>.tmp", that a process killed while writing one
// left beside the index at path: those whose process is gone. Those of a
// process still running, and every other name, are left alone, and so
// is everything where the system cannot say whether a process runs.
// Failures are passed to Warn: a leftover costs only disk space.
func (l *Log) removeTempLeftovers(path string) {
	dir, base := filepath.Dir(path), filepath.Base(path)+"."
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // creating the new file reports what is wrong
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), base)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		id, _, ok := strings.Cut(rest, "-")
		if !ok || !strings.HasSuffix(rest, ".tmp") {
			continue
		}
		pid, err := strconv.Atoi(id)
		if err != nil {
			continue
		}
		if running, known := proc.Running(pid); running || !known {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			l.warn(fmt.Errorf("audit index %s: cannot remove %s, left by a process killed while writing the index: %w", path, e.Name(), err))
		}
	}
}

// tempIndex is a new index being written beside the old one, which it
// replaces by rename.
type tempIndex struct {
	f    *os.File
	xf   logFile
	bw   *bufio.Writer
	path string
	done bool
	buf  [entSize]byte
}

func (l *Log) newTempIndex(h header) (*tempIndex, error) {
	path := l.indexPath()
	l.removeTempLeftovers(path)
	f, err := os.CreateTemp(filepath.Dir(path), fmt.Sprintf("%s.%d-*.tmp", filepath.Base(path), os.Getpid()))
	if err != nil {
		return nil, err
	}
	t := &tempIndex{f: f, xf: l.wrapIndex(f), path: path}
	t.bw = bufio.NewWriterSize(t.xf, 256<<10)
	var hb [hdrSize]byte
	h.put(hb[:])
	if _, err := t.bw.Write(hb[:]); err != nil {
		t.abort()
		return nil, err
	}
	return t, nil
}

func (t *tempIndex) write(es []entry) error {
	for _, e := range es {
		e.put(t.buf[:])
		if _, err := t.bw.Write(t.buf[:]); err != nil {
			return cause(err)
		}
	}
	return nil
}

func (t *tempIndex) sync() error {
	if err := t.bw.Flush(); err != nil {
		return cause(err)
	}
	return t.xf.Sync()
}

// commit makes the file the index: synced, with mode, renamed into place.
func (t *tempIndex) commit(mode fs.FileMode) error {
	if err := t.sync(); err != nil {
		return err
	}
	if err := t.f.Chmod(mode); err != nil {
		return err
	}
	if err := t.f.Close(); err != nil {
		return err
	}
	if err := os.Rename(t.f.Name(), t.path); err != nil {
		return err
	}
	t.done = true
	return nil
}

// abort removes the file unless it was committed.
func (t *tempIndex) abort() {
	if !t.done {
		t.done = true
		t.f.Close()
		os.Remove(t.f.Name())
	}
}
