package audit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/prompt"
)

// benchRecord returns a record like one a catalog assembly logs, with a
// prompt of about 4 KB.
func benchRecord(id string) *audit.Record {
	var b strings.Builder
	b.WriteString("# Clarification Questions Generator\n\nYou are operating under a certified role prompt.\n\n---\n\n")
	for i := 0; b.Len() < 4096; i++ {
		fmt.Fprintf(&b, "- Rule %d: ask only questions whose answers change what discovery must explore; never say \"I recommend\".\n", i)
	}
	text := b.String()[:4096]
	return &audit.Record{
		AssembledPrompt:     text,
		AssembledPromptHash: prompt.Hash(text),
		AssemblyTimestamp:   audit.Timestamp(time.Date(2026, 1, 22, 15, 30, 0, 0, time.UTC)),
		CorrelationID:       id,
		Preset:              "template",
		Name:                "pm_discovery.v1/pgc",
		Inputs:              json.RawMessage(`{"task_ref":"Clarification Questions Generator v1.0","includes_resolved":{"OUTPUT_SCHEMA":"seed/schemas/clarification_question_set.v2.json","PGC_CONTEXT":"seed/prompts/pgc-contexts/project_discovery.v1.txt"}}`),
		Sources: []prompt.Source{
			{Kind: prompt.SourceTemplate, Path: "seed/prompts/tasks/Clarification Questions Generator v1.0.txt", Hash: prompt.Hash("t"), End: len(text)},
			{Kind: prompt.SourceToken, Token: "PGC_CONTEXT", Path: "seed/prompts/pgc-contexts/project_discovery.v1.txt", Line: 7, Hash: prompt.Hash("c"), Start: 90, End: 400},
			{Kind: prompt.SourceToken, Token: "OUTPUT_SCHEMA", Path: "seed/schemas/clarification_question_set.v2.json", Line: 13, Hash: prompt.Hash("s"), Start: 420, End: 1200},
		},
		TesseraVersion: "0.1.0",
	}
}

// BenchmarkAppend appends a record with a 4 KB prompt to a log: open,
// lock, check the last byte, one write, close; with the index, also open
// it, read its header and last entries, read back the log's last indexed
// line to check it, write two entries and close it. No fsync (Log.Sync
// false).
//
// Target: the index adds under 50% to an append (it is a second file:
// about seven more system calls).
func BenchmarkAppend(b *testing.B) {
	for _, noIndex := range []bool{false, true} {
		name := "index"
		if noIndex {
			name = "noindex"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			l := &audit.Log{Path: filepath.Join(b.TempDir(), "logs", "audit.jsonl"), NoIndex: noIndex}
			r := benchRecord(audit.NewCorrelationID())
			b.ReportAllocs()
			for b.Loop() {
				if err := l.Append(ctx, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// writeLog writes a log of n records straight to path (no index) and
// returns its path and the correlation id of the record in the middle.
// Small records (a one-line prompt, about 250 bytes) keep a
// million-record log to about 250 MB; big ones have a 4 KB prompt.
func writeLog(b *testing.B, path string, n int, big bool) (string, string) {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var want string
	for i := range n {
		id := fmt.Sprintf("run-%08d", i)
		if i == n/2 {
			want = id
		}
		r := smallRecord(id, i)
		if big {
			r = benchRecord(id)
		}
		line, err := r.Marshal()
		if err != nil {
			b.Fatal(err)
		}
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path, want
}

// benchLogs caches the benchmarks' logs, which take seconds to write, for
// the life of the test binary; TestMain removes benchDir.
var (
	benchDir  string
	benchLogs = map[string]benchLog{}
)

type benchLog struct{ path, mid, tailID, midHash string }

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// cachedLog returns a log of n records (big: 4 KB prompts) and the id of
// the record in its middle, with its index built by a first lookup.
// With tail, the last n/17 of the records are appended one by one after
// the index is built, leaving its unsorted tail as long as it gets before
// it is merged into the sorted part (a sixteenth of it).
func cachedLog(b *testing.B, n int, big, tail bool) benchLog {
	b.Helper()
	key := fmt.Sprint(n, big, tail)
	if bl, ok := benchLogs[key]; ok {
		return bl
	}
	if benchDir == "" {
		var err error
		if benchDir, err = os.MkdirTemp("", "tessera-audit-bench-"); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	appended := 0
	if tail {
		appended = n / 17
	}
	path, mid := writeLog(b, filepath.Join(benchDir, key+".jsonl"), n-appended, big)
	l := &audit.Log{Path: path}
	found, _, err := l.Find(ctx, mid)
	if err != nil || len(found) != 1 {
		b.Fatalf("Find: %d found, %v", len(found), err)
	}
	bl := benchLog{path: path, mid: mid, midHash: found[0].Record.AssembledPromptHash}
	for i := range appended {
		bl.tailID = fmt.Sprintf("tail-%08d", i)
		if err := l.Append(ctx, smallRecord(bl.tailID, i)); err != nil {
			b.Fatal(err)
		}
	}
	benchLogs[key] = bl
	return bl
}

func smallRecord(id string, i int) *audit.Record {
	text := fmt.Sprint("prompt ", id, " ", i)
	return &audit.Record{AssemblyTimestamp: audit.Timestamp(time.Date(2026, 1, 22, 15, 30, 0, 0, time.UTC)), Preset: "template", TesseraVersion: "0.1.0",
		CorrelationID: id, AssembledPrompt: text, AssembledPromptHash: prompt.Hash(text)}
}

// BenchmarkFind finds one correlation id (or prompt hash) through the
// log's index: in 10,000 records with 4 KB prompts (53 MB), and in
// 1,000,000 small records (about 250 MB), with the index's tail empty
// (just built or merged) or as long as it gets (tail). "scan" is a
// lookup without the index (Log.NoIndex): every line read and parsed, as
// every lookup did before the index.
//
// Target: under 10 ms per indexed lookup at 1,000,000 records.
func BenchmarkFind(b *testing.B) {
	for _, c := range []struct {
		name      string
		n         int
		big, tail bool
		noIndex   bool
		hash      bool
		inTail    bool
	}{
		{name: "index/records=10000", n: 10_000, big: true},
		{name: "index/records=1000000", n: 1_000_000},
		{name: "index/records=1000000/hash", n: 1_000_000, hash: true},
		{name: "index/records=1000000/tail", n: 1_000_000, tail: true},
		{name: "index/records=1000000/tail/intail", n: 1_000_000, tail: true, inTail: true},
		{name: "scan/records=10000", n: 10_000, big: true, noIndex: true},
		{name: "scan/records=1000000", n: 1_000_000, noIndex: true},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			bl := cachedLog(b, c.n, c.big, c.tail)
			l := &audit.Log{Path: bl.path, NoIndex: c.noIndex}
			find := func() ([]audit.Entry, []audit.BadLine, error) { return l.Find(ctx, bl.mid) }
			switch {
			case c.hash:
				find = func() ([]audit.Entry, []audit.BadLine, error) { return l.FindHash(ctx, bl.midHash) }
			case c.inTail:
				find = func() ([]audit.Entry, []audit.BadLine, error) { return l.Find(ctx, bl.tailID) }
			}
			if c.noIndex {
				st, _ := os.Stat(bl.path)
				b.SetBytes(st.Size())
			}
			b.ReportAllocs()
			for b.Loop() {
				found, bad, err := find()
				if err != nil || len(found) != 1 || len(bad) != 0 {
					b.Fatalf("Find: %d found, %d bad, %v", len(found), len(bad), err)
				}
			}
		})
	}
}

// BenchmarkFindRebuild is a lookup in a log whose index is missing: it
// reads the whole log once, answers from it, and writes the index, as the
// first lookup after an upgrade, an edit of the log or a deleted index
// does. 10,000 records with 4 KB prompts (53 MB).
//
// Target: no more than 25% over the scan it replaces (BenchmarkFind/scan).
func BenchmarkFindRebuild(b *testing.B) {
	ctx := context.Background()
	bl := cachedLog(b, 10_000, true, false)
	l := &audit.Log{Path: bl.path}
	st, _ := os.Stat(bl.path)
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		if err := os.Remove(bl.path + audit.IndexSuffix); err != nil && !os.IsNotExist(err) {
			b.Fatal(err)
		}
		if found, _, err := l.Find(ctx, bl.mid); err != nil || len(found) != 1 {
			b.Fatalf("Find: %d found, %v", len(found), err)
		}
	}
}
