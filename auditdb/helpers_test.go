package auditdb

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/internal/pgtest"
	"github.com/tessera-dev/tessera/prompt"
)

// freshPostgres returns a URL of the test server whose search_path is a
// new, empty schema, dropped when the test ends (see pgtest.Fresh).
func freshPostgres(t testing.TB) string { return pgtest.Fresh(t) }

// eachDialect runs fn on a new SQLite database and on a new schema of the
// test PostgreSQL server.
func eachDialect(t *testing.T, fn func(t *testing.T, url string)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fn(t, "sqlite:"+filepath.Join(t.TempDir(), "audit.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		fn(t, freshPostgres(t))
	})
}

func open(t testing.TB, url string) *DB {
	t.Helper()
	db, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// record is a record whose prompt is text.
func record(id, text string) *audit.Record {
	return &audit.Record{
		AssembledPrompt:     text,
		AssembledPromptHash: prompt.Hash(text),
		AssemblyTimestamp:   audit.Timestamp(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)),
		CorrelationID:       id,
		Preset:              "template",
		Label:               "wf/node <&>",
		Inputs:              json.RawMessage(`{"task_ref":"Gen v1.0","includes_resolved":{"CTX":"ctx/a.txt"}}`),
		TesseraVersion:      "test",
	}
}

// lines returns the store's lines joined by newlines, each ended by one.
func lines(t testing.TB, s audit.Store) string {
	t.Helper()
	var b strings.Builder
	if err := s.Lines(context.Background(), func(l []byte) error {
		b.Write(l)
		b.WriteByte('\n')
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
