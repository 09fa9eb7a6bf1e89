package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/internal/suggest"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/provider"
)

// assembleOpts are the flags of assemble that every preset shares.
type assembleOpts struct {
	logFile, correlationID string
	asJSON, allowEmpty     bool
	model                  string
	tokenizer              string
	context, reserve       int
	explain                bool
	provider, systemRole   string
	cacheBreakpoints       bool
	strictify              bool
	allowModelMismatch     bool
}

func (a *app) assembleCmd() *cobra.Command {
	var o assembleOpts
	reg := a.engine.Registry
	var uses []string
	for _, p := range reg.Presets() {
		var in []string
		for _, i := range p.Inputs() {
			if i.Selects {
				in = append(in, "--"+i.Name+" "+strings.ToUpper(strings.ReplaceAll(i.Name, "-", "_")))
			}
		}
		uses = append(uses, strings.Join(in, " "))
	}
	cmd := &cobra.Command{
		Use:   "assemble (" + strings.Join(uses, " | ") + ")",
		Short: "Assemble a prompt with one of the presets and print it",
		Long: `Assemble one prompt and print its exact text, or with --json the full
audit record (text, hash, sources or spec, timestamp, correlation id,
budget). With --log, or a "log" path in tessera.yaml, the record is also
appended to that JSON Lines file.

The presets, each chosen by its selecting flags:

` + presetList(reg) + `

Every preset's inputs are among the flags below. Each preset is also a
subcommand with its own inputs only, without their prefix, and the shared
flags: "tessera assemble typed --typed FILE --params FILE" is "tessera
assemble --typed FILE --typed-params FILE".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.assemble(cmd, &o) },
	}
	f := cmd.Flags()
	seen := map[string]bool{}
	for _, p := range reg.Presets() {
		for _, in := range p.Inputs() {
			if seen[in.Name] {
				continue
			}
			seen[in.Name] = true
			switch in.Kind {
			case preset.Int:
				f.Int(in.Name, 0, in.Usage)
			case preset.Bool:
				f.Bool(in.Name, false, in.Usage)
			default:
				f.String(in.Name, "", in.Usage)
			}
		}
	}
	sharedAssembleFlags(f, &o)
	for _, p := range reg.Presets() {
		cmd.AddCommand(a.presetCmd(p))
	}
	a.completeFlags(cmd)
	return cmd
}

// sharedAssembleFlags defines the flags of assemble that every preset
// shares on f, into o.
func sharedAssembleFlags(f *pflag.FlagSet, o *assembleOpts) {
	f.BoolVar(&o.asJSON, "json", false, "print the full audit record as JSON instead of the prompt text")
	f.BoolVar(&o.allowEmpty, "allow-empty", false, "accept an empty prompt (by default an empty prompt is an error: exit 1)")
	f.StringVar(&o.logFile, "log", "", "append the audit record to this JSON Lines file (default: tessera.yaml's log, if any)")
	f.StringVar(&o.correlationID, "correlation-id", "", "correlation id for the record (default: a new random UUID)")
	f.StringVar(&o.model, "model", "", "model: whose tokenizer counts the budget, and the model of a --provider request (gpt-5, gpt-4o, o3, gpt-4, claude-*, gemini-*; default: the provider's, else tessera.yaml's budget model, else gpt-4o)")
	f.StringVar(&o.tokenizer, "tokenizer", "", "count the budget with this tokenizer file: a Hugging Face tokenizer.json or a GGUF model file (default: the one tessera.yaml's tokenizers: maps the model to, else the model's built-in counter; see docs/TOKENIZERS.md)")
	f.IntVar(&o.context, "budget", 0, "fit the prompt into this many tokens of context (0: no budget)")
	f.IntVar(&o.reserve, "reserve", 0, "tokens of the budget kept for the reply")
	f.BoolVar(&o.explain, "explain", false, "print a table of where the budget's tokens go to standard error")
	f.StringVar(&o.provider, "provider", "", "print the request body for this API instead of the text: "+strings.Join(formatNames(), ", "))
	f.StringVar(&o.systemRole, "system-role", "developer", "with --provider openai or openai-responses: the system-side message's role, developer or system")
	f.BoolVar(&o.cacheBreakpoints, "cache-breakpoints", false, "with --provider anthropic: mark the end of the stable prefix with cache_control breakpoints")
	f.BoolVar(&o.strictify, "strictify", false, "with --provider: make the output and tool schemas strict-mode compatible where that can be done")
	f.BoolVar(&o.allowModelMismatch, "allow-model-mismatch", false, "with --provider: send a --model of another provider (through a proxy that serves it under this API, say); without it, that is an error")
}

// formatNames lists the --provider names.
func formatNames() []string {
	var names []string
	for _, f := range provider.Formats() {
		names = append(names, f.String())
	}
	return names
}

// presetArgs returns the preset inputs given as flags, by name, and the
// values of the file inputs (which name files as the user gave them).
func presetArgs(flags *pflag.FlagSet, presets []preset.Preset) (preset.Args, []string, []string) {
	args := preset.Args{}
	var given, files []string
	for _, p := range presets {
		for _, in := range p.Inputs() {
			fl := flags.Lookup(in.Name)
			if fl == nil || !fl.Changed || args.Has(in.Name) {
				continue
			}
			args[in.Name] = fl.Value.String()
			given = append(given, in.Name)
			if in.Kind == preset.File {
				files = append(files, fl.Value.String())
			}
		}
	}
	return args, given, files
}

func (a *app) assemble(cmd *cobra.Command, o *assembleOpts) error {
	flags := cmd.Flags()
	presets := a.engine.Registry.Presets()
	args, given, files := presetArgs(flags, presets)
	p, err := a.engine.Registry.Select(given)
	if err != nil {
		return err
	}
	return a.assembleWith(cmd, o, p, args, files)
}

// assembleWith assembles with preset p from its inputs args (files are
// the values of its file inputs, as given) and prints the result.
func (a *app) assembleWith(cmd *cobra.Command, o *assembleOpts, p preset.Preset, args preset.Args, files []string) error {
	flags := cmd.Flags()
	req := engine.Request{Preset: p.Name(), Args: args, AllowEmpty: o.allowEmpty}
	if o.provider != "" {
		f, err := provider.ParseFormat(o.provider)
		if err != nil {
			if near := suggest.Nearest(o.provider, formatNames()); near != "" {
				return usageHint{fmt.Errorf("--provider: %w: did you mean %s?", err, near), cmd.CommandPath()}
			}
			return fmt.Errorf("--provider: %w", err)
		}
		if o.systemRole != "developer" && o.systemRole != "system" {
			return fmt.Errorf("--system-role %q: use developer or system", o.systemRole)
		}
		req.Delivery = &engine.Delivery{Format: f, Model: o.model, SystemRole: o.systemRole, CacheBreakpoints: o.cacheBreakpoints, Strictify: o.strictify, AllowModelMismatch: o.allowModelMismatch}
		if o.reserve > 0 {
			req.Delivery.MaxTokens = o.reserve
		}
	} else if o.cacheBreakpoints || o.strictify || flags.Changed("system-role") {
		return errors.New("--system-role, --cache-breakpoints and --strictify need --provider")
	} else if o.allowModelMismatch {
		return errors.New("--allow-model-mismatch needs --provider: it allows a --model of another provider in the request body")
	}
	if o.correlationID != "" {
		if err := audit.CheckCorrelationID(o.correlationID); err != nil {
			return fmt.Errorf("--correlation-id: %w", err)
		}
	}
	req.CorrelationID = o.correlationID
	var err error
	if req.MaxFileBytes, err = a.maxFileBytes(); err != nil {
		return err
	}
	ctx := cmd.Context()
	c, err := a.openCatalogIfAny(ctx)
	if err != nil {
		return err
	}
	if c != nil {
		defer c.Close()
		req.Catalog = c
	}
	if o.context == 0 && (c == nil || c.Config().Budget == nil) && (o.explain || (o.reserve != 0 && o.provider == "")) {
		return errors.New("--reserve and --explain need --budget (or a budget in tessera.yaml)")
	}
	if flags.Changed("model") && o.provider == "" && o.context == 0 && (c == nil || c.Config().Budget == nil) {
		fmt.Fprintf(a.stderr, "warning: --model %s does nothing here: it names the model of a token budget or a request body; add --budget N or --provider NAME\n", o.model)
	}
	if o.tokenizer != "" && o.context == 0 && (c == nil || c.Config().Budget == nil) {
		fmt.Fprintf(a.stderr, "warning: --tokenizer %s does nothing here: it counts a token budget; add --budget N\n", o.tokenizer)
	}
	req.Budget = &engine.Budget{Model: o.model, Context: o.context, Reserve: -1, Tokenizer: o.tokenizer}
	if flags.Changed("reserve") {
		req.Budget.Reserve = o.reserve
	}
	if o.logFile != "" {
		req.Log = &audit.Log{Path: o.logFile}
	}
	res, err := a.engine.Assemble(ctx, req)
	if err != nil {
		switch {
		case errors.Is(err, preset.ErrNoCatalog):
			_, ferr := findRoot()
			if ferr == nil {
				ferr = err
			}
			return failure{ferr}
		case engine.IsUsage(err):
			return usageHint{err, cmd.CommandPath()}
		}
		if h := workflowHint(ctx, c, args["workflow"], args["node"]); h != "" {
			return failure{fmt.Errorf("%v\n%s", a.fail(err, files...), h)}
		}
		return a.fail(err, files...)
	}
	if o.explain && res.Budget != nil {
		if err := res.Budget.WriteTable(a.stderr); err != nil {
			return err
		}
	}
	for _, n := range res.Notes {
		fmt.Fprintln(a.stderr, n)
	}
	switch {
	case o.asJSON:
		data, err := res.Record.Marshal()
		if err != nil {
			return failure{err}
		}
		_, err = a.stdout.Write(data)
		return err
	case res.Body != nil:
		_, err = a.stdout.Write(append(res.Body, '\n'))
		return err
	}
	_, err = io.WriteString(a.stdout, res.Prompt.Text)
	return err
}

// presetList describes each preset of reg for assemble's help: its
// selecting flags and what it assembles (preset.Describer), one a line.
func presetList(reg *preset.Registry) string {
	var b strings.Builder
	for i, p := range reg.Presets() {
		if i > 0 {
			b.WriteString("\n")
		}
		var sel []string
		for _, in := range p.Inputs() {
			if in.Selects {
				sel = append(sel, "--"+in.Name)
			}
		}
		fmt.Fprintf(&b, "  %s (%s)", p.Name(), strings.Join(sel, ", "))
		if d, ok := p.(preset.Describer); ok {
			fmt.Fprintf(&b, ": %s", d.Summary())
		}
	}
	return b.String()
}
