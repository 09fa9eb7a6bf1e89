package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/layered"
	"github.com/tessera-dev/tessera/tokenizer"
)

// layeredCmd is "tessera layered": the layered preset's own commands.
func (a *app) layeredCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "layered",
		Short: "Work with a layered prompt setup (design 002): assemble with a report, embed the manifests, measure, fit the ranker, show its concepts",
		Long: `Commands for the layered preset's setup directory (constitution.md,
rules.md, layered.yaml; --dir DIR, else tessera.yaml's layered):

  tessera layered assemble TASK [--json]   the prompt, or design 002's report
  tessera layered embed [--force]          write vectors.json with the setup's embedder
  tessera layered eval --selection FILE    measure selection (and --injections FILE, the detector)
  tessera layered fit --selection FILE     fit the tool ranker to the catalog, into ranker.json
  tessera layered concepts                 the concepts each tool names, and the words none names

"tessera assemble --layered-task TASK" assembles the same prompt; its
--json prints the audit record.`,
		Args:               cobra.ArbitraryArgs,
		RunE:               unknownSubcommand,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
	}
	cmd.AddCommand(a.layeredAssembleCmd(), a.layeredEmbedCmd(), a.layeredEvalCmd(), a.layeredFitCmd(), a.layeredConceptsCmd())
	return cmd
}

// layeredDir returns the setup directory on disk: --dir, else the
// catalog's layered directory.
func (a *app) layeredDir(ctx context.Context, dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	c, err := a.openCatalogIfAny(ctx)
	if err != nil {
		return "", err
	}
	key := layered.New().Section().Key
	if c == nil || c.Config().Section(key) == "" {
		return "", errors.New("--dir is needed: name the setup directory (constitution.md, rules.md, layered.yaml), or set layered: in tessera.yaml")
	}
	defer c.Close()
	return filepath.Join(a.dir, filepath.FromSlash(c.Config().Section(key))), nil
}

func (a *app) layeredEmbedCmd() *cobra.Command {
	var (
		dir, outFile string
		force, quiet bool
		batch        int
	)
	cmd := &cobra.Command{
		Use:   "embed [--dir DIR] [--force]",
		Short: "Embed the setup's tools, skills and injection examples with its embedder into vectors.json",
		Long: `Embed the setup's tools, skills and injection examples with the embedder
layered.yaml names (the built-in lexical one by default, or an
OpenAI-compatible endpoint such as Ollama's), and write them to
vectors.json in the setup directory, with the embedder's name and the
vectors' dimension. Assembly then uses these vectors as they are and
embeds only the task.

Vectors already in vectors.json that the same embedder made from the
same text are kept; --force embeds everything again. The file is written
whole or not at all. A progress bar goes to standard error when it is a
terminal.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if batch < 1 {
				return fmt.Errorf("--batch %d: want 1 or more", batch)
			}
			ctx := cmd.Context()
			d, err := a.layeredDir(ctx, dir)
			if err != nil {
				return err
			}
			max, err := a.maxFileBytes()
			if err != nil {
				return err
			}
			out := filepath.Join(d, layered.VectorsFile)
			if outFile != "" {
				out = outFile
			}
			// The setup is read without its vectors, so that a stale or
			// broken vectors.json does not stop its own repair.
			setup, err := layered.ParseSetup(func(name string) (string, []byte, error) {
				p := filepath.Join(d, filepath.FromSlash(name))
				if name == layered.VectorsFile {
					return filepath.ToSlash(p), nil, fs.ErrNotExist
				}
				data, err := fileread.File(p, max)
				return filepath.ToSlash(p), data, err
			})
			if err != nil {
				return failure{err}
			}
			var old *layered.Vectors
			if data, err := fileread.File(out, max); err == nil {
				if old, err = layered.ParseVectors(filepath.ToSlash(out), data); err != nil {
					fmt.Fprintf(a.stderr, "note: %v: embedding everything again\n", err)
				}
			}
			e, err := setup.NewEmbedder(os.Getenv, nil)
			if err != nil {
				return failure{err}
			}
			var progress func(done, total int)
			if !quiet && isTerminal(a.stderr) {
				progress = progressBar(a.stderr, "embedding with "+e.Name())
			}
			v, n, err := layered.EmbedVectors(ctx, setup, e, old, force, batch, progress)
			if err != nil {
				return failure{err}
			}
			if err := writeAtomic(out, v.Marshal()); err != nil {
				return failure{err}
			}
			total := len(v.Tools) + len(v.Skills) + len(v.Injection)
			fmt.Fprintf(a.stdout, "wrote %s: %d tools, %d skills and %d injection examples from %s (%d dimensions); %d embedded, %d kept\n",
				filepath.ToSlash(out), len(v.Tools), len(v.Skills), len(v.Injection), v.Embedder, v.Dimension, n, total-n)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "the setup directory (default: tessera.yaml's layered)")
	f.BoolVar(&force, "force", false, "embed every text again, even those whose vector is up to date")
	f.IntVar(&batch, "batch", 64, "texts per request to the embedder")
	f.StringVar(&outFile, "out", "", "write the vectors to this file (default: vectors.json in the setup directory, where assembly reads them)")
	f.BoolVar(&quiet, "quiet", false, "no progress bar, even on a terminal")
	return cmd
}

func (a *app) layeredAssembleCmd() *cobra.Command {
	var (
		asJSON, interactive, reembed bool
		dir, mode, ctxFile, mems     string
		logFile, correlationID       string
		model                        string
		budget                       int
	)
	cmd := &cobra.Command{
		Use:   "assemble TASK [--json]",
		Short: "Assemble a layered prompt for TASK and print it, or with --json design 002's report",
		Long: `Assemble a trust-layered agent prompt for TASK, as "tessera assemble
--layered-task TASK" does, and print it. With --json, print design 002's
report instead: the mode and why, the tools and skills chosen, the
context (git, env, the memories and activity kept, how many entries were
filtered and which), and the metrics (the prompt's tokens, the
assembly's latency in milliseconds, the embedder and the embedding calls
made). The report names the audit record's correlation id and prompt
hash; --log appends the record itself, which "tessera replay" checks.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in := preset.Args{layered.InputTask: args[0]}
			files := []string{}
			set := func(flag, input, v string) {
				if cmd.Flags().Changed(flag) {
					in[input] = v
				}
			}
			set("mode", layered.InputMode, mode)
			set("dir", layered.InputDir, dir)
			set("context", layered.InputContext, ctxFile)
			set("memories", layered.InputMemories, mems)
			set("interactive", layered.InputInteractive, fmt.Sprint(interactive))
			set("reembed", layered.InputReembed, fmt.Sprint(reembed))
			for _, f := range []string{ctxFile, mems} {
				if f != "" {
					files = append(files, f)
				}
			}
			if correlationID != "" {
				if err := audit.CheckCorrelationID(correlationID); err != nil {
					return fmt.Errorf("--correlation-id: %w", err)
				}
			}
			req := engine.Request{Preset: layered.Name, Args: in, CorrelationID: correlationID, Budget: &engine.Budget{Model: model, Context: budget, Reserve: -1}}
			var err error
			if req.MaxFileBytes, err = a.maxFileBytes(); err != nil {
				return err
			}
			if logFile != "" {
				req.Log = &audit.Log{Path: logFile}
			}
			ctx := cmd.Context()
			start := time.Now()
			c, err := a.openCatalogIfAny(ctx)
			if err != nil {
				return err
			}
			if c != nil {
				defer c.Close()
				req.Catalog = c
			}
			res, err := a.engine.Assemble(ctx, req)
			latency := time.Since(start)
			if err != nil {
				if engine.IsUsage(err) {
					return flagNames(err)
				}
				return flagNames(a.fail(err, files...))
			}
			for _, n := range res.Notes {
				fmt.Fprintln(a.stderr, n)
			}
			if !asJSON {
				_, err := io.WriteString(a.stdout, res.Prompt.Text)
				return err
			}
			var sel layered.Selection
			if err := json.Unmarshal(res.Record.Inputs, &sel); err != nil {
				return failure{fmt.Errorf("the record holds no layered selection: %w", err)}
			}
			m := model
			if m == "" {
				m = "gpt-4o"
			}
			counter, err := tokenizer.ForModel(m)
			if err != nil {
				return fmt.Errorf("--model %q: %w", model, err)
			}
			r := sel.Report(counter.Count(res.Prompt.Text), counter.Name(), latency)
			r.CorrelationID, r.PromptSHA256 = res.Record.CorrelationID, res.Record.AssembledPromptHash
			data, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				return failure{err}
			}
			_, err = a.stdout.Write(append(data, '\n'))
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&mode, "mode", "", "plan, act, review or auto (default auto: inferred from hints and the task's words)")
	f.StringVar(&dir, "dir", "", "the setup directory (default: tessera.yaml's layered)")
	f.StringVar(&ctxFile, "context", "", "the runtime context, YAML or JSON: git, env, memories, activity")
	f.StringVar(&mems, "memories", "", "memories, JSON Lines: id, text, kind, tags, created, embedding, embedder")
	f.BoolVar(&interactive, "interactive", false, "an interactive session (hints the plan mode)")
	f.BoolVar(&reembed, "reembed", false, "embed again the manifest vectors made by another embedder or from another text (by default an error)")
	f.BoolVar(&asJSON, "json", false, "print design 002's report as JSON instead of the prompt")
	f.StringVar(&logFile, "log", "", "append the audit record to this JSON Lines file (default: tessera.yaml's log, if any)")
	f.StringVar(&correlationID, "correlation-id", "", "correlation id for the record (default: a new random UUID)")
	f.StringVar(&model, "model", "", "whose tokenizer counts the report's tokens and the budget (default gpt-4o)")
	f.IntVar(&budget, "budget", 0, "fit the prompt into this many tokens of context (0: no budget)")
	return cmd
}

// flagNames rewrites the preset's input names in a usage error as this
// command's flags: --layered-mode is --mode here.
func flagNames(err error) error {
	msg := err.Error()
	for _, n := range []string{layered.InputMode, layered.InputDir, layered.InputContext, layered.InputMemories, layered.InputInteractive, layered.InputReembed} {
		msg = strings.ReplaceAll(msg, "--"+n, "--"+strings.TrimPrefix(n, "layered-"))
	}
	msg = strings.ReplaceAll(msg, "--"+layered.InputTask+" ", "")
	if _, ok := err.(failure); ok {
		return failure{errors.New(msg)}
	}
	return errors.New(msg)
}
