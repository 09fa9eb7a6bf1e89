package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/agent/reply"
)

// agentCheckCmd is "tessera agent check": validate a model's reply and
// print it as clean JSON, or list every problem and exit 1.
func (a *app) agentCheckCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Check a model's reply: a plan, a revised plan, extracted memory entries, a verdict or an executor's result",
		Long: `Check a model's reply (a file, or - for standard input). The JSON may be
bare, inside prose, or in a fenced block. A valid reply is printed as clean
JSON; otherwise every problem is listed as FILE:LINE:COL: message, naming the
subtask or entry, and the exit code is 1.`,
		Annotations:        map[string]string{"exit1": "the reply is not valid: every problem is listed as FILE:LINE:COL: message;\n     or the file cannot be read"},
		Args:               cobra.ArbitraryArgs,
		RunE:               unknownSubcommand,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
	}
	var (
		original  string
		completed []string
	)
	plan := &cobra.Command{
		Use:   "plan FILE",
		Short: "Check a planner's reply: 3 to 15 subtasks, unique kebab-case ids, known dependencies without cycles, tiers in range, every field present",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := a.readReply(cmd, args[0])
			if err != nil {
				return err
			}
			p, err := reply.ParsePlan(args[0], data)
			if err != nil {
				return a.fail(err, args[0])
			}
			return a.printJSON(p)
		},
	}
	replan := &cobra.Command{
		Use:   "replan FILE --plan ORIGINAL",
		Short: "Check a replanner's reply: a valid plan that keeps every completed subtask of the original unchanged",
		Long: `Check a replanner's reply: it must be a valid plan, and keep every
completed subtask of the original plan (status "completed", and those named
by --completed) with the same description, dependencies, tiers and
acceptance criteria.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if original == "" {
				return errors.New("check replan needs --plan ORIGINAL: the plan the replanner was given")
			}
			max, err := a.maxFileBytes()
			if err != nil {
				return err
			}
			odata, err := fileread.File(original, max)
			if err != nil {
				return failure{err}
			}
			orig, err := reply.ParsePlan(original, odata)
			if err != nil {
				return a.fail(fmt.Errorf("the original plan is not valid: %w", err), original)
			}
			data, err := a.readReply(cmd, args[0])
			if err != nil {
				return err
			}
			rev, err := reply.ParsePlan(args[0], data)
			var errs []error
			if err != nil {
				errs = append(errs, err)
			}
			if rev != nil {
				if err := reply.ValidateReplan(orig, rev, completed...); err != nil {
					errs = append(errs, err)
				}
			}
			if len(errs) > 0 {
				return a.fail(preset.JoinErrors(errs), args[0], original)
			}
			return a.printJSON(rev)
		},
	}
	replan.Flags().StringVar(&original, "plan", "", "the original plan, JSON, with each subtask's status")
	replan.Flags().StringSliceVar(&completed, "completed", nil, "ids of subtasks that are completed, beside those whose status says so (comma-separated)")
	extract := &cobra.Command{
		Use:   "extract FILE",
		Short: "Check an extractor's reply: an array of memory entries (type, summary of at most 150 characters, tags, relevance_to); [] is valid",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := a.readReply(cmd, args[0])
			if err != nil {
				return err
			}
			entries, err := reply.ParseExtraction(args[0], data)
			if err != nil {
				return a.fail(err, args[0])
			}
			return a.printJSON(entries)
		},
	}
	verify := &cobra.Command{
		Use:   "verify FILE",
		Short: "Check a verifier's reply: {\"passed\": true or false, \"reason\": ..., \"issues\": [...]}",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := a.readReply(cmd, args[0])
			if err != nil {
				return err
			}
			v, err := reply.ParseVerdict(args[0], data)
			if err != nil {
				return a.fail(err, args[0])
			}
			return a.printJSON(v)
		},
	}
	execute := &cobra.Command{
		Use:   "execute FILE",
		Short: "Read an executor's final reply: print {\"status\": \"blocked\", \"reason\": ...} or {\"status\": \"done\", \"summary\": ...}",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := a.readReply(cmd, args[0])
			if err != nil {
				return err
			}
			rep := reply.ParseExecutorReply(string(data))
			out := struct {
				Status  string `json:"status"`
				Reason  string `json:"reason,omitempty"`
				Summary string `json:"summary,omitempty"`
			}{Status: "done", Summary: rep.Summary}
			if rep.Blocked {
				out.Status, out.Reason, out.Summary = "blocked", rep.Reason, ""
			}
			return a.printJSON(out)
		},
	}
	cmd.AddCommand(plan, replan, extract, verify, execute)
	return cmd
}

// readReply reads a reply file, or standard input for "-", bounded by
// --max-file-bytes.
func (a *app) readReply(cmd *cobra.Command, name string) ([]byte, error) {
	max, err := a.maxFileBytes()
	if err != nil {
		return nil, err
	}
	if max <= 0 {
		max = fileread.DefaultMaxBytes
	}
	if name != "-" {
		data, err := fileread.File(name, max)
		if err != nil {
			return nil, failure{err}
		}
		return data, nil
	}
	data, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), max+1))
	if err == nil && int64(len(data)) > max {
		err = &fileread.TooLargeError{Path: name, Size: int64(len(data)), Max: max}
	}
	if err != nil {
		return nil, failure{err}
	}
	return data, nil
}

// printJSON prints v as indented JSON, HTML characters as they are.
func (a *app) printJSON(v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return failure{err}
	}
	_, err := a.stdout.Write(b.Bytes())
	return err
}
