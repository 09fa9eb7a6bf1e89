package audit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// errNoSpace stands for the error a full disk gives.
var errNoSpace = errors.New("no space left on device")

// faultyFile is the log file on a disk that fills up: Write writes at most
// room bytes and then fails as a full disk does.
type faultyFile struct {
	*os.File
	room     int   // how many more bytes Write may write
	nilErr   bool  // report a short write with no error, as a broken writer might
	syncErr  error // what Sync returns, if not nil
	truncErr error // what Truncate returns, if not nil
}

func (f *faultyFile) Write(p []byte) (int, error) {
	if len(p) <= f.room {
		n, err := f.File.Write(p)
		f.room -= n
		return n, err
	}
	n, err := f.File.Write(p[:f.room])
	f.room -= n
	if err == nil && !f.nilErr {
		err = &fs.PathError{Op: "write", Path: f.Name(), Err: errNoSpace}
	}
	return n, err
}

func (f *faultyFile) Sync() error {
	if f.syncErr != nil {
		return f.syncErr
	}
	return f.File.Sync()
}

func (f *faultyFile) Truncate(size int64) error {
	if f.truncErr != nil {
		return f.truncErr
	}
	return f.File.Truncate(size)
}

// withFault makes the log's next appends go through ff, a faultyFile
// whose File field Append fills in.
func withFault(l *Log, ff faultyFile) {
	l.file = func(f *os.File) logFile {
		ff := ff
		ff.File = f
		return &ff
	}
}

func readLog(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// sameLog fails the test if the log is not byte for byte before.
func sameLog(t *testing.T, l *Log, before []byte) {
	t.Helper()
	after := readLog(t, l.Path)
	if !bytes.Equal(after, before) {
		t.Fatalf("log changed: %d bytes, was %d; ends in %q", len(after), len(before), after[max(0, len(after)-40):])
	}
}

// newLog returns a log holding two records, "a" and "b".
func newLog(t *testing.T) *Log {
	t.Helper()
	l := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
	for _, id := range []string{"a", "b"} {
		if err := l.Append(context.Background(), record(id, "prompt "+id)); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// tear adds half of a record to the log, with no line break: what a
// writer killed mid-line leaves.
func tear(t *testing.T, l *Log) {
	t.Helper()
	data, err := record("torn", "torn").Marshal()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(l.Path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data[:len(data)/2]); err != nil {
		t.Fatal(err)
	}
}

// scanAll returns the correlation ids of the log's records and the
// numbers of its bad lines.
func scanAll(t *testing.T, l *Log) (ids []string, bad []int) {
	t.Helper()
	err := l.Scan(context.Background(), func(e Entry, err error) error {
		if err != nil {
			bad = append(bad, e.Line)
		} else {
			ids = append(ids, e.Record.CorrelationID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids, bad
}

// An append that fails part-way (a full disk) takes out what it wrote:
// the log is byte for byte as before, and the error names the log and
// says so.
func TestAppendFailureLeavesLogUnchanged(t *testing.T) {
	line, err := record("c", "prompt c").Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, fault := range []faultyFile{
		{room: 0}, {room: 1}, {room: len(line) / 2}, {room: len(line) - 1},
		{room: len(line) / 2, nilErr: true},
	} {
		t.Run(fmt.Sprintf("room=%d,nilErr=%v", fault.room, fault.nilErr), func(t *testing.T) {
			l := newLog(t)
			before := readLog(t, l.Path)
			withFault(l, fault)
			err := l.Append(context.Background(), record("c", "prompt c"))
			if err == nil {
				t.Fatal("append on a full disk succeeded")
			}
			msg := err.Error()
			if !strings.Contains(msg, "audit log "+l.Path+": append failed, the log is unchanged: ") || !strings.Contains(msg, "retry") {
				t.Errorf("error %q does not say the log %s is unchanged and what to do", msg, l.Path)
			}
			if !fault.nilErr && (!errors.Is(err, errNoSpace) || !strings.Contains(msg, "unchanged: no space left on device")) {
				t.Errorf("error %q does not wrap the cause", msg)
			}
			sameLog(t, l, before)
			l.file = nil
			if err := l.Append(context.Background(), record("c", "prompt c")); err != nil {
				t.Fatal(err)
			}
			if ids, bad := scanAll(t, l); strings.Join(ids, ",") != "a,b,c" || len(bad) != 0 {
				t.Errorf("records %v, bad lines %v after the retry", ids, bad)
			}
		})
	}
}

// A failed append on a log that ends in a torn line leaves it exactly as
// it was, torn line and all; the next append starts a new line.
func TestAppendFailureOnTornLog(t *testing.T) {
	for _, room := range []int{0, 1, 2, 100} { // room 1 writes just the line break
		t.Run(fmt.Sprint("room=", room), func(t *testing.T) {
			l := newLog(t)
			tear(t, l)
			before := readLog(t, l.Path)
			withFault(l, faultyFile{room: room})
			if err := l.Append(context.Background(), record("c", "prompt c")); err == nil || !strings.Contains(err.Error(), "the log is unchanged") {
				t.Fatalf("append on a full disk: %v", err)
			}
			sameLog(t, l, before)
			l.file = nil
			if err := l.Append(context.Background(), record("c", "prompt c")); err != nil {
				t.Fatal(err)
			}
			if ids, bad := scanAll(t, l); strings.Join(ids, ",") != "a,b,c" || len(bad) != 1 || bad[0] != 3 {
				t.Errorf("records %v, bad lines %v; want a,b,c and line 3", ids, bad)
			}
		})
	}
}

// A record written in full whose sync fails is taken out again, so that
// an error from Append always means the record is not in the log and a
// retry does not write it twice.
func TestAppendSyncFailure(t *testing.T) {
	l := newLog(t)
	l.Sync = true
	before := readLog(t, l.Path)
	withFault(l, faultyFile{room: 1 << 20, syncErr: errors.New("input/output error")})
	err := l.Append(context.Background(), record("c", "prompt c"))
	if err == nil || !strings.Contains(err.Error(), "audit log "+l.Path+": sync failed, the record was taken out and the log is unchanged: input/output error") {
		t.Fatalf("error = %v", err)
	}
	sameLog(t, l, before)
}

// If the partial record cannot be taken out, the error says the log now
// ends in a torn line; readers report that line, and the next append
// starts after it.
func TestAppendFailureCannotTruncate(t *testing.T) {
	l := newLog(t)
	withFault(l, faultyFile{room: 10, truncErr: errors.New("read-only file system")})
	err := l.Append(context.Background(), record("c", "prompt c"))
	if err == nil || !errors.Is(err, errNoSpace) || !strings.Contains(err.Error(), "audit log "+l.Path+": append failed part-way and the partial record could not be taken out (truncate: read-only file system): the log ends in a torn line") {
		t.Fatalf("error = %v", err)
	}
	l.file = nil
	if err := l.Append(context.Background(), record("d", "prompt d")); err != nil {
		t.Fatal(err)
	}
	if ids, bad := scanAll(t, l); strings.Join(ids, ",") != "a,b,d" || len(bad) != 1 || bad[0] != 3 {
		t.Errorf("records %v, bad lines %v; want a,b,d and line 3", ids, bad)
	}
}

// A torn line in the middle of the log costs only itself: Find and Scan
// read every record after it, Find reports it with its line number, and
// so does Replay when no record matches.
func TestTornLineReportedByFind(t *testing.T) {
	ctx := context.Background()
	l := newLog(t)
	tear(t, l)
	for _, id := range []string{"c", "d", "c"} {
		if err := l.Append(ctx, record(id, "prompt "+id)); err != nil {
			t.Fatal(err)
		}
	}
	data := readLog(t, l.Path)
	if lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")); len(lines) != 6 {
		t.Fatalf("%d lines, want 6:\n%s", len(lines), data)
	}
	found, bad, err := l.Find(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 2 || found[0].Line != 4 || found[1].Line != 6 {
		t.Errorf("found %+v, want lines 4 and 6", found)
	}
	if len(bad) != 1 || bad[0].Line != 3 || bad[0].Err == nil {
		t.Errorf("bad lines %+v, want line 3", bad)
	}
	if ids, _ := scanAll(t, l); strings.Join(ids, ",") != "a,b,c,d,c" {
		t.Errorf("records %v", ids)
	}
	_, err = Replay(ctx, l, "torn", nil)
	if err == nil || !strings.Contains(err.Error(), "1 unreadable lines, the first at line 3") {
		t.Errorf("Replay of the torn record: %v", err)
	}
}
