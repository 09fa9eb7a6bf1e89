package audit_test

import (
	"bufio"
	"context"
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
		TaskRef: "Clarification Questions Generator v1.0",
		IncludesResolved: map[string]string{
			"PGC_CONTEXT":   "seed/prompts/pgc-contexts/project_discovery.v1.txt",
			"OUTPUT_SCHEMA": "seed/schemas/clarification_question_set.v2.json",
		},
		AssembledPrompt:     text,
		AssembledPromptHash: prompt.Hash(text),
		AssemblyTimestamp:   audit.Timestamp(time.Date(2026, 1, 22, 15, 30, 0, 0, time.UTC)),
		CorrelationID:       id,
		WorkflowID:          "pm_discovery.v1",
		NodeID:              "pgc",
		Preset:              "template",
		Sources: []prompt.Source{
			{Kind: prompt.SourceTemplate, Path: "seed/prompts/tasks/Clarification Questions Generator v1.0.txt", Hash: prompt.Hash("t"), End: len(text)},
			{Kind: prompt.SourceToken, Token: "PGC_CONTEXT", Path: "seed/prompts/pgc-contexts/project_discovery.v1.txt", Line: 7, Hash: prompt.Hash("c"), Start: 90, End: 400},
			{Kind: prompt.SourceToken, Token: "OUTPUT_SCHEMA", Path: "seed/schemas/clarification_question_set.v2.json", Line: 13, Hash: prompt.Hash("s"), Start: 420, End: 1200},
		},
		TesseraVersion: "0.1.0",
	}
}

// BenchmarkAppend appends a record with a 4 KB prompt to a log: open,
// lock, check the last byte, one write, close. No fsync (Log.Sync false).
func BenchmarkAppend(b *testing.B) {
	ctx := context.Background()
	l := &audit.Log{Path: filepath.Join(b.TempDir(), "logs", "audit.jsonl")}
	r := benchRecord(audit.NewCorrelationID())
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Append(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
}

// writeBenchLog writes a log of n records straight to disk (no index)
// and returns its path and the correlation id of the record in the
// middle. Small records (a one-line prompt, about 250 bytes) keep a
// million-record log to about 250 MB; big ones have a 4 KB prompt.
func writeBenchLog(b *testing.B, n int, big bool) (string, string) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "audit.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var want string
	small := &audit.Record{AssemblyTimestamp: audit.Timestamp(time.Date(2026, 1, 22, 15, 30, 0, 0, time.UTC)), Preset: "template", TesseraVersion: "0.1.0"}
	for i := range n {
		id := fmt.Sprintf("run-%08d", i)
		if i == n/2 {
			want = id
		}
		r := small
		if big {
			r = benchRecord(id)
		} else {
			r.CorrelationID, r.AssembledPrompt = id, fmt.Sprint("prompt ", i)
			r.AssembledPromptHash = prompt.Hash(r.AssembledPrompt)
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

// BenchmarkFind finds one correlation id through the log's index, which
// the first lookup builds: in 10,000 records with 4 KB prompts (53 MB),
// and in 1,000,000 small records (about 250 MB).
//
// Target: under 10 ms per lookup at 1,000,000 records.
func BenchmarkFind(b *testing.B) {
	for _, c := range []struct {
		n   int
		big bool
	}{{10_000, true}, {1_000_000, false}} {
		b.Run(fmt.Sprintf("records=%d", c.n), func(b *testing.B) {
			ctx := context.Background()
			path, want := writeBenchLog(b, c.n, c.big)
			l := &audit.Log{Path: path}
			if found, _, err := l.Find(ctx, want); err != nil || len(found) != 1 {
				b.Fatalf("Find: %d found, %v", len(found), err)
			}
			b.ReportAllocs()
			for b.Loop() {
				found, bad, err := l.Find(ctx, want)
				if err != nil || len(found) != 1 || len(bad) != 0 {
					b.Fatalf("Find: %d found, %d bad, %v", len(found), len(bad), err)
				}
			}
		})
	}
}

// BenchmarkFindRebuild is a lookup in a log whose index is missing: it
// reads the whole log once to build the index, as the first lookup after
// an upgrade, an edit of the log or a deleted index does. 10,000
// records with 4 KB prompts (53 MB).
func BenchmarkFindRebuild(b *testing.B) {
	ctx := context.Background()
	path, want := writeBenchLog(b, 10_000, true)
	l := &audit.Log{Path: path}
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		if err := os.Remove(path + audit.IndexSuffix); err != nil && !os.IsNotExist(err) {
			b.Fatal(err)
		}
		if found, _, err := l.Find(ctx, want); err != nil || len(found) != 1 {
			b.Fatalf("Find: %d found, %v", len(found), err)
		}
	}
}

// BenchmarkScan is what a lookup cost before the index: parse every
// record of 10,000 with 4 KB prompts (53 MB) and compare its id.
func BenchmarkScan(b *testing.B) {
	ctx := context.Background()
	path, want := writeBenchLog(b, 10_000, true)
	l := &audit.Log{Path: path}
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		err := l.Scan(ctx, func(e audit.Entry, err error) error {
			if err == nil && e.Record.CorrelationID == want {
				n++
			}
			return nil
		})
		if err != nil || n != 1 {
			b.Fatalf("Scan: %d found, %v", n, err)
		}
	}
}
