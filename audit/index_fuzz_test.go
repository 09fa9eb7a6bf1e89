package audit

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
)

// fuzzLog is a log of records, a line that is not one, a blank line and
// a last line without its '\n'.
func fuzzLog(tb testing.TB) []byte {
	var b bytes.Buffer
	for i, id := range []string{"x", "y", "x", `a"b`, "z"} {
		line, err := record(id, "prompt "+string(rune('0'+i))).Marshal()
		if err != nil {
			tb.Fatal(err)
		}
		b.Write(line)
		if i == 2 {
			b.WriteString("{\"task_ref\": torn\n\n")
		}
	}
	line, _ := record("w", "unfinished").Marshal()
	b.Write(line[:len(line)-1])
	return b.Bytes()
}

// fuzzIndex is the index of log: half its entries sorted, half in the
// tail.
func fuzzIndex(tb testing.TB, log []byte) []byte {
	col, err := indexLines(bytes.NewReader(log), 0, 0, "fuzz")
	if err != nil {
		tb.Fatal(err)
	}
	half := len(col.ents) / 2
	for !col.ents[half-1].isLast() {
		half++
	}
	base := slices.Clone(col.ents[:half])
	slices.SortFunc(base, cmpEntry)
	last := base[0]
	for _, e := range col.ents[:half] {
		if e.isLast() {
			last = e
		}
	}
	out := make([]byte, hdrSize)
	header{nBase: int64(half), end: last.end(), last: last}.put(out)
	eb := make([]byte, entSize)
	for _, e := range append(base, col.ents[half:]...) {
		e.put(eb)
		out = append(out, eb...)
	}
	return out
}

// FuzzIndex reads arbitrary bytes as the index of a known log, whose byte
// at is set to b when at is within it: no lookup may panic, every record
// and bad line a lookup answers with must be one of the log with the key
// asked for, and the log's own index must give the log's answer exactly.
//
// Its seeds are small, and the log is scanned once for each edit: the
// fuzzer minimizes each new input it finds interesting by trying to cut
// every run of its bytes, running the target each time.
func FuzzIndex(f *testing.F) {
	log := fuzzLog(f)
	idx := fuzzIndex(f, log)
	f.Add(idx, uint16(1<<15), byte(0))
	f.Add(idx, uint16(10), byte('X'))                       // the first line edited
	f.Add(idx, uint16(len(log)-5), byte('"'))               // the unfinished line
	f.Add(idx[:len(idx)-entSize/2], uint16(1<<15), byte(0)) // an unfinished write
	f.Add(idx[:hdrSize+entSize*3], uint16(1<<15), byte(0))  // cut short
	// Two of its entries again, not the whole index twice: a smaller
	// seed for the fuzzer to minimize what it finds from.
	f.Add(append(slices.Clone(idx), idx[hdrSize:hdrSize+entSize*2]...), uint16(1<<15), byte(0))
	f.Add([]byte(idxMagic), uint16(0), byte(0))
	f.Add([]byte{}, uint16(0), byte(0))
	keys := []struct {
		kind  byte
		value string
	}{{kindID, "x"}, {kindID, "y"}, {kindID, `a"b`}, {kindID, "z"}, {kindID, "w"}, {kindID, "none"}, {kindHash, record("", "prompt 1").AssembledPromptHash}}
	// What scanning the log gives for each key, by the edit made to it:
	// a scan decodes every line, and the fuzzer runs one input many times
	// over with the same edit while it minimizes the index.
	type answer struct {
		found []Entry
		bad   []BadLine
	}
	ctx := context.Background()
	scanned := map[int][]answer{}
	scan := func(t *testing.T, data []byte, edit int) []answer {
		if a, ok := scanned[edit]; ok {
			return a
		}
		a := make([]answer, len(keys))
		for i, k := range keys {
			found, bad, err := scanFind(ctx, bytes.NewReader(data), 0, 0, "fuzz", k.kind, k.value, nil)
			if err != nil {
				t.Fatal(err)
			}
			a[i] = answer{loadHits(t, bytes.NewReader(data), found), bad}
		}
		if len(scanned) >= 1<<12 {
			clear(scanned)
		}
		scanned[edit] = a
		return a
	}
	f.Fuzz(func(t *testing.T, index []byte, at uint16, b byte) {
		data := slices.Clone(log)
		edited := int(at) < len(data)
		if edited {
			data[at] = b
		}
		v, err := openView(bytes.NewReader(index), int64(len(index)))
		if err != nil {
			return
		}
		edit := -1
		if edited {
			edit = int(at)<<8 | int(b)
		}
		answers := scan(t, data, edit)
		for i, k := range keys {
			var rem collected
			hits, bad, err := indexedFind(ctx, bytes.NewReader(data), int64(len(data)), "fuzz", v, k.kind, k.value, &rem)
			want, wantBad := answers[i].found, answers[i].bad
			if err != nil {
				var bi *badIndex
				if !errors.As(err, &bi) {
					t.Fatalf("lookup of %q: %v, not a reason to distrust the index", k.value, err)
				}
				continue
			}
			found := loadHits(t, bytes.NewReader(data), hits)
			for _, e := range found {
				if !matches(k.kind, k.value, e.Record) || !slices.ContainsFunc(want, func(w Entry) bool { return sameRecord(w.Record, e.Record) }) {
					t.Fatalf("lookup of %q returned a record the log does not have with it: %+v", k.value, e.Record)
				}
			}
			for _, l := range bad {
				if !slices.ContainsFunc(wantBad, func(w BadLine) bool { return w.Err.Error() == l.Err.Error() }) {
					t.Fatalf("lookup of %q returned a bad line the log does not have: %d: %v", k.value, l.Line, l.Err)
				}
			}
			if !edited && bytes.Equal(index, idx) {
				if g, w := describe(found, bad), describe(want, wantBad); g != w {
					t.Fatalf("with its own index, lookup of %q = %s, want %s", k.value, g, w)
				}
			}
		}
	})
}

func sameRecord(a, b *Record) bool {
	x, _ := a.Marshal()
	y, _ := b.Marshal()
	return bytes.Equal(x, y)
}
