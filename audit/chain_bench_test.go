package audit_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tessera-dev/tessera/audit"
)

// BenchmarkAppendSigned is BenchmarkAppend/index with a key: the chain
// (reading the log's last line back and hashing it) and the signature
// (an HMAC of the new line).
func BenchmarkAppendSigned(b *testing.B) {
	ctx := context.Background()
	l := &audit.Log{Path: filepath.Join(b.TempDir(), "audit.jsonl"), Key: []byte("0123456789abcdef0123456789abcdef")}
	r := benchRecord(audit.NewCorrelationID())
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Append(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyChain checks the chain and signatures of a log of 10,000
// records with 4 KB prompts (about 52 MB): what log verify does, and what
// replay does before it replays. b.SetBytes makes the figure MB/s.
func BenchmarkVerifyChain(b *testing.B) {
	ctx := context.Background()
	key := []byte("0123456789abcdef0123456789abcdef")
	path := filepath.Join(b.TempDir(), "audit.jsonl")
	l := &audit.Log{Path: path, Key: key, NoIndex: true}
	r := benchRecord("run")
	for range 10_000 {
		if err := l.Append(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		rep, err := l.VerifyChain(ctx)
		if err != nil || !rep.OK() || rep.Signed != 10_000 {
			b.Fatal(rep, err)
		}
	}
}
