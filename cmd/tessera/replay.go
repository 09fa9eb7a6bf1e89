package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/auditdb"
	"github.com/tessera-dev/tessera/engine"
)

func (a *app) replayCmd() *cobra.Command {
	var logFile, dbURL, id, hash string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "replay (--id CORRELATION_ID | --hash PROMPT_HASH)",
		Short: "Re-assemble a logged prompt and verify its hash",
		Long: `Find the records with the given correlation id (or, with --hash, the given
prompt hash) in the audit log, check that each stored prompt still hashes to
its stored hash, re-assemble it from the catalog as it is now, and compare.
Exit 0 when every record matches; exit 1 and show the first differing line
and the files that changed when one does not, or when a stored prompt does
not match its own hash.

The log's index (<log>.idx, kept beside it) finds the records without
reading the whole log; it is rebuilt when missing or stale, and every
record it points at is checked against the log.

Replay also checks the log's chain, as "tessera log verify" does: a line
that breaks it (a record changed, removed or inserted, or a signature
that does not match the key tessera.yaml's log_key_env names) fails the
replay, even when every record it replays matches, and is named.

With --db, the records and the chain are read from an audit database
(SQLite or PostgreSQL; see "tessera log import") instead of a log file,
and a record is named by its line in the database's export.`,
		Annotations: map[string]string{"exit1": "a record does not match (its first differing line and the files that\n     changed are shown), a stored prompt does not match its own hash, a\n     line of the log breaks its chain, no record has the id, or the log or\n     catalog cannot be read"},
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (id == "") == (hash == "") {
				return errors.New("replay needs --id or --hash, not both")
			}
			ctx := cmd.Context()
			if dbURL != "" && logFile != "" {
				return errors.New("replay reads --log or --db, not both")
			}
			// Each verdict is printed as it is made: the records are read
			// one at a time, and a replay of many large ones holds one.
			ok := true
			var records []replayRecord // with --json
			var lp string
			each := func(v audit.Verdict) error {
				ok = ok && v.OK()
				if asJSON {
					records = append(records, a.replayRecord(v))
				} else {
					a.printVerdict(v, lp)
				}
				return nil
			}
			var rep *audit.Report
			if dbURL != "" {
				c, err := a.openCatalogIfAny(ctx)
				if err != nil {
					return err
				}
				if c != nil {
					defer c.Close()
				}
				db, err := auditdb.Open(ctx, dbURL)
				if err != nil {
					return failure{err}
				}
				defer db.Close()
				lp = db.Name()
				rep, err = a.engine.ReplayStore(ctx, c, db, lp, audit.Query{ID: id, Hash: hash}, each)
				if err != nil {
					return failure{err}
				}
				return a.replayDone(rep, lp, records, ok, asJSON)
			}
			c, lp, err := a.logPath(ctx, logFile, "replay")
			if err != nil {
				return err
			}
			if c != nil {
				defer c.Close()
			}
			// The index only makes replay faster; a problem with it is a
			// warning, and the answer comes from the log either way.
			l := &audit.Log{Path: lp, Warn: func(err error) { fmt.Fprintf(a.stderr, "warning: %v\n", err) }}
			rep, err = a.engine.ReplayEach(ctx, c, l, audit.Query{ID: id, Hash: hash}, each)
			if err != nil {
				return failure{err}
			}
			return a.replayDone(rep, lp, records, ok, asJSON)
		},
	}
	cmd.Flags().StringVar(&logFile, "log", "", "the JSON Lines audit log (default: tessera.yaml's log)")
	cmd.Flags().StringVar(&dbURL, "db", "", "the audit database to replay from instead of a log: "+dbForms)
	cmd.Flags().StringVar(&id, "id", "", "correlation id of the record(s) to replay")
	cmd.Flags().StringVar(&hash, "hash", "", "prompt hash (assembled_prompt_hash) of the record(s) to replay")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print every record's verdict, the log's unreadable lines and its chain as one JSON object (see docs/CLI.md)")
	return cmd
}

// replayDone reports what a replay of the log or database lp found after
// its verdicts: the JSON object with --json, else the unreadable lines
// and the chain.
func (a *app) replayDone(rep *audit.Report, lp string, records []replayRecord, ok, asJSON bool) error {
	if asJSON {
		out := replayOutput(rep, lp, records, ok)
		if err := writeJSON(a.stdout, out); err != nil {
			return err
		}
		if !out.OK {
			return silentFailure
		}
		return nil
	}
	for i, b := range rep.BadLines {
		if i == 5 {
			fmt.Fprintf(a.stderr, "warning: %d more unreadable lines\n", len(rep.BadLines)-i)
			break
		}
		fmt.Fprintf(a.stderr, "warning: %s:%d: unreadable line, not a record: %v\n", filepath.ToSlash(lp), b.Line, b.Err)
	}
	if ch := rep.Chain; ch != nil {
		switch {
		case ch.Break != nil:
			fmt.Fprintf(a.stderr, "%s:%d: the chain breaks: %v: the log was changed, and its records cannot be trusted; see tessera log verify\n", filepath.ToSlash(lp), ch.Break.Line, ch.Break.Err)
		case ch.Unchained > 0:
			fmt.Fprintf(a.stderr, "note: %s: %d lines were written before records were chained: nothing shows whether they were changed\n", filepath.ToSlash(lp), ch.Unchained)
		}
	}
	if !ok || rep.Chain != nil && !rep.Chain.OK() {
		return silentFailure
	}
	return nil
}

func (a *app) printVerdict(v audit.Verdict, logPath string) {
	r := v.Record
	what := engine.Describe(r)
	at := fmt.Sprintf("%s:%d", filepath.ToSlash(logPath), v.Line)
	switch v.Status {
	case audit.Match:
		fmt.Fprintf(a.stdout, "%s: %s: match: re-assembled to the same %d bytes, sha256 %s\n", at, what, len(r.AssembledPrompt), v.NewHash)
	case audit.Tampered:
		fmt.Fprintf(a.stderr, "%s: %s: tampered: %v\n", at, what, v.Err)
	case audit.Failed:
		fmt.Fprintf(a.stderr, "%s: %s: cannot re-assemble:\n", at, what)
		fmt.Fprintln(a.stderr, a.fail(v.Err))
	case audit.Mismatch:
		fmt.Fprintf(a.stderr, "%s: %s: mismatch: logged sha256 %s, now %s\n", at, what, r.AssembledPromptHash, v.NewHash)
		if d := v.Diff; d != nil {
			fmt.Fprintf(a.stderr, "  first difference at line %d:\n", d.Line)
			fmt.Fprintf(a.stderr, "    logged: %s\n", diffLine(d.Stored, d.Missing == "stored"))
			fmt.Fprintf(a.stderr, "    now:    %s\n", diffLine(d.Current, d.Missing == "current"))
		}
		for _, ch := range v.Changed {
			switch {
			case ch.OldHash == "":
				fmt.Fprintf(a.stderr, "  now also uses %s\n", ch.Path)
			case ch.NewHash == "":
				fmt.Fprintf(a.stderr, "  no longer uses %s\n", ch.Path)
			default:
				fmt.Fprintf(a.stderr, "  changed since: %s\n", ch.Path)
			}
		}
	}
}

func diffLine(s string, missing bool) string {
	if missing {
		return "(text ends before this line)"
	}
	return fmt.Sprintf("%q", s)
}
