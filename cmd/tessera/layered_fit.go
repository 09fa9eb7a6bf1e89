package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/preset/layered"
)

// rankerFile is where a fitted ranker goes in the setup directory, and
// where layered.ParseSetup reads it (testdata/script/layered_fit.txtar
// holds the two together).
const rankerFile = "ranker.json"

// layeredFitCmd is "tessera layered fit": the learned ranker fitted to
// the setup's own catalog with the user's labelled tasks.
func (a *app) layeredFitCmd() *cobra.Command {
	var (
		dir, selection, outFile string
		asJSON                  bool
	)
	cmd := &cobra.Command{
		Use:   "fit --selection FILE [--dir DIR]",
		Short: "Fit the learned tool ranker to the setup's own catalog with labelled tasks, into ranker.json",
		Long: `Fit the ranker that picks tools to the setup's own catalog, from tasks
labelled with the tools a person wants for them (the --selection format
of "tessera layered eval": one JSON object a line with task, mode and
want; at least 10). The built-in ranker, trained on the project's
evaluation catalog, is the starting point; the tasks move it where they
say and leave the rest as it was.

It writes ranker.json to the setup directory, whole or not at all;
assembly uses it from then on instead of the built-in ranker (remove it
to go back). It prints precision@3 and recall@3 of the built-in and the
fitted ranker on held-apart folds of the tasks, each fold picked by a
ranker fitted to the others, so you see what fitting gains before you
keep it. Measure on tasks you did not fit to with "tessera layered eval".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if selection == "" {
				return fmt.Errorf("--selection FILE is needed: the labelled tasks to fit to")
			}
			ctx := cmd.Context()
			setup, d, max, err := a.layeredSetup(ctx, dir)
			if err != nil {
				return err
			}
			cases, err := readSelectionFile(selection, max)
			if err != nil {
				return err
			}
			model, builtin, fitted, err := (&layered.Assembler{Setup: setup}).FitRanker(ctx, cases)
			if err != nil {
				return failure{fmt.Errorf("%s: %w", selection, err)}
			}
			out := filepath.Join(d, rankerFile)
			if outFile != "" {
				out = outFile
			}
			if err := writeAtomic(out, model); err != nil {
				return failure{err}
			}
			if asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(map[string]any{"ranker": filepath.ToSlash(out), "tasks": len(cases), "builtin": builtin, "fitted": fitted})
			}
			fmt.Fprintf(a.stdout, "wrote %s: the ranker fitted to %d tasks\n", filepath.ToSlash(out), len(cases))
			fmt.Fprintf(a.stdout, "on held-apart folds of them: built-in precision@3 %.3f recall@3 %.3f; fitted %.3f %.3f\n",
				builtin.MeanPrecision, builtin.MeanRecall, fitted.MeanPrecision, fitted.MeanRecall)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "the setup directory (default: tessera.yaml's layered)")
	f.StringVar(&selection, "selection", "", "the labelled tasks, JSON Lines: id, lang, task, mode, want")
	f.StringVar(&outFile, "out", "", "write the ranker to this file (default: ranker.json in the setup directory, where assembly reads it)")
	f.BoolVar(&asJSON, "json", false, "print the folds' figures as JSON: the built-in and the fitted ranker, task by task")
	return cmd
}
