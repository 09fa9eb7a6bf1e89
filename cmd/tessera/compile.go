package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/preset"
)

func (a *app) compileCmd() *cobra.Command {
	var (
		out           string
		check, asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "compile",
		Short: "Build every prompt of the catalog; write build/prompts, or fail listing every problem",
		Long: `Build every prompt the catalog holds and write each under <out> (tessera.yaml's
out, or --out), with a manifest.json listing each prompt's source, path,
hash and size:

` + unitsList(a.engine.Registry) + `

With a budget in tessera.yaml, every prompt must fit it. When anything
fails, every problem is listed as path:line: message, nothing is written,
and the previous output stays as it was. With --check, assemble and report
but write nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			c, err := a.openCatalog(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			e := a.progressEngine()
			if check {
				built, err := e.Build(ctx, c)
				if err != nil {
					return a.compileFailed(err, true, asJSON)
				}
				if asJSON {
					return writeJSON(a.stdout, compileJSON{OK: true, Check: true, Prompts: builtEntries(built)})
				}
				fmt.Fprintf(a.stdout, "checked %d prompts: all assemble\n", len(built))
				return nil
			}
			res, err := e.Compile(ctx, c, out)
			if err != nil {
				return a.compileFailed(err, false, asJSON)
			}
			if asJSON {
				removed := make([]string, len(res.Removed))
				for i, p := range res.Removed {
					removed[i] = filepath.ToSlash(p)
				}
				return writeJSON(a.stdout, compileJSON{OK: true, Dir: filepath.ToSlash(res.Dir), Prompts: res.Prompts, Removed: removed})
			}
			for _, p := range res.Removed {
				fmt.Fprintf(a.stdout, "removed %s, left by an interrupted compile\n", filepath.ToSlash(p))
			}
			fmt.Fprintf(a.stdout, "compiled %d prompts into %s\n", len(res.Prompts), filepath.ToSlash(res.Dir))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory (default: tessera.yaml's out, or build/prompts, under the root)")
	cmd.Flags().BoolVar(&check, "check", false, "assemble every node and report problems, but write nothing")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the prompts (path, hash, bytes, and what each was built from) or the problems as one JSON object (see docs/CLI.md)")
	return cmd
}

func (a *app) compileFailed(err error, check, asJSON bool) error {
	if asJSON {
		if werr := writeJSON(a.stdout, compileJSON{Check: check, Prompts: []catalog.ManifestEntry{}, Problems: a.problems(err)}); werr != nil {
			return werr
		}
		return silentFailure
	}
	var list diag.List
	list.Add(err)
	note := "nothing written; the previous output is unchanged"
	if check {
		note = "nothing written (--check)"
	}
	return failure{fmt.Errorf("%v\ncompile failed: %d problem(s); %s", a.fail(err), len(list), note)}
}

// unitsList says, one preset a line, what compile builds with each preset
// of reg that says (preset.Describer).
func unitsList(reg *preset.Registry) string {
	var lines []string
	for _, p := range reg.Presets() {
		if d, ok := p.(preset.Describer); ok && d.UnitsSummary() != "" {
			lines = append(lines, "  "+p.Name()+": "+d.UnitsSummary())
		}
	}
	return strings.Join(lines, "\n")
}

// progressEngine returns the app's engine, with a progress bar of the
// prompts built on standard error when that is a terminal.
func (a *app) progressEngine() *engine.Engine {
	if !isTerminal(a.stderr) {
		return a.engine
	}
	e := *a.engine
	bar := progressBar(a.stderr, "building")
	e.Progress = func(done, total int, _ string) { bar(done, total) }
	return &e
}
