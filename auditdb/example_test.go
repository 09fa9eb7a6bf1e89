package auditdb_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/auditdb"
	"github.com/tessera-dev/tessera/prompt"
)

func ExampleOpen() {
	dir, err := os.MkdirTemp("", "auditdb-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	// A SQLite file, created with its schema; postgres://… for PostgreSQL.
	db, err := auditdb.Open(ctx, "sqlite:"+filepath.Join(dir, "audit.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()

	text := "You review Go code.\n"
	rec := &audit.Record{
		AssembledPrompt:     text,
		AssembledPromptHash: prompt.Hash(text),
		AssemblyTimestamp:   "2026-11-27T12:00:00.000Z",
		CorrelationID:       "req-1",
		Preset:              "template",
		TesseraVersion:      "example",
	}
	// Durable once it returns; concurrent callers share a commit.
	if err := db.Append(ctx, rec); err != nil {
		fmt.Println(err)
		return
	}
	got, err := db.Record(ctx, "req-1")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q %v\n", got.AssembledPrompt, got.PrevHash == audit.GenesisHash)

	// The JSON Lines log the database holds, byte for byte.
	var out strings.Builder
	if _, err := db.Export(ctx, &out); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Count(out.String(), "\n"), "line")
	// Output:
	// "You review Go code.\n" true
	// 1 line
}
