package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/auditdb"
)

// dbForms says what --db takes, for the commands that have it; dbHelp
// is the flag's help where the database is the command's subject.
const (
	dbForms = "a SQLite file (sqlite:PATH, or PATH) or postgres://USER@HOST:PORT/DB"
	dbHelp  = "the audit database: " + dbForms
)

func (a *app) logImportCmd() *cobra.Command {
	var dbURL string
	cmd := &cobra.Command{
		Use:   "import FILE --db URL",
		Short: "Load a JSON Lines audit log into an audit database",
		Long: `Read the JSON Lines audit log FILE, check every line and its chain, and add
its records to the audit database (SQLite or PostgreSQL; the schema is
created when missing), each line kept byte for byte, so that "tessera log
export" writes the same bytes back.

Every non-empty line must be a valid record whose prompt hashes to its
stored hash, and the chain must hold (as "tessera log verify" checks it,
signatures counted but not checked): otherwise nothing is imported and the
line is named. A log whose records are chained must continue the
database's chain, so it goes into an empty database, or into one whose
last record is the line the log's first record follows.`,
		Annotations: map[string]string{"exit1": "a line is not a valid record or breaks the chain (the line is named),\n     the log does not continue the database's chain, or the file or\n     database cannot be read or written"},
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dbURL == "" {
				return errors.New("log import needs --db URL")
			}
			ctx := cmd.Context()
			file := args[0]
			data, err := os.ReadFile(file)
			if err != nil {
				return failure{fmt.Errorf("log import: %w", err)}
			}
			db, err := auditdb.Open(ctx, dbURL)
			if err != nil {
				return failure{err}
			}
			defer db.Close()
			n, err := db.Import(ctx, filepath.ToSlash(file), data)
			if err != nil {
				return failure{err}
			}
			total, err := db.Count(ctx)
			if err != nil {
				return failure{err}
			}
			fmt.Fprintf(a.stdout, "%s: imported %d records into %s, which holds %d\n", filepath.ToSlash(file), n, db.Name(), total)
			return db.Close()
		},
	}
	cmd.Flags().StringVar(&dbURL, "db", "", dbHelp)
	return cmd
}

func (a *app) logExportCmd() *cobra.Command {
	var dbURL, out string
	cmd := &cobra.Command{
		Use:   "export --db URL [--out FILE]",
		Short: "Write an audit database's records as a JSON Lines log",
		Long: `Write every record of the audit database as a JSON Lines audit log, in the
order they were added, each line exactly as it was appended or imported:
a log that "tessera log verify" and "tessera replay --log" read as they
read the log the records came from.

Without --out the log goes to standard output. With --out it is written
to a temporary file beside FILE and renamed over it once complete, so
FILE is never left half-written.`,
		Annotations: map[string]string{"exit1": "the database or FILE cannot be read or written"},
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dbURL == "" {
				return errors.New("log export needs --db URL")
			}
			ctx := cmd.Context()
			db, err := auditdb.Open(ctx, dbURL)
			if err != nil {
				return failure{err}
			}
			defer db.Close()
			if out == "" {
				w := bufio.NewWriter(a.stdout)
				if _, err := db.Export(ctx, w); err != nil {
					return failure{err}
				}
				return w.Flush()
			}
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return failure{fmt.Errorf("log export: %w", err)}
			}
			tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.tmp")
			if err != nil {
				return failure{fmt.Errorf("log export: %w", err)}
			}
			defer os.Remove(tmp.Name()) // after the rename, nothing is there
			n, err := db.Export(ctx, tmp)
			if err != nil {
				tmp.Close()
				return failure{fmt.Errorf("log export to %s: %w", out, err)}
			}
			if err := tmp.Sync(); err != nil {
				tmp.Close()
				return failure{fmt.Errorf("log export to %s: %w", out, err)}
			}
			if err := tmp.Close(); err != nil {
				return failure{fmt.Errorf("log export to %s: %w", out, err)}
			}
			if err := os.Rename(tmp.Name(), out); err != nil {
				return failure{fmt.Errorf("log export: %w", err)}
			}
			fmt.Fprintf(a.stdout, "%s: exported %d records from %s\n", filepath.ToSlash(out), n, db.Name())
			return db.Close()
		},
	}
	cmd.Flags().StringVar(&dbURL, "db", "", dbHelp)
	cmd.Flags().StringVarP(&out, "out", "o", "", "the log file to write (default: standard output)")
	return cmd
}
