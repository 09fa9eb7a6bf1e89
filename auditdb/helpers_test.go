package auditdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/prompt"
)

// postgresURL returns the PostgreSQL server the tests use, from
// TESSERA_TEST_POSTGRES; without one the test is skipped, or fails under
// CI=true, where .ci/run starts a server.
func postgresURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("TESSERA_TEST_POSTGRES")
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("TESSERA_TEST_POSTGRES is not set under CI=true: .ci/run starts a PostgreSQL server and sets it")
		}
		t.Skip("no PostgreSQL server: set TESSERA_TEST_POSTGRES=postgres://USER@HOST:PORT/DB to run this test (see README.md)")
	}
	return u
}

// freshPostgres returns a URL of the test server whose search_path is a
// new, empty schema, dropped when the test ends.
func freshPostgres(t testing.TB) string {
	t.Helper()
	base := postgresURL(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		admin.Close()
		t.Fatalf("create a schema on %s: %v", base, err)
	}
	t.Cleanup(func() {
		_, _ = admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

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
