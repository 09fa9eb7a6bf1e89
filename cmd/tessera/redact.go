package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/guard"
)

// redactCmd is "tessera redact [FILE|-]".
func (a *app) redactCmd() *cobra.Command {
	var report, secretsOnly, asJSON bool
	cmd := &cobra.Command{
		Use:   "redact [FILE|-]",
		Short: "Print a file or standard input with secrets and personal data redacted",
		Long: `Print FILE (or standard input, when FILE is - or absent) with every secret
and piece of personal data replaced by a labelled placeholder such as
[REDACTED:email]: the same redaction assemble applies to canonical specs.

Inside a catalog (--root, or the nearest tessera.yaml at or above the
current directory) the patterns are those of tessera.yaml's "redaction"
key; elsewhere, the built-in ones. With --secrets-only, credentials are
redacted and personal data (e-mail addresses, phone numbers, IBANs, social
security numbers) is kept. With --report, a count per label goes to
standard error, then the total; with --json, the text and the report go
to standard output as one JSON object instead. docs/REDACTION.md lists
the patterns.`,
		Annotations: map[string]string{"exit1": "the file cannot be read or the output written (redacting\n     something is not an error: that is exit 0)"},
		Args:        cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r := guard.Default()
			c, err := a.openCatalogIfAny(cmd.Context())
			if err != nil {
				return err
			}
			if c != nil {
				defer c.Close()
				if r, err = c.Config().Redaction.Redactor(); err != nil {
					return failure{fmt.Errorf("%s: redaction: %w", catalog.ConfigFile, err)}
				}
			}
			limits := catalog.DefaultLimits()
			if c != nil {
				limits = c.Config().Limits
			}
			if n, err := a.maxFileBytes(); err != nil {
				return err
			} else if n > 0 {
				limits.MaxFileBytes = n
			}
			_, data, err := readInput(cmd, args, limits.MaxFileBytes)
			if err != nil {
				return failure{err}
			}
			redact := r.Redact
			if secretsOnly {
				redact = r.RedactSecrets
			}
			out, counts := redact(string(data))
			if asJSON {
				return writeJSON(a.stdout, newRedactJSON(out, counts))
			}
			if _, err := io.WriteString(a.stdout, out); err != nil {
				return failure{fmt.Errorf("cannot write standard output: %w: check the file or pipe it goes to", err)}
			}
			if report {
				printCounts(a.stderr, counts)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&report, "report", false, "print a count per label, and the total, to standard error")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the redacted text and the report (a count per label, and the total) as one JSON object on standard output (see docs/CLI.md)")
	cmd.Flags().BoolVar(&secretsOnly, "secrets-only", false, "redact credentials only; keep e-mail addresses, phone numbers and other personal data")
	return cmd
}

// printCounts prints one line per label, sorted, and the total, in two
// aligned columns. The total is written TOTAL: labels are lower case, so
// no label can be mistaken for it.
func printCounts(w io.Writer, counts guard.Counts) {
	width := len("TOTAL")
	for _, c := range counts {
		width = max(width, len(c.Label))
	}
	for _, c := range counts {
		fmt.Fprintf(w, "%-*s %d\n", width, c.Label, c.N)
	}
	fmt.Fprintf(w, "%-*s %d\n", width, "TOTAL", counts.Total())
}
