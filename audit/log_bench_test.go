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

// BenchmarkFind finds one correlation id in a log of 10,000 records, each
// with a 4 KB prompt (about 53 MB): a full scan that parses every line.
func BenchmarkFind(b *testing.B) {
	const n = 10_000
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "audit.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	var want string
	for i := range n {
		id := audit.NewCorrelationID()
		if i == n/2 {
			want = id
		}
		line, err := benchRecord(id).Marshal()
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
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	l := &audit.Log{Path: path}
	b.ReportAllocs()
	for b.Loop() {
		found, bad, err := l.Find(ctx, want)
		if err != nil || len(found) != 1 || len(bad) != 0 {
			b.Fatalf("Find: %d found, %d bad, %v", len(found), len(bad), err)
		}
	}
}
