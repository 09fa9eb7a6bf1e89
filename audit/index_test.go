package audit

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-dev/tessera/prompt"
)

// describe lists a lookup's answer as "id@line" for each record and
// "bad@line: reason" for each line that is not one.
// loadHits reads the records of hits from log.
func loadHits(t testing.TB, log io.ReaderAt, hits []hit) []Entry {
	t.Helper()
	var buf []byte
	out := make([]Entry, 0, len(hits))
	for _, h := range hits {
		e, err := h.load(log, &buf)
		if err != nil {
			t.Fatalf("cannot read a record found again: %v", err)
		}
		out = append(out, e)
	}
	return out
}

// logReader opens the log at path for loadHits.
func logReader(t testing.TB, path string) io.ReaderAt {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(data)
}

func describe(found []Entry, bad []BadLine) string {
	var b strings.Builder
	for _, e := range found {
		fmt.Fprintf(&b, "%s@%d ", e.Record.CorrelationID, e.Line)
	}
	for _, l := range bad {
		fmt.Fprintf(&b, "bad@%d: %v; ", l.Line, l.Err)
	}
	return b.String()
}

// lookup looks value up as kind through the index and fails t unless the
// answer is the one reading the whole log gives. It returns how the
// answer was reached.
func lookup(t *testing.T, l *Log, kind byte, value string) lookupInfo {
	t.Helper()
	ctx := context.Background()
	got, gotBad, info, err := l.find(ctx, kind, value)
	if err != nil {
		t.Fatalf("lookup of %q: %v", value, err)
	}
	want, wantBad, _, err := (&Log{Path: l.Path, NoIndex: true}).find(ctx, kind, value)
	if err != nil {
		t.Fatal(err)
	}
	r := logReader(t, l.Path)
	if g, w := describe(loadHits(t, r, got), gotBad), describe(loadHits(t, r, want), wantBad); g != w {
		t.Errorf("lookup of %q = %s\nthe whole log says %s", value, g, w)
	}
	return info
}

// wholeIndex reads every entry of l's index, checking that the sorted
// part is sorted and the tail in order.
func wholeIndex(t testing.TB, l *Log) (*indexView, []entry) {
	t.Helper()
	data, err := os.ReadFile(l.indexPath())
	if err != nil {
		t.Fatal(err)
	}
	v, err := openView(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("index: %v", err)
	}
	var all []entry
	for i := range v.hdr.nBase {
		e, ok := getEntry(data[hdrSize+i*entSize:])
		if !ok {
			t.Fatalf("entry %d of the sorted part is damaged", i)
		}
		if i > 0 && cmpEntry(all[i-1], e) > 0 {
			t.Fatalf("the sorted part is not sorted at %d", i)
		}
		all = append(all, e)
	}
	if err := v.scanTail(nil, func(e entry) { all = append(all, e) }); err != nil {
		t.Fatalf("index: %v", err)
	}
	return v, all
}

// checkIndex fails t unless l's index holds exactly the entries of every
// complete line of the log, and covers it to its last one.
func checkIndex(t *testing.T, l *Log) *indexView {
	t.Helper()
	v, got := wholeIndex(t, l)
	f, err := os.Open(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	col, err := indexLines(f, 0, 0, l.Path)
	if err != nil {
		t.Fatal(err)
	}
	if v.covered != col.end {
		t.Errorf("the index covers %d bytes of the log; its lines end at %d", v.covered, col.end)
	}
	want := col.ents
	slices.SortFunc(got, cmpEntry)
	slices.SortFunc(want, cmpEntry)
	if !slices.Equal(got, want) {
		t.Errorf("the index has %d entries, the log's lines %d:\n got %v\nwant %v", len(got), len(want), got, want)
	}
	return v
}

// appendIDs appends a record for each id, each with its own prompt.
func appendIDs(t *testing.T, l *Log, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if err := l.Append(context.Background(), record(id, "prompt of "+id+" "+strconv.Itoa(len(id)))); err != nil {
			t.Fatal(err)
		}
	}
}

// warnings collects what l's Warn is told.
func warnings(l *Log) *[]string {
	var mu sync.Mutex
	var ws []string
	l.Warn = func(err error) {
		mu.Lock()
		ws = append(ws, err.Error())
		mu.Unlock()
	}
	return &ws
}

// withIndexFault makes the index's writes go through ff.
func withIndexFault(l *Log, ff faultyFile) {
	l.index = func(f *os.File) logFile {
		ff := ff
		ff.File = f
		return &ff
	}
}

// files lists the names in dir.
func files(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

// Every append indexes its record by id and by prompt hash, at its line;
// lookups then read only the lines they return, and one for a key no
// record has reads the log to be sure, without writing the index again.
// Ids that JSON must escape are found like any other.
func TestIndexKeptOnAppend(t *testing.T) {
	l := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
	ws := warnings(l)
	ids := []string{"x", "y", "x", `a"b`, `run\1`, "é-ü", "</script>", "x"}
	for i, id := range ids {
		appendIDs(t, l, id)
		if v := checkIndex(t, l); v.nTail != int64(2*(i+1)) {
			t.Errorf("after %d appends the tail has %d entries", i+1, v.nTail)
		}
	}
	for _, id := range ids {
		if info := lookup(t, l, kindID, id); !info.indexed || info.scanned != "" || info.rebuilt {
			t.Errorf("lookup of %q: %+v, want an answer from the index alone", id, info)
		}
	}
	got, _, err := l.Find(context.Background(), "x")
	if err != nil || describe(got, nil) != "x@1 x@3 x@8 " {
		t.Errorf("Find(x) = %s, %v", describe(got, nil), err)
	}
	h := record(`a"b`, "prompt of a\"b 3").AssembledPromptHash
	if info := lookup(t, l, kindHash, h); !info.indexed {
		t.Errorf("lookup by hash: %+v", info)
	}
	if byHash, _, err := l.FindHash(context.Background(), h); err != nil || describe(byHash, nil) != `a"b@4 ` {
		t.Errorf("FindHash = %s, %v", describe(byHash, nil), err)
	}
	before := readLog(t, l.indexPath())
	if info := lookup(t, l, kindID, "absent"); info.indexed || info.scanned != whyMiss || info.rebuilt {
		t.Errorf("lookup of an absent id: %+v", info)
	}
	if !bytes.Equal(readLog(t, l.indexPath()), before) {
		t.Error("a lookup of an absent id wrote the index")
	}
	if len(*ws) != 0 {
		t.Errorf("warnings: %q", *ws)
	}
}

// A record with the same prompt as others is found with them by hash.
func TestIndexHash(t *testing.T) {
	ctx := context.Background()
	l := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
	for _, id := range []string{"a", "b", "c"} {
		if err := l.Append(ctx, record(id, "the same prompt")); err != nil {
			t.Fatal(err)
		}
	}
	appendIDs(t, l, "d")
	h := record("", "the same prompt").AssembledPromptHash
	if info := lookup(t, l, kindHash, h); !info.indexed {
		t.Errorf("lookup by hash: %+v", info)
	}
	rep, err := ReplayHash(ctx, l, h, func(_ context.Context, r *Record) (*prompt.Prompt, error) {
		return &prompt.Prompt{Text: r.AssembledPrompt, Hash: prompt.Hash(r.AssembledPrompt)}, nil
	})
	if err != nil || !rep.OK() || len(rep.Verdicts) != 3 || rep.Verdicts[2].Line != 3 {
		t.Errorf("ReplayHash: %+v, %v", rep, err)
	}
	if _, err := ReplayHash(ctx, l, "0000", nil); err == nil || err.Error() != "no record with prompt hash 0000 in "+l.Path {
		t.Errorf("ReplayHash of an unknown hash: %v", err)
	}
}

// An index that is missing, damaged, or not the log's any more is built
// again by the next lookup, whose answer is the log's; lines appended
// without it are added to it. Appends keep the index it leaves.
func TestIndexRebuilt(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		spoil   func(t *testing.T, l *Log)
		rebuilt bool // else the lookup answers from the index
		first   string
	}{
		{"missing", func(t *testing.T, l *Log) { os.Remove(l.indexPath()) }, true, ""},
		{"empty", func(t *testing.T, l *Log) { os.WriteFile(l.indexPath(), nil, 0o644) }, true, ""},
		{"garbage", func(t *testing.T, l *Log) {
			os.WriteFile(l.indexPath(), []byte("not an index at all, but long enough to hold a header or two of bytes"), 0o644)
		}, true, ""},
		{"header cut short", func(t *testing.T, l *Log) { os.Truncate(l.indexPath(), hdrSize-1) }, true, ""},
		{"header damaged", func(t *testing.T, l *Log) { flip(t, l.indexPath(), 17) }, true, ""},
		{"sorted entry damaged", func(t *testing.T, l *Log) { flip(t, l.indexPath(), hdrSize+3) }, true, ""},
		{"tail entry damaged", func(t *testing.T, l *Log) { flip(t, l.indexPath(), -40) }, true, ""},
		{"directory", func(t *testing.T, l *Log) { os.Remove(l.indexPath()); os.Mkdir(l.indexPath(), 0o755) }, false, ""},
		{"log appended without it", func(t *testing.T, l *Log) {
			appendIDs(t, &Log{Path: l.Path, NoIndex: true}, "x", "w")
		}, false, ""},
		{"log rewritten, same length", func(t *testing.T, l *Log) {
			data := readLog(t, l.Path)
			data = bytes.Replace(data, []byte(`"correlation_id":"y"`), []byte(`"correlation_id":"z"`), -1)
			os.WriteFile(l.Path, data, 0o644)
		}, true, "y"}, // the lines of x, and the last line, are as they were
		{"log cut to a line", func(t *testing.T, l *Log) {
			data := readLog(t, l.Path)
			os.WriteFile(l.Path, data[:bytes.IndexByte(data, '\n')+1], 0o644)
		}, true, ""},
		{"log cut mid-line", func(t *testing.T, l *Log) {
			data := readLog(t, l.Path)
			os.WriteFile(l.Path, data[:len(data)-30], 0o644)
		}, true, ""},
		{"log cut, then longer than before", func(t *testing.T, l *Log) {
			data := readLog(t, l.Path)
			os.WriteFile(l.Path, data[:bytes.IndexByte(data, '\n')+1], 0o644)
			appendIDs(t, &Log{Path: l.Path, NoIndex: true}, "a-much-longer-id-than-before", "x", "y", "z")
		}, true, ""},
		{"another log", func(t *testing.T, l *Log) {
			other := &Log{Path: filepath.Join(t.TempDir(), "other.jsonl"), NoIndex: true}
			appendIDs(t, other, "y", "x", "q", "q", "q", "q", "q", "x")
			os.Rename(other.Path, l.Path)
		}, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
			appendIDs(t, l, "x", "y", "x")
			// A lookup after a missing index leaves a sorted part.
			os.Remove(l.indexPath())
			lookup(t, l, kindID, "x")
			appendIDs(t, l, "y", "x")
			c.spoil(t, l)
			ws := warnings(l)
			info := lookup(t, l, kindID, cmp.Or(c.first, "x"))
			if info.rebuilt != c.rebuilt || c.rebuilt && info.scanned == "" {
				t.Errorf("lookup: %+v", info)
			}
			for _, id := range []string{"x", "y", "z", "w"} {
				lookup(t, l, kindID, id)
			}
			if c.name == "directory" {
				if len(*ws) == 0 || !strings.Contains((*ws)[0], "audit index "+l.indexPath()+": cannot write it") {
					t.Errorf("warnings: %q", *ws)
				}
				return
			}
			checkIndex(t, l)
			appendIDs(t, l, "y")
			checkIndex(t, l)
			if info := lookup(t, l, kindID, "y"); !info.indexed {
				t.Errorf("after the rebuild and an append: %+v", info)
			}
			if _, _, err := l.Find(ctx, "x"); err != nil {
				t.Fatal(err)
			}
			if len(*ws) != 0 {
				t.Errorf("warnings: %q", *ws)
			}
		})
	}
}

// flip changes the byte at off in the file (from the end if negative).
func flip(t *testing.T, path string, off int) {
	t.Helper()
	data := readLog(t, path)
	if off < 0 {
		off += len(data)
	}
	data[off] ^= 0x5a
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeIndex writes an index of l with the given sorted part (sorted
// here) and tail, covering the log to end.
func writeIndex(t *testing.T, l *Log, base, tail []entry, end int64, last entry) {
	t.Helper()
	slices.SortFunc(base, cmpEntry)
	var b bytes.Buffer
	hb := make([]byte, hdrSize)
	header{nBase: int64(len(base)), end: end, last: last}.put(hb)
	b.Write(hb)
	eb := make([]byte, entSize)
	for _, e := range append(base, tail...) {
		e.put(eb)
		b.Write(eb)
	}
	if err := os.WriteFile(l.indexPath(), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// An index whose entries are whole but wrong (pointing at another record,
// mid-line, past the log, at a line that is not what was indexed, or
// calling a record a bad line and a bad line a record) is caught by the
// lines it points at: the answer comes from the log, and the index is
// built again.
func TestIndexLies(t *testing.T) {
	l := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
	appendIDs(t, l, "x", "y", "z", "x")
	tear(t, l)
	appendIDs(t, l, "w")
	f, err := os.Open(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	col, err := indexLines(f, 0, 0, l.Path)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	truth := col.ents
	at := func(id string) entry { // the id entry of id's first record
		i := slices.IndexFunc(truth, func(e entry) bool { return e.kindOf() == kindID && e.key == keyOf(kindID, id) })
		return truth[i]
	}
	for _, c := range []struct {
		name string
		lie  func(e entry) entry // applied to every entry
	}{
		{"x at z", func(e entry) entry {
			if e.key == keyOf(kindID, "x") {
				z := at("z")
				e.off, e.line, e.n, e.crc = z.off, z.line, z.n, z.crc
			}
			return e
		}},
		{"x mid-line", func(e entry) entry {
			if e.key == keyOf(kindID, "x") {
				e.off += 5
			}
			return e
		}},
		{"x past the log", func(e entry) entry {
			if e.key == keyOf(kindID, "x") {
				e.off += 1 << 20
			}
			return e
		}},
		{"x's line changed", func(e entry) entry {
			if e.key == keyOf(kindID, "x") {
				e.crc++
			}
			return e
		}},
		{"z is a bad line", func(e entry) entry {
			if e.key == keyOf(kindID, "z") {
				e.key, e.kind = 0, kindBad|lastOfLine
			}
			return e
		}},
		{"the bad line is x", func(e entry) entry {
			if e.kindOf() == kindBad {
				e.key, e.kind = keyOf(kindID, "x"), kindID|lastOfLine
			}
			return e
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var lying []entry
			for _, e := range truth {
				lying = append(lying, c.lie(e))
			}
			// Half the entries sorted, half in the tail.
			half := len(lying) / 2
			for half < len(lying) && !lying[half-1].isLast() {
				half++
			}
			writeIndex(t, l, slices.Clone(lying[:half]), lying[half:], col.end, col.last)
			for _, id := range []string{"x", "z"} {
				lookup(t, l, kindID, id)
			}
			checkIndex(t, l)
		})
	}
}

// Entries of an index write that did not finish (part of an entry, or a
// line's entries without its last) are not believed: a lookup reads the
// line they were for from the log, and the next append cuts them off.
func TestIndexUnfinishedWrite(t *testing.T) {
	for _, c := range []struct {
		name string
		tail func(full []byte) []byte // given the next append's entries
	}{
		{"part of an entry", func(full []byte) []byte { return full[:entSize/2] }},
		{"a line without its last entry", func(full []byte) []byte { return full[:entSize] }},
		{"zeros", func(full []byte) []byte { return make([]byte, len(full)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
			appendIDs(t, l, "x", "y")
			// Append "z" to the log alone, and the start of its entries
			// to the index, as a crash between the two writes leaves.
			before := readLog(t, l.indexPath())
			appendIDs(t, l, "z")
			full := readLog(t, l.indexPath())[len(before):]
			spoilt := append(slices.Clone(before), c.tail(full)...)
			if err := os.WriteFile(l.indexPath(), spoilt, 0o644); err != nil {
				t.Fatal(err)
			}
			if info := lookup(t, l, kindID, "z"); !info.indexed || info.rebuilt {
				t.Errorf("lookup: %+v", info)
			}
			checkIndex(t, l) // the lookup added z
			os.WriteFile(l.indexPath(), spoilt, 0o644)
			appendIDs(t, l, "w")
			checkIndex(t, l) // the append cut the unfinished write off and added z and w
		})
	}
}

// A log whose last line is torn: the lookup reports it as a scan does,
// the index leaves it out until the next append ends it, and then has it
// as a bad line.
func TestIndexTornLine(t *testing.T) {
	l := newLog(t)
	tear(t, l)
	lookup(t, l, kindID, "a")
	lookup(t, l, kindID, "torn")
	checkIndex(t, l)
	appendIDs(t, l, "c", "d")
	checkIndex(t, l)
	if info := lookup(t, l, kindID, "c"); !info.indexed {
		t.Errorf("lookup: %+v", info)
	}
	_, bad, err := l.Find(context.Background(), "d")
	if err != nil || len(bad) != 1 || bad[0].Line != 3 {
		t.Errorf("bad lines %+v, %v; want line 3", bad, err)
	}
}

// setCompaction makes the tail merge into the sorted part sooner.
func setCompaction(t *testing.T, min, div int64) {
	oldMin, oldDiv := compactMin, compactDiv
	compactMin, compactDiv = min, div
	t.Cleanup(func() { compactMin, compactDiv = oldMin, oldDiv })
}

// Past its limit, the tail is merged into the sorted part; every record
// is still found from the index alone.
func TestIndexCompaction(t *testing.T) {
	setCompaction(t, 8, 4)
	l := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
	ws := warnings(l)
	merges := 0
	prev := int64(0)
	for i := range 150 {
		appendIDs(t, l, fmt.Sprintf("id-%d", i%37))
		v, _ := wholeIndex(t, l)
		if v.hdr.nBase != prev {
			merges++
			prev = v.hdr.nBase
		}
		if v.nTail > max(8, v.hdr.nBase/4) {
			t.Fatalf("after %d appends the tail has %d entries, the sorted part %d", i+1, v.nTail, v.hdr.nBase)
		}
	}
	if merges < 5 {
		t.Errorf("%d merges in 150 appends", merges)
	}
	checkIndex(t, l)
	for _, id := range []string{"id-0", "id-17", "id-36", "id-37"} {
		if info := lookup(t, l, kindID, id); info.indexed != (id != "id-37") {
			t.Errorf("lookup of %s: %+v", id, info)
		}
	}
	if len(*ws) != 0 {
		t.Errorf("warnings: %q", *ws)
	}
	if got := files(t, filepath.Dir(l.Path)); got != "audit.jsonl audit.jsonl.idx" {
		t.Errorf("files beside the log: %s", got)
	}
}

// A failed index write never fails the append: the record is logged, Warn
// is told, no temporary file is left, and the next lookup or append
// mends the index.
func TestIndexWriteFaults(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		fault faultyFile
		setup func(t *testing.T, l *Log)
		warn  string
	}{
		{"tail, no room", faultyFile{room: 0}, nil, "the record is in the log but not in its index (no space left on device)"},
		{"tail, one entry and a half", faultyFile{room: entSize * 3 / 2}, nil, "no space left on device"},
		{"tail, cannot cut back", faultyFile{room: entSize * 3 / 2, truncErr: errors.New("read-only file system")}, nil, "no space left on device"},
		{"new index", faultyFile{room: 10}, func(t *testing.T, l *Log) { os.Remove(l.Path); os.Remove(l.indexPath()) }, "no space left on device"},
		{"merge, sync", faultyFile{room: 1 << 20, syncErr: errors.New("input/output error")}, func(t *testing.T, l *Log) {
			setCompaction(t, 5, 1000) // the next append's two entries make 6
		}, "input/output error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
			appendIDs(t, l, "a", "b")
			if c.setup != nil {
				c.setup(t, l)
			}
			ws := warnings(l)
			withIndexFault(l, c.fault)
			if err := l.Append(ctx, record("c", "prompt c")); err != nil {
				t.Fatalf("the append failed with the index: %v", err)
			}
			if len(*ws) != 1 || !strings.Contains((*ws)[0], "audit index "+l.indexPath()+": ") || !strings.Contains((*ws)[0], c.warn) {
				t.Errorf("warnings %q, want one about %s", *ws, c.warn)
			}
			if got := files(t, filepath.Dir(l.Path)); strings.Contains(got, ".tmp") {
				t.Errorf("files beside the log: %s", got)
			}
			l.index, l.Warn = nil, nil
			if info := lookup(t, l, kindID, "c"); info.scanned != "" && !info.rebuilt {
				t.Errorf("lookup: %+v", info)
			}
			appendIDs(t, l, "d")
			checkIndex(t, l)
		})
	}
}

// A lookup that cannot write the index it rebuilt still answers from the
// log, says so to Warn, and leaves nothing behind.
func TestIndexRebuildFault(t *testing.T) {
	l := newLog(t)
	os.Remove(l.indexPath())
	ws := warnings(l)
	withIndexFault(l, faultyFile{room: 100})
	if info := lookup(t, l, kindID, "a"); info.rebuilt || info.scanned == "" {
		t.Errorf("lookup: %+v", info)
	}
	if len(*ws) != 1 || !strings.Contains((*ws)[0], "audit index "+l.indexPath()+": cannot write it (no space left on device), so lookups in "+l.Path+" read the whole log") {
		t.Errorf("warnings: %q", *ws)
	}
	if got := files(t, filepath.Dir(l.Path)); got != "audit.jsonl" {
		t.Errorf("files beside the log: %s", got)
	}
}

// An append that fails leaves the index byte for byte as it was, and the
// record that was not logged is not indexed.
func TestIndexAfterFailedAppend(t *testing.T) {
	l := newLog(t)
	before := readLog(t, l.indexPath())
	withFault(l, faultyFile{room: 10})
	if err := l.Append(context.Background(), record("c", "never logged")); err == nil {
		t.Fatal("the faulty append succeeded")
	}
	if !bytes.Equal(readLog(t, l.indexPath()), before) {
		t.Error("a failed append changed the index")
	}
	l.file = nil
	appendIDs(t, l, "d")
	checkIndex(t, l)
	for _, id := range []string{"a", "c", "d"} {
		lookup(t, l, kindID, id)
	}
}

// An index path that is a link is never written through: the lookup puts
// a file of its own in the link's place.
func TestIndexLink(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	if err := os.WriteFile(outside, []byte("not yours"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &Log{Path: filepath.Join(dir, "audit.jsonl"), NoIndex: true}
	appendIDs(t, l, "a")
	if err := os.Symlink(outside, l.indexPath()); err != nil {
		t.Skip(err)
	}
	l.NoIndex = false
	appendIDs(t, l, "b")
	lookup(t, l, kindID, "a")
	appendIDs(t, l, "c")
	if data := readLog(t, outside); string(data) != "not yours" {
		t.Errorf("the link's target was written: %q", data)
	}
	if fi, err := os.Lstat(l.indexPath()); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("index: %v, %v", fi, err)
	}
	checkIndex(t, l)
}

// The index has the log's permissions; a log with NoIndex has none.
func TestIndexModeAndNoIndex(t *testing.T) {
	l := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
	appendIDs(t, l, "a")
	os.Chmod(l.Path, 0o600)
	os.Remove(l.indexPath())
	lookup(t, l, kindID, "a")
	if fi, err := os.Stat(l.indexPath()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("index: %v, %v; want mode 0600 like the log", fi, err)
	}
	n := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl"), NoIndex: true}
	appendIDs(t, n, "a")
	if info := lookup(t, n, kindID, "a"); info.scanned == "" {
		t.Errorf("lookup: %+v", info)
	}
	if got := files(t, filepath.Dir(n.Path)); got != "audit.jsonl" {
		t.Errorf("files beside a log without an index: %s", got)
	}
}

// Appends from goroutines and processes, merges of the tail, and lookups
// that add to the index or build it again, all at once: the index ends
// up holding every line of the log, and every lookup along the way
// answers with records of the log.
func TestIndexConcurrent(t *testing.T) {
	setCompaction(t, 4, 2)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const procs, goroutines, perWriter = 2, 3, 40
	var cmds []*exec.Cmd
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperIndexAppend$")
		cmd.Env = append(childEnv(), "AUDIT_INDEX_HELPER_LOG="+path, "AUDIT_INDEX_HELPER_ID=p"+strconv.Itoa(p), "AUDIT_INDEX_HELPER_N="+strconv.Itoa(perWriter))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	l := &Log{Path: path}
	ws := warnings(l)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perWriter {
				if err := l.Append(ctx, record(fmt.Sprintf("g%d-%d", g, i%4), fmt.Sprint("g", g, " ", i))); err != nil {
					t.Error(err)
				}
			}
		})
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	readers.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if i%7 == 3 {
				os.Remove(l.indexPath()) // a lookup builds it again, with appends under way
			}
			id := fmt.Sprintf("g%d-%d", i%goroutines, i%4)
			found, _, err := l.Find(ctx, id)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Error(err)
				return
			}
			for _, e := range found {
				if e.Record.CorrelationID != id {
					t.Errorf("Find(%s) returned %s at line %d", id, e.Record.CorrelationID, e.Line)
				}
			}
		}
	})
	wg.Wait()
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	readers.Wait()
	lookup(t, l, kindID, "g0-0")
	checkIndex(t, l)
	for g := range goroutines {
		for k := range 4 {
			id := fmt.Sprintf("g%d-%d", g, k)
			if found, _, err := l.Find(ctx, id); err != nil || len(found) != perWriter/4 {
				t.Errorf("Find(%s): %d records, %v; want %d", id, len(found), err, perWriter/4)
			}
		}
	}
	for p := range procs {
		id := fmt.Sprintf("p%d", p)
		if info := lookup(t, l, kindID, id); !info.indexed {
			t.Errorf("lookup of %s: %+v", id, info)
		}
		if found, _, _ := l.Find(ctx, id); len(found) != perWriter {
			t.Errorf("Find(%s): %d records, want %d", id, len(found), perWriter)
		}
	}
	for _, w := range *ws {
		t.Errorf("warning: %s", w)
	}
}

func TestHelperIndexAppend(t *testing.T) {
	path := os.Getenv("AUDIT_INDEX_HELPER_LOG")
	if path == "" {
		t.Skip("helper process for TestIndexConcurrent")
	}
	compactMin, compactDiv = 4, 2
	n, _ := strconv.Atoi(os.Getenv("AUDIT_INDEX_HELPER_N"))
	l := &Log{Path: path, Warn: func(err error) { t.Error(err) }}
	id := os.Getenv("AUDIT_INDEX_HELPER_ID")
	for i := range n {
		if err := l.Append(context.Background(), record(id, fmt.Sprint(id, " ", i))); err != nil {
			t.Fatal(err)
		}
	}
}

// A temporary index left by a process killed while writing it is removed
// the next time a temporary index is made; one of a process still
// running, and other names, are left alone.
func TestIndexTempLeftovers(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("whether another process runs is not asked here")
	}
	dir := t.TempDir()
	l := &Log{Path: filepath.Join(dir, "audit.jsonl")}
	// A process that has exited: its id is free.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = childEnv()
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.Process.Pid
	leftovers := map[string]bool{ // name: removed
		fmt.Sprintf("audit.jsonl.idx.%d-123.tmp", dead):         true,
		fmt.Sprintf("audit.jsonl.idx.%d-456.tmp", os.Getppid()): false, // running
		fmt.Sprintf("audit.jsonl.idx.%d-789.tmp", os.Getpid()):  false, // this process
		fmt.Sprintf("other.jsonl.idx.%d-123.tmp", dead):         false,
		"audit.jsonl.idx.x-1.tmp":                               false,
		fmt.Sprintf("audit.jsonl.idx.%d-123.bak", dead):         false,
	}
	for name := range leftovers {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := warnings(l)
	appendIDs(t, l, "a") // the first record makes a new index
	for name, removed := range leftovers {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := errors.Is(err, fs.ErrNotExist); gone != removed {
			t.Errorf("%s: removed %v, want %v", name, gone, removed)
		}
	}
	if len(*ws) != 0 {
		t.Errorf("warnings: %q", *ws)
	}
	checkIndex(t, l)
}
