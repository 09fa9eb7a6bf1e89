package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/auditdb"
	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/engine"
)

func (a *app) logCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "log",
		Short: "Check the audit log",
		Long: `Commands that work on the audit log as a whole. Each record of the log
carries the hash of the line before it (prev_hash), and, when tessera.yaml
names a key (log_key_env), an HMAC signature (sig); see docs/audit.md.
"import" and "export" move records between a log and an audit database
(SQLite or PostgreSQL), byte for byte.`,
		Annotations: map[string]string{"exit1": "a subcommand failed"},
		Args:        cobra.NoArgs,
	}
	cmd.AddCommand(a.logVerifyCmd(), a.logImportCmd(), a.logExportCmd())
	return cmd
}

func (a *app) logVerifyCmd() *cobra.Command {
	var logFile, dbURL, keyEnv string
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check the audit log's chain and signatures",
		Long: `Read the whole audit log and check its chain: every record's prev_hash must
be the SHA-256 of the line before it, no record without one may follow the
first that has one, and, with a key (tessera.yaml's log_key_env, or
--key-env), every chained record must carry a valid signature. Stop at the
first line that breaks the chain and name it.

A log written before records were chained is reported as not chained: it
verifies, but nothing shows whether it was changed. The last line's hash
(the head) is printed: keep it elsewhere to detect later that records were
cut from the end, which the chain alone cannot show.

With --db, the records of an audit database (SQLite or PostgreSQL) are
checked instead, in the order of its export.`,
		Annotations: map[string]string{"exit1": "a line breaks the chain or its signature (the line and how are shown),\n     the key is named but not set, or the log cannot be read"},
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if dbURL != "" && logFile != "" {
				return errors.New("log verify reads --log or --db, not both")
			}
			var (
				c    *catalog.Catalog
				lp   string
				err  error
				name string
				rep  *audit.ChainReport
			)
			if dbURL != "" {
				c, err = a.openCatalogIfAny(ctx)
			} else {
				c, lp, err = a.logPath(ctx, logFile, "log verify")
			}
			if err != nil {
				return err
			}
			if c != nil {
				defer c.Close()
			}
			l := &audit.Log{Path: lp}
			if keyEnv != "" {
				v := os.Getenv(keyEnv)
				if v == "" {
					return failure{fmt.Errorf("--key-env: the environment variable %s is not set: set it to the log's key", keyEnv)}
				}
				l.Key = []byte(v)
			} else if l, err = engine.KeyedLog(c, l); err != nil {
				return a.fail(err)
			}
			if dbURL != "" {
				db, err := auditdb.Open(ctx, dbURL)
				if err != nil {
					return failure{err}
				}
				defer db.Close()
				if rep, err = db.VerifyChain(ctx, l.Key); err != nil {
					return failure{err}
				}
				name = db.Name()
			} else {
				if rep, err = l.VerifyChain(ctx); err != nil {
					return failure{err}
				}
				name = filepath.ToSlash(lp)
			}
			if b := rep.Break; b != nil {
				fmt.Fprintf(a.stderr, "%s:%d: the chain breaks: %v\n", name, b.Line, b.Err)
				if rep.Lines > 0 {
					fmt.Fprintf(a.stderr, "  lines before it: %s\n", (&audit.ChainReport{Lines: rep.Lines, Unchained: rep.Unchained, First: rep.First, Signed: rep.Signed, Checked: rep.Checked, NotRecords: rep.NotRecords, Head: rep.Head, HeadLine: rep.HeadLine}).String())
				}
				return silentFailure
			}
			fmt.Fprintf(a.stdout, "%s: %s\n", name, rep)
			return nil
		},
	}
	cmd.Flags().StringVar(&logFile, "log", "", "the JSON Lines audit log (default: tessera.yaml's log)")
	cmd.Flags().StringVar(&dbURL, "db", "", "the audit database to check instead of a log: "+dbForms)
	cmd.Flags().StringVar(&keyEnv, "key-env", "", "the environment variable holding the log's HMAC key (default: tessera.yaml's log_key_env)")
	return cmd
}

// logPath opens the catalog, if any, and returns it with the log a
// command reads: flag (--log), else the catalog's log. what names the
// command in the error when there is neither. The caller closes the
// catalog.
func (a *app) logPath(ctx context.Context, flag, what string) (*catalog.Catalog, string, error) {
	c, err := a.openCatalogIfAny(ctx)
	if err != nil {
		return nil, "", err
	}
	lp := flag
	if lp == "" && c != nil {
		if lp, err = c.WritePath("log"); err != nil {
			c.Close()
			return nil, "", a.fail(err)
		}
	}
	if lp == "" {
		if c != nil {
			c.Close()
		}
		return nil, "", fmt.Errorf("%s needs --log FILE (or a log path in tessera.yaml)", what)
	}
	return c, lp, nil
}
