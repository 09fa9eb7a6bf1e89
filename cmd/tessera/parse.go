package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/output"
)

// parseCmd is "tessera parse (--schema FILE [--array] | --typed TEMPLATE)
// [--extra forbid|ignore] [--tolerant] [REPLY_FILE]".
func (a *app) parseCmd() *cobra.Command {
	var (
		schemaPath, typedPath, extra string
		array, tolerant              bool
	)
	cmd := &cobra.Command{
		Use:   "parse (--schema FILE [--array] | --typed TEMPLATE) [--extra forbid|ignore] [--tolerant] [REPLY_FILE|-]",
		Short: "Check a model's reply against a schema and print its value",
		Long: `Read a model's reply from REPLY_FILE (standard input when it is - or
absent), find the JSON value in it (a fenced block first, else a bare
one, prose around it allowed) and check it against a JSON Schema: the
file --schema names, or the output a typed template (--typed) declares.

The value must be a JSON object; with --array the schema is one item's
and the reply a list of them, bare or as {"items": [...]}. Keys the
schema does not declare are each a problem with --extra forbid (the
default, or the template's own policy) and are dropped with --extra
ignore. --tolerant repairs comments, trailing commas, single quotes,
unquoted keys, Python's True/False/None and a cut-off end, each repair
noted on standard error with its place.

On success the value is printed as one line of JSON: compact, each
object's keys in the order the schema lists them, strings escaped as
RFC 8785 does. On failure every problem is printed, one a line, as
REPLY:LINE:COL: POINTER: WHAT.`,
		Annotations: map[string]string{"exit1": "the reply holds no value of the declared kind, or the value does\n     not match the schema; the schema or template cannot be read"},
		Args:        cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (schemaPath == "") == (typedPath == "") {
				return errors.New("parse: give the schema with --schema FILE, or a typed template's declared output with --typed TEMPLATE (one of them)")
			}
			if typedPath != "" && array {
				return errors.New("parse: --array goes with --schema; a typed template declares its own container (output: container: array)")
			}
			max, err := a.maxFileBytes()
			if err != nil {
				return err
			}
			if max <= 0 {
				max = catalog.DefaultLimits().MaxFileBytes
			}
			sp := output.Spec{Tolerant: tolerant}
			if cmd.Flags().Changed("extra") || typedPath == "" {
				x, err := output.ParseExtra(extra)
				if err != nil {
					return fmt.Errorf("--extra: %w", err)
				}
				sp.Extra = x
			}
			switch {
			case schemaPath != "":
				data, err := fileread.File(schemaPath, max)
				if err != nil {
					return failure{readError(schemaPath, err)}
				}
				name := strings.TrimSuffix(filepath.Base(schemaPath), filepath.Ext(schemaPath))
				s, err := output.Compile(name, data)
				if err != nil {
					return failure{fmt.Errorf("%s: %w: fix the schema (a JSON Schema document)", schemaPath, err)}
				}
				sp.Name, sp.Schema = name, s
				if array {
					sp.Container = output.Array
				}
			default:
				t, err := a.typedTemplate(typedPath)
				if err != nil {
					return err
				}
				o := t.Output
				if o == nil {
					return failure{fmt.Errorf("%s: template %s/%s declares no output: add output: with a schema", typedPath, t.NS, t.Key)}
				}
				s, err := output.Compile(o.Name, o.Schema)
				if err != nil {
					return failure{fmt.Errorf("%s: %w", typedPath, err)}
				}
				sp.Name, sp.Schema = o.Name, s
				if o.Array {
					sp.Container = output.Array
				}
				if !cmd.Flags().Changed("extra") {
					sp.Extra = o.Extra
				}
			}
			name, reply, err := readInput(cmd, args, max)
			if err != nil {
				return failure{err}
			}
			res, err := sp.Parse(reply)
			if err != nil {
				var oe *output.Error
				if !errors.As(err, &oe) {
					return failure{err}
				}
				printRepairs(a.stderr, name, oe.Repairs)
				printProblems(a.stderr, name, oe)
				return silentFailure
			}
			printRepairs(a.stderr, name, res.Repairs)
			for _, d := range res.Dropped {
				fmt.Fprintf(a.stderr, "%s: note: dropped %s, a key the schema does not declare\n", name, d)
			}
			if _, err := fmt.Fprintf(a.stdout, "%s\n", res.Value); err != nil {
				return failure{fmt.Errorf("cannot write standard output: %w: check the file or pipe it goes to", err)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&schemaPath, "schema", "", "check the reply against this JSON Schema `FILE` (an object's, or one item's with --array)")
	f.StringVar(&typedPath, "typed", "", "check the reply against the output this typed `TEMPLATE` declares")
	f.BoolVar(&array, "array", false, "with --schema: the reply is a list of items, bare or as {\"items\": [...]}")
	f.StringVar(&extra, "extra", "forbid", "keys the schema does not declare: forbid (each is a problem) or ignore (each is dropped)")
	f.BoolVar(&tolerant, "tolerant", false, "repair comments, trailing commas, single quotes, unquoted keys, True/False/None and a cut-off end")
	return cmd
}

// printProblems prints every problem of e, one a line, as
// "name:line:col: pointer: what".
func printProblems(w io.Writer, name string, e *output.Error) {
	if e.Msg != "" {
		if e.Line > 0 {
			fmt.Fprintf(w, "%s:%d:%d: %s\n", name, e.Line, e.Col, e.Msg)
		} else {
			fmt.Fprintf(w, "%s: %s\n", name, e.Msg)
		}
	}
	for _, p := range e.Problems {
		line, col := p.Line, p.Col
		if line == 0 {
			line, col = e.Line, e.Col
		}
		fmt.Fprintf(w, "%s:%d:%d: %s\n", name, line, col, p)
	}
}

func printRepairs(w io.Writer, name string, repairs []output.Repair) {
	for _, r := range repairs {
		fmt.Fprintf(w, "%s:%d:%d: repaired: %s\n", name, r.Line, r.Col, r.What)
	}
}
