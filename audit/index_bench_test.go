package audit

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// BenchmarkCompact is the merge an append makes when the index's tail has
// grown past a sixteenth of its sorted part, at the size of a log of
// 1,000,000 records: 2,000,000 sorted entries and 125,001 in the tail,
// read, merged and written to a new file (synced) that replaces the old.
// It happens once every 62,500 appends at that size; the append that
// makes it waits for it, with the log locked.
//
// Target: under 1 s, so that it costs appends under 20 µs each on average.
func BenchmarkCompact(b *testing.B) {
	const nBase, nTail = 2_000_000, 125_001
	dir := b.TempDir()
	l := &Log{Path: filepath.Join(dir, "audit.jsonl")}
	src := filepath.Join(dir, "source.idx")
	f, err := os.Create(src)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	at := func(i int64) entry { // line i's id entry: keys spread, lines in order
		return entry{key: uint64(i) * 0x9e3779b97f4a7c15, kind: kindID | lastOfLine, off: i * 250, line: i + 1, n: 250, crc: uint32(i)}
	}
	base := make([]entry, nBase)
	for i := range base {
		base[i] = at(int64(i))
	}
	slices.SortFunc(base, cmpEntry)
	hb := make([]byte, hdrSize)
	header{nBase: nBase, end: at(nBase - 1).end(), last: at(nBase - 1)}.put(hb)
	w.Write(hb)
	eb := make([]byte, entSize)
	for _, e := range base {
		e.put(eb)
		w.Write(eb)
	}
	for i := range int64(nTail) {
		at(nBase + i).put(eb)
		w.Write(eb)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		if err := os.WriteFile(l.indexPath(), data, 0o644); err != nil {
			b.Fatal(err)
		}
		x, err := os.OpenFile(l.indexPath(), os.O_RDWR, 0)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		err = l.maybeCompact(x, x, nBase, nTail)
		b.StopTimer()
		x.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	v, all := wholeIndex(b, l)
	if v.hdr.nBase != nBase+nTail || v.nTail != 0 || len(all) != nBase+nTail {
		b.Fatalf("after the merge: %d sorted, %d in the tail", v.hdr.nBase, v.nTail)
	}
}
