// Package pgtest gives tests a PostgreSQL database of their own: a new,
// empty schema on the server TESSERA_TEST_POSTGRES names, dropped when
// the test ends. Without that server a test skips, except under CI=true,
// where .ci/run starts one and a missing server is a failure.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// Server returns the URL of the test server, TESSERA_TEST_POSTGRES, or
// skips the test (fails it under CI=true) when none is set.
func Server(t testing.TB) string {
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

// Fresh returns a URL of the test server whose search_path is a new,
// empty schema, dropped when the test ends.
func Fresh(t testing.TB) string {
	t.Helper()
	base := Server(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.ExecContext(context.Background(), "CREATE SCHEMA "+schema); err != nil {
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
