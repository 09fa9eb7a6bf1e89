package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/guard/injection"
	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/preset/layered"
)

// layeredEvalCmd is "tessera layered eval": a setup's injection detector
// and tool selection measured on evaluation sets of the user's.
func (a *app) layeredEvalCmd() *cobra.Command {
	var (
		dir, injections, selection string
		k                          int
		threshold                  float64
		asJSON, verbose            bool
	)
	cmd := &cobra.Command{
		Use:   "eval [--dir DIR] [--injections FILE] [--selection FILE]",
		Short: "Measure the setup's injection detector (TPR, FPR) and tool selection (precision@K, recall@K) on evaluation sets",
		Long: `Measure a layered setup on evaluation sets written in JSON Lines:

  --injections FILE   one case a line: {"id", "lang", "label": "attack"|"benign", "text"}
                      prints the true and false positive rates of the setup's
                      injection detector at --threshold (default: layered.yaml's
                      scores.injection), overall and by language
  --selection FILE    one task a line: {"id", "lang", "task", "mode", "want": [tools]}
                      prints precision@K and recall@K of the tools and skills
                      selected, how many tasks selected nothing, what the
                      ranking holds (recall@K of the K ranked first, and the
                      best cut of them, which no threshold beats), and how
                      often the mode inferred from the task alone is the case's

The detector is the one assembly uses: the built-in patterns, layered.yaml's
injection_patterns and injection examples, and its injection_classifier
when it names one. --verbose lists the cases it got wrong.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if injections == "" && selection == "" {
				return fmt.Errorf("name an evaluation set: --injections FILE, --selection FILE or both")
			}
			ctx := cmd.Context()
			setup, _, max, err := a.layeredSetup(ctx, dir)
			if err != nil {
				return err
			}
			e, err := setup.NewEmbedder(os.Getenv, nil)
			if err != nil {
				return failure{err}
			}
			asm := &layered.Assembler{Setup: setup, Embedder: e}
			out := map[string]any{}
			if injections != "" {
				data, err := fileread.File(injections, max)
				if err != nil {
					return failure{err}
				}
				cases, err := injection.ReadCases(injections, data)
				if err != nil {
					return failure{err}
				}
				det, err := asm.InjectionDetector()
				if err != nil {
					return failure{err}
				}
				th := setup.Scores.Injection
				if cmd.Flags().Changed("threshold") {
					th = threshold
				}
				r, err := injection.Evaluate(ctx, det, cases, th)
				if err != nil {
					return failure{err}
				}
				out["injections"] = r
				if !asJSON {
					fmt.Fprintf(a.stdout, "injections (%s):\n%s", injections, r)
					if verbose {
						for _, m := range r.Missed {
							fmt.Fprintf(a.stdout, "missed      %s %s %.2f %v\n", m.ID, m.Lang, m.Verdict.Score, m.Verdict.Names())
						}
						for _, m := range r.FalseAlarms {
							fmt.Fprintf(a.stdout, "false alarm %s %s %.2f %v\n", m.ID, m.Lang, m.Verdict.Score, m.Verdict.Names())
						}
					}
				}
			}
			if selection != "" {
				cases, err := readSelectionFile(selection, max)
				if err != nil {
					return err
				}
				r, err := asm.Evaluate(ctx, cases, k)
				if err != nil {
					return failure{err}
				}
				out["selection"] = r
				if !asJSON {
					empty := 0
					for _, c := range r.Cases {
						if len(c.Got) == 0 {
							empty++
						}
					}
					fmt.Fprintf(a.stdout, "selection (%s): %d tasks, precision@%d %.3f, recall@%d %.3f, %d selected nothing\n", selection, len(r.Cases), k, r.MeanPrecision, k, r.MeanRecall, empty)
					printSelectionBreakdown(a.stdout, cases, r)
					fmt.Fprintf(a.stdout, "ranking: recall@%d %.3f offering the %d ranked first whatever their scores; %.3f, %.3f with each task's best cut of them, which no threshold beats\n", k, r.RankedRecall, k, r.BestPrecision, r.BestRecall)
					if r.ModeCases > 0 {
						fmt.Fprintf(a.stdout, "mode inferred from the task alone: %d of %d right (%.3f)\n", r.ModeRight, r.ModeCases, float64(r.ModeRight)/float64(r.ModeCases))
					}
					if verbose {
						for i, c := range r.Cases {
							if c.Recall < 1 || c.Precision < 1 {
								fmt.Fprintf(a.stdout, "%-4s %.2f %.2f got %v want %v\n", cases[i].ID, c.Precision, c.Recall, c.Got, cases[i].Want)
							}
						}
						for i, c := range r.Cases {
							if c.Inferred != "" && c.Inferred != cases[i].Mode {
								fmt.Fprintf(a.stdout, "%-4s mode %s, inferred %s (%s)\n", cases[i].ID, cases[i].Mode, c.Inferred, c.InferredWhy)
							}
						}
					}
				}
			}
			if asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(out)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "the setup directory (default: tessera.yaml's layered)")
	f.StringVar(&injections, "injections", "", "an injection evaluation set, JSON Lines")
	f.StringVar(&selection, "selection", "", "a selection evaluation set, JSON Lines")
	f.IntVar(&k, "k", 3, "how many of the selected tools and skills count (precision@K, recall@K)")
	f.Float64Var(&threshold, "threshold", injection.DefaultThreshold, "the detector's score that counts as injection (default: layered.yaml's scores.injection)")
	f.BoolVar(&asJSON, "json", false, "print the reports as JSON")
	f.BoolVar(&verbose, "verbose", false, "list the cases got wrong")
	return cmd
}

// readSelectionFile reads the selection set at path, capped at max
// bytes (see readSelectionCases).
func readSelectionFile(path string, max int64) ([]layered.EvalCase, error) {
	data, err := fileread.File(path, max)
	if err != nil {
		return nil, failure{err}
	}
	cases, err := readSelectionCases(path, data)
	if err != nil {
		return nil, failure{err}
	}
	return cases, nil
}

// readSelectionCases reads a selection evaluation set: one JSON object a
// line with task, mode and want (and id, lang).
func readSelectionCases(path string, data []byte) ([]layered.EvalCase, error) {
	var out []layered.EvalCase
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var c layered.EvalCase
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("%s:%d: %v: write one JSON object a line with id, lang, task, mode and want", path, line, err)
		}
		if strings.TrimSpace(c.Task) == "" || len(c.Want) == 0 {
			return nil, fmt.Errorf("%s:%d: a case needs a task and the tools it wants", path, line)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w: one task a line, each under 16 MiB", path, err)
	}
	return out, nil
}

// printSelectionBreakdown prints, under a selection's figures, its
// precision and recall by language (when the cases name one, in the
// order they first appear), and the tools most often wanted and not
// picked, and picked and not wanted, the most first: where a catalog's
// words, keywords or concepts need work.
func printSelectionBreakdown(w io.Writer, cases []layered.EvalCase, r *layered.EvalReport) {
	type figs struct {
		p, r float64
		n    int
	}
	var langs []string
	byLang := map[string]*figs{}
	missed, extra := map[string]int{}, map[string]int{}
	for i, c := range r.Cases {
		if l := cases[i].Lang; l != "" {
			if byLang[l] == nil {
				byLang[l] = &figs{}
				langs = append(langs, l)
			}
			f := byLang[l]
			f.p, f.r, f.n = f.p+c.Precision, f.r+c.Recall, f.n+1
		}
		got := c.Got[:min(len(c.Got), r.K)]
		for _, t := range cases[i].Want {
			if !slices.Contains(got, t) {
				missed[t]++
			}
		}
		for _, t := range got {
			if !slices.Contains(cases[i].Want, t) {
				extra[t]++
			}
		}
	}
	if len(langs) > 1 {
		parts := make([]string, len(langs))
		for i, l := range langs {
			f := byLang[l]
			parts[i] = fmt.Sprintf("%s %.3f %.3f (%d)", l, f.p/float64(f.n), f.r/float64(f.n), f.n)
		}
		fmt.Fprintf(w, "by language, precision and recall: %s\n", strings.Join(parts, ", "))
	}
	most := func(m map[string]int) string {
		names := slices.Collect(maps.Keys(m))
		slices.SortFunc(names, func(a, b string) int {
			if m[a] != m[b] {
				return m[b] - m[a]
			}
			return strings.Compare(a, b)
		})
		parts := make([]string, 0, 5)
		for _, n := range names[:min(len(names), 5)] {
			parts = append(parts, fmt.Sprintf("%s %d", n, m[n]))
		}
		return strings.Join(parts, ", ")
	}
	if len(missed) > 0 {
		fmt.Fprintf(w, "wanted and not picked, most often: %s\n", most(missed))
	}
	if len(extra) > 0 {
		fmt.Fprintf(w, "picked and not wanted, most often: %s\n", most(extra))
	}
}
