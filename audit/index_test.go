package audit

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
)

// found lists what a lookup returned, as "id@line" in order, and the bad
// lines.
func found(entries []Entry, bad []BadLine) string {
	var b bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&b, "%s@%d ", e.Record.CorrelationID, e.Line)
	}
	for _, l := range bad {
		fmt.Fprintf(&b, "bad@%d ", l.Line)
	}
	return b.String()
}

// checkAgainstScan fails t unless looking id up answers what reading the
// whole log does.
func checkAgainstScan(t *testing.T, l *Log, id string) {
	t.Helper()
	ctx := context.Background()
	got, gotBad, err := l.Find(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	want, wantBad, err := l.scanFor(ctx, func(r *Record) bool { return r.CorrelationID == id })
	if err != nil {
		t.Fatal(err)
	}
	if g, w := found(got, gotBad), found(want, wantBad); g != w {
		t.Errorf("Find(%q) = %s; the whole log says %s", id, g, w)
	}
}

func appendAll(t *testing.T, l *Log, ids ...string) {
	t.Helper()
	for i, id := range ids {
		if err := l.Append(context.Background(), record(id, fmt.Sprintf("prompt %d of %s", i, id))); err != nil {
			t.Fatal(err)
		}
	}
}

func header(t *testing.T, l *Log) indexHeader {
	t.Helper()
	data, err := os.ReadFile(l.Path + IndexSuffix)
	if err != nil {
		t.Fatal(err)
	}
	h, err := parseIndexHeader(data, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestIndexKeptOnAppend checks that every append indexes its record, by
// id and by prompt hash, at its line.
func TestIndexKeptOnAppend(t *testing.T) {
	l := newLog(t)
	appendAll(t, l, "x", "y", "x", "z")
	st, _ := os.Stat(l.Path)
	if h := header(t, l); h.covered != st.Size() || h.newlines != 6 {
		t.Errorf("index covers %d bytes and %d lines; the log is %d bytes, 6 lines", h.covered, h.newlines, st.Size())
	}
	got, _, err := l.Find(context.Background(), "x")
	if err != nil || found(got, nil) != "x@3 x@5 " {
		t.Errorf("Find(x) = %s, %v; want lines 3 and 5", found(got, nil), err)
	}
	h := got[1].Record.AssembledPromptHash
	byHash, _, err := l.FindHash(context.Background(), h)
	if err != nil || len(byHash) != 1 || byHash[0].Line != 5 {
		t.Errorf("FindHash = %s, %v", found(byHash, nil), err)
	}
	if got, _, _ := l.Find(context.Background(), "absent"); len(got) != 0 {
		t.Errorf("Find(absent) = %s", found(got, nil))
	}
}

// TestIndexRebuilt checks that a missing, stale, foreign or rewritten
// index is rebuilt, and that lines appended by a writer that kept no
// index are indexed on the next use.
func TestIndexRebuilt(t *testing.T) {
	for _, c := range []struct {
		name  string
		spoil func(t *testing.T, l *Log)
	}{
		{"missing", func(t *testing.T, l *Log) { os.Remove(l.Path + IndexSuffix) }},
		{"garbage", func(t *testing.T, l *Log) { os.WriteFile(l.Path+IndexSuffix, []byte("not an index"), 0o644) }},
		{"cut short", func(t *testing.T, l *Log) { os.Truncate(l.Path+IndexSuffix, headerSize+10) }},
		{"log appended without it", func(t *testing.T, l *Log) {
			data, _ := record("x", "added by another tool").Marshal()
			f, _ := os.OpenFile(l.Path, os.O_APPEND|os.O_WRONLY, 0)
			f.Write(data)
			f.Close()
		}},
		{"log rewritten, same length", func(t *testing.T, l *Log) {
			data := readLog(t, l.Path)
			data = bytes.Replace(data, []byte(`"correlation_id":"y"`), []byte(`"correlation_id":"x"`), 1)
			os.WriteFile(l.Path, data, 0o644)
		}},
		{"log cut short", func(t *testing.T, l *Log) {
			data := readLog(t, l.Path)
			os.WriteFile(l.Path, data[:bytes.IndexByte(data, '\n')+1], 0o644)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := newLog(t)
			appendAll(t, l, "x", "y", "x")
			c.spoil(t, l)
			checkAgainstScan(t, l, "x")
			checkAgainstScan(t, l, "y")
			appendAll(t, l, "y")
			checkAgainstScan(t, l, "y")
			st, _ := os.Stat(l.Path)
			if h := header(t, l); h.covered != st.Size() {
				t.Errorf("index covers %d of %d bytes", h.covered, st.Size())
			}
		})
	}
}

// TestIndexLies checks that an index pointing at the wrong place, mid
// line or at another record, is caught, and the answer still comes from
// the log.
func TestIndexLies(t *testing.T) {
	l := newLog(t)
	appendAll(t, l, "x", "y", "z", "x")
	data, err := os.ReadFile(l.Path + IndexSuffix)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := parseIndexHeader(data, int64(len(data)))
	log := readLog(t, l.Path)
	zAt := int64(bytes.Index(log, []byte(`"correlation_id":"z"`)))
	zStart := int64(bytes.LastIndexByte(log[:zAt], '\n') + 1)
	for _, offset := range []int64{zStart, zStart + 5, int64(len(log)) + 100} {
		spoilt := slices.Clone(data)
		for i := int64(0); i < h.sorted+h.tail; i++ {
			at := headerSize + i*entrySize
			if e := getEntry(spoilt[at:]); e.key == idKey("x") {
				e.offset = offset
				putEntry(spoilt[at:], e)
			}
		}
		if err := os.WriteFile(l.Path+IndexSuffix, spoilt, 0o644); err != nil {
			t.Fatal(err)
		}
		checkAgainstScan(t, l, "x")
		checkAgainstScan(t, l, "z")
	}
}

// TestIndexMerges appends past the tail's limit and checks that the
// sorted part takes the entries in, and every record is still found.
func TestIndexMerges(t *testing.T) {
	l := newLog(t)
	ids := make([]string, 0, minTail)
	for i := range minTail/2 + 10 { // two entries per record
		ids = append(ids, fmt.Sprintf("id-%d", i%300))
	}
	appendAll(t, l, ids...)
	h := header(t, l)
	if h.sorted == 0 || h.tail > minTail {
		t.Errorf("after %d appends the index has %d sorted and %d tail entries", len(ids), h.sorted, h.tail)
	}
	for _, id := range []string{"id-0", "id-150", "id-299", "id-300"} {
		checkAgainstScan(t, l, id)
	}
}

// TestIndexTornLine checks that a torn line is indexed once the next
// append completes it, and reported as a bad line, as a scan would.
func TestIndexTornLine(t *testing.T) {
	l := newLog(t)
	tear(t, l)
	appendAll(t, l, "c", "d")
	checkAgainstScan(t, l, "c")
	checkAgainstScan(t, l, "torn")
}

// TestIndexAfterFailedAppend checks that an append that fails and is cut
// back leaves the index to match the log.
func TestIndexAfterFailedAppend(t *testing.T) {
	l := newLog(t)
	appendAll(t, l, "a")
	withFault(l, faultyFile{room: 10})
	if err := l.Append(context.Background(), record("b", "never logged")); err == nil {
		t.Fatal("the faulty append succeeded")
	}
	l.file = nil
	appendAll(t, l, "c")
	for _, id := range []string{"a", "b", "c"} {
		checkAgainstScan(t, l, id)
	}
}

// TestIndexConcurrentAppends appends from several goroutines at once and
// checks the index against the log for every id.
func TestIndexConcurrentAppends(t *testing.T) {
	l := newLog(t)
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 30 {
				if err := l.Append(context.Background(), record(fmt.Sprintf("g%d", g), fmt.Sprint(i))); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
	for g := range 4 {
		got, _, err := l.Find(context.Background(), fmt.Sprintf("g%d", g))
		if err != nil || len(got) != 30 {
			t.Errorf("Find(g%d) found %d records, %v; want 30", g, len(got), err)
		}
		checkAgainstScan(t, l, fmt.Sprintf("g%d", g))
	}
}

// FuzzIndexFile gives Find an arbitrary index file beside a real log: it
// must not fail or panic, and every record it returns must be one with
// the id asked for, at its line in the log.
func FuzzIndexFile(f *testing.F) {
	dir := f.TempDir()
	l := &Log{Path: dir + "/seed.jsonl"}
	for i, id := range []string{"a", "b", "a", "c"} {
		if err := l.Append(context.Background(), record(id, fmt.Sprint("p", i))); err != nil {
			f.Fatal(err)
		}
	}
	valid, err := os.ReadFile(l.Path + IndexSuffix)
	if err != nil {
		f.Fatal(err)
	}
	logData := readLogF(f, l.Path)
	f.Add(valid)
	f.Add(valid[:headerSize])
	f.Add([]byte(indexMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, idx []byte) {
		l := &Log{Path: t.TempDir() + "/audit.jsonl"}
		if err := os.WriteFile(l.Path, logData, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(l.Path+IndexSuffix, idx, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"a", "b", "c"} {
			got, _, err := l.Find(context.Background(), id)
			if err != nil {
				t.Fatalf("Find(%q): %v", id, err)
			}
			want, _, _ := l.scanFor(context.Background(), func(r *Record) bool { return r.CorrelationID == id })
			for _, e := range got {
				if e.Record.CorrelationID != id || !slices.ContainsFunc(want, func(w Entry) bool { return w.Line == e.Line }) {
					t.Fatalf("Find(%q) returned %s@%d, not a record of the log with that id", id, e.Record.CorrelationID, e.Line)
				}
			}
			if bytes.Equal(idx, valid) && found(got, nil) != found(want, nil) {
				t.Fatalf("with its own index, Find(%q) = %s, want %s", id, found(got, nil), found(want, nil))
			}
		}
	})
}

func readLogF(f *testing.F, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return data
}
