package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tessera-dev/tessera"
	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/canonical"
	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/include"
	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/schema"
	"github.com/tessera-dev/tessera/tokenizer"
)

// failure is an error in the catalog, an assembly or a replay: exit 1.
// Any other error from a command is a usage error: exit 2.
type failure struct{ err error }

func (f failure) Error() string { return f.err.Error() }
func (f failure) Unwrap() error { return f.err }

// silentFailure exits 1 after the command has already said why.
var silentFailure = failure{errors.New("")}

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var f failure
	if errors.As(err, &f) {
		if msg := f.Error(); msg != "" {
			fmt.Fprintln(stderr, msg)
		}
		return 1
	}
	fmt.Fprintf(stderr, "tessera: %v\nRun 'tessera --help' for usage.\n", err)
	return 2
}

type app struct {
	stdout, stderr io.Writer
	root           string // --root
	dir            string // the root in use, once found
	now            func() time.Time
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	a := &app{stdout: stdout, stderr: stderr, now: time.Now}
	root := &cobra.Command{
		Use:   "tessera",
		Short: "Assemble, compile and replay prompts from a catalog",
		Long: `Tessera assembles prompts for large language models from a catalog of
versioned files: templates, includes and workflows, named by tessera.yaml.

Every prompt is deterministic to the byte and carries a SHA-256 hash;
assemblies can be logged and replayed, and compile checks every workflow
node in CI.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// No Run: cobra then reports a mistyped command as an unknown
		// command with suggestions, even when flags follow it.
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&a.root, "root", "", "catalog root, the directory holding tessera.yaml (default: the nearest one at or above the current directory)")
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(a.assembleCmd(), a.compileCmd(), a.replayCmd(), a.tokensCmd(), a.versionCmd())
	return root
}

// openCatalog opens the catalog named by --root, or the nearest one found
// by walking up from the current directory.
func (a *app) openCatalog(ctx context.Context) (*catalog.Catalog, error) {
	dir := a.root
	if dir == "" {
		found, err := findRoot()
		if err != nil {
			return nil, failure{err}
		}
		dir = found
	}
	a.dir = dir
	c, err := catalog.Open(ctx, dir)
	if err != nil {
		return nil, a.fail(err)
	}
	return c, nil
}

func findRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, catalog.ConfigFile)); err == nil {
			if rel, err := filepath.Rel(wd, dir); err == nil {
				return rel, nil
			}
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no %s in %s or any directory above it: pass --root DIR", catalog.ConfigFile, wd)
		}
		dir = parent
	}
}

// fail turns a catalog error into a failure whose diagnostics name paths
// as the user can open them from the current directory.
func (a *app) fail(err error) error {
	var list diag.List
	list.Add(err)
	dir := a.dir
	lines := make([]string, len(list))
	for i, e := range list {
		if dir != "" && dir != "." {
			e = e.MapPaths(func(p string) string {
				if filepath.IsAbs(p) {
					return p
				}
				return filepath.ToSlash(filepath.Join(dir, filepath.FromSlash(p)))
			})
		}
		lines[i] = e.Error()
	}
	return failure{errors.New(strings.Join(lines, "\n"))}
}

// logPath returns the audit log to use: the flag, else tessera.yaml's log
// (which must resolve inside the catalog root), else "".
func (a *app) logPath(flag string, c *catalog.Catalog) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if c == nil {
		return "", nil
	}
	p, err := c.WritePath("log")
	if err != nil {
		return "", a.fail(err)
	}
	return p, nil
}

func (a *app) assembleCmd() *cobra.Command {
	var o assembleOpts
	cmd := &cobra.Command{
		Use:   "assemble (--workflow ID --node NODE | --spec FILE)",
		Short: "Assemble a workflow node's prompt, or a canonical prompt spec, and print it",
		Long: `Assemble one prompt and print its exact text, or with --json the full
audit record (text, hash, sources or spec, timestamp, correlation id,
budget). With --log, or a "log" path in tessera.yaml, the record is also
appended to that JSON Lines file.

--workflow and --node assemble a workflow node of the catalog (the template
preset). --spec assembles a canonical prompt spec (design 004) from a YAML
or JSON file; a catalog is optional then, and gives its redaction patterns,
budget and log when there is one.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.assemble(cmd, &o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.workflow, "workflow", "", "workflow id: the workflow file's name without .json")
	f.StringVar(&o.node, "node", "", "node_id of the node to assemble")
	f.StringVar(&o.spec, "spec", "", "assemble this canonical prompt spec (YAML or JSON) instead of a workflow node")
	f.IntVar(&o.headingLevel, "heading-level", 0, "with --spec: heading level of the section labels, 1 to 3 (default: the spec's, else 2)")
	f.BoolVar(&o.hideEmpty, "hide-empty", false, "with --spec: leave out empty sections instead of rendering \"None provided.\"")
	f.BoolVar(&o.asJSON, "json", false, "print the full audit record as JSON instead of the prompt text")
	f.BoolVar(&o.allowEmpty, "allow-empty", false, "accept an empty prompt (by default an empty prompt is an error: exit 1)")
	f.StringVar(&o.logFile, "log", "", "append the audit record to this JSON Lines file (default: tessera.yaml's log, if any)")
	f.StringVar(&o.correlationID, "correlation-id", "", "correlation id for the record (default: a new random UUID)")
	o.budget.register(f)
	f.StringVar(&o.provider, "provider", "", "print the request body for this API instead of the text: "+strings.Join(formatNames(), ", "))
	f.StringVar(&o.systemRole, "system-role", "developer", "with --provider openai or openai-responses: the system-side message's role, developer or system")
	f.BoolVar(&o.cacheBreakpoints, "cache-breakpoints", false, "with --provider anthropic: mark the end of the stable prefix with cache_control breakpoints")
	f.BoolVar(&o.strictify, "strictify", false, "with --provider: make the output and tool schemas strict-mode compatible where that can be done")
	return cmd
}

// formatNames lists the --provider names.
func formatNames() []string {
	var names []string
	for _, f := range provider.Formats() {
		names = append(names, f.String())
	}
	return names
}

// defaultModels is the model a --provider request uses when --model is
// not given.
var defaultModels = map[provider.Format]string{
	provider.OpenAIChat:      "gpt-4o",
	provider.OpenAIResponses: "gpt-4o",
	provider.Anthropic:       "claude-sonnet-4-5",
	provider.Gemini:          "gemini-2.5-pro",
}

// assembleOpts are the flags of assemble.
type assembleOpts struct {
	workflow, node, spec, logFile, correlationID string
	headingLevel                                 int
	hideEmpty, asJSON, allowEmpty                bool
	budget                                       budgetFlags
	provider, systemRole                         string
	cacheBreakpoints, strictify                  bool
}

// assembled is what either preset hands to the common end of assemble.
type assembled struct {
	text   string
	report *budget.Report
	record *audit.Record
	// request maps the result onto the provider-neutral request.
	request func() (provider.Request, error)
}

func (a *app) assemble(cmd *cobra.Command, o *assembleOpts) error {
	switch {
	case o.spec != "" && (o.workflow != "" || o.node != ""):
		return errors.New("use either --spec or --workflow and --node, not both")
	case o.spec == "" && (o.workflow == "" || o.node == ""):
		return errors.New("assemble needs --workflow and --node, or --spec")
	case o.spec == "" && (o.headingLevel != 0 || o.hideEmpty):
		return errors.New("--heading-level and --hide-empty apply to --spec")
	case o.headingLevel < 0 || o.headingLevel > 3:
		return fmt.Errorf("--heading-level %d: use 1, 2 or 3", o.headingLevel)
	}
	var format provider.Format
	if o.provider != "" {
		f, err := provider.ParseFormat(o.provider)
		if err != nil {
			return fmt.Errorf("--provider: %w", err)
		}
		format = f
		o.budget.forReply = true
		if o.budget.model == "" {
			o.budget.model = defaultModels[f]
		}
		if o.systemRole != "developer" && o.systemRole != "system" {
			return fmt.Errorf("--system-role %q: use developer or system", o.systemRole)
		}
	} else if o.cacheBreakpoints || o.strictify || cmd.Flags().Changed("system-role") {
		return errors.New("--system-role, --cache-breakpoints and --strictify need --provider")
	}
	if o.correlationID == "" {
		o.correlationID = audit.NewCorrelationID()
	} else if err := audit.CheckCorrelationID(o.correlationID); err != nil {
		return fmt.Errorf("--correlation-id: %w", err)
	}
	ctx := cmd.Context()
	var (
		c   *catalog.Catalog
		out *assembled
		err error
	)
	if o.spec != "" {
		if c, err = a.openCatalogIfAny(ctx); err != nil {
			return err
		}
		out, err = a.assembleSpec(ctx, cmd.Flags(), c, o)
	} else {
		if c, err = a.openCatalog(ctx); err != nil {
			return err
		}
		out, err = a.assembleNode(ctx, cmd.Flags(), c, o)
	}
	if c != nil {
		defer c.Close()
	}
	if err != nil {
		return err
	}
	if out.text == "" && !o.allowEmpty {
		what := o.spec
		if what == "" {
			what = o.workflow + "/" + o.node
		}
		return failure{fmt.Errorf("%s: the assembled prompt is empty: check the template and its includes, or pass --allow-empty if an empty prompt is meant", filepath.ToSlash(what))}
	}
	if o.budget.explain && out.report != nil {
		if err := out.report.WriteTable(a.stderr); err != nil {
			return err
		}
	}
	var body []byte
	if format != 0 {
		b, err := a.deliver(format, out, o)
		if err != nil {
			return err
		}
		body = b
	}
	lp, err := a.logPath(o.logFile, c)
	if err != nil {
		return err
	}
	if lp != "" {
		l := &audit.Log{Path: lp}
		if err := l.Append(ctx, out.record); err != nil {
			return failure{err}
		}
	}
	if o.asJSON {
		data, err := out.record.Marshal()
		if err != nil {
			return failure{err}
		}
		_, err = a.stdout.Write(data)
		return err
	}
	if body != nil {
		_, err = a.stdout.Write(append(body, '\n'))
		return err
	}
	_, err = io.WriteString(a.stdout, out.text)
	return err
}

// deliver encodes the request body for format, notes in the record what
// was sent, and returns the body.
func (a *app) deliver(format provider.Format, out *assembled, o *assembleOpts) ([]byte, error) {
	req, err := out.request()
	if err != nil {
		return nil, failure{err}
	}
	req.Model = o.budget.model
	if o.budget.reserve > 0 {
		req.MaxTokens = o.budget.reserve
	}
	// Ask for strict mode where the schemas allow it; say so where they
	// do not, and fix what can be fixed with --strictify.
	if req.Output != nil {
		req.Output.Schema, req.Output.Strict = a.strictSchema("output schema "+req.Output.Name, req.Output.Schema, o.strictify, format)
	}
	strictTools := len(req.Tools) > 0
	for i := range req.Tools {
		t := &req.Tools[i]
		var ok bool
		t.Parameters, ok = a.strictSchema("tool "+t.Name, t.Parameters, o.strictify, format)
		strictTools = strictTools && ok
	}
	req.StrictTools = strictTools
	counter, err := tokenizer.ForModel(req.Model)
	if err != nil {
		return nil, fmt.Errorf("--model: %w", err)
	}
	body, err := provider.Encode(format, req, provider.Options{SystemRole: o.systemRole, CacheBreakpoints: o.cacheBreakpoints, Counter: counter})
	if err != nil {
		return nil, failure{err}
	}
	out.record.Delivery = &audit.Delivery{
		Provider:           format.String(),
		Model:              req.Model,
		BodyHash:           prompt.Hash(string(body.JSON)),
		StablePrefixHash:   body.StablePrefixHash,
		StablePrefixTokens: body.StablePrefixTokens,
		Counter:            body.Counter,
		CacheBreakpoints:   body.CacheBreakpoints,
	}
	return body.JSON, nil
}

// strictSchema returns s, strictified when asked, and whether it passes
// OpenAI's strict-mode check; a schema that does not is sent without
// strict mode, with a note on standard error for the OpenAI formats.
func (a *app) strictSchema(what string, s json.RawMessage, strictify bool, format provider.Format) (json.RawMessage, bool) {
	if len(s) == 0 {
		return s, false
	}
	if strictify {
		fixed, left, err := schema.Strictify(s)
		if err == nil {
			s = fixed
			if len(left) == 0 {
				return s, true
			}
		}
	}
	v := schema.CheckStrict(s)
	if len(v) == 0 {
		return s, true
	}
	if format == provider.OpenAIChat || format == provider.OpenAIResponses {
		hint := ""
		if !strictify {
			hint = "; --strictify fixes what can be fixed"
		}
		fmt.Fprintf(a.stderr, "note: %s is sent without strict mode: %d strict-mode violation(s), the first at %s: %s%s\n", what, len(v), pointerOrRoot(v[0].Pointer), v[0].Msg, hint)
	}
	return s, false
}

func pointerOrRoot(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

// assembleNode assembles a workflow node (the template preset).
func (a *app) assembleNode(ctx context.Context, flags *pflag.FlagSet, c *catalog.Catalog, o *assembleOpts) (*assembled, error) {
	asm, err := c.Assemble(ctx, o.workflow, o.node)
	if err != nil {
		return nil, a.fail(err)
	}
	counter, b, err := o.budget.resolve(flags, c, 1)
	if err != nil {
		return nil, err
	}
	if counter != nil {
		if err := asm.Fit(ctx, b, budget.Options{Counter: counter}); err != nil {
			return nil, failure{fmt.Errorf("%s/%s: %w", o.workflow, o.node, err)}
		}
	}
	return &assembled{
		text: asm.Text, report: asm.Budget, record: asm.Record(a.now(), o.correlationID),
		// A template prompt is one user-side part, built from the
		// catalog's files alone: all of it is stable.
		request: func() (provider.Request, error) { return provider.FromPrompt(asm.Prompt, nil, provider.StableKeys("")) },
	}, nil
}

// assembleSpec assembles a canonical prompt spec (design 004).
func (a *app) assembleSpec(ctx context.Context, flags *pflag.FlagSet, c *catalog.Catalog, o *assembleOpts) (*assembled, error) {
	limits := catalog.DefaultLimits()
	if c != nil {
		limits = c.Config().Limits
	}
	data, err := fileread.File(o.spec, limits.MaxFileBytes)
	if err != nil {
		return nil, failure{err}
	}
	spec, err := canonical.ParseSpec(filepath.ToSlash(o.spec), data)
	if err != nil {
		return nil, failure{err}
	}
	cfg := canonical.Config{HeadingLevel: o.headingLevel, HideEmptySections: o.hideEmpty}
	if c != nil {
		if cfg.Redactor, err = c.Config().Redaction.Redactor(); err != nil {
			return nil, failure{err}
		}
	}
	res, err := canonical.Assemble(ctx, spec, cfg)
	if err != nil {
		return nil, failure{err}
	}
	if n := int64(len(res.Prompt.Text)); n > limits.MaxOutputBytes {
		return nil, failure{fmt.Errorf("%s: the assembled prompt is %d bytes, over the %d-byte output cap: shorten the spec, or raise %s in tessera.yaml", filepath.ToSlash(o.spec), n, limits.MaxOutputBytes, include.OutputCapKey)}
	}
	counter, b, err := o.budget.resolve(flags, c, canonical.Messages)
	if err != nil {
		return nil, err
	}
	if counter != nil {
		if err := res.Fit(ctx, b, budget.Options{Counter: counter}); err != nil {
			return nil, failure{fmt.Errorf("%s: %w", filepath.ToSlash(o.spec), err)}
		}
	}
	rec, err := res.Record(a.now(), o.correlationID)
	if err != nil {
		return nil, failure{err}
	}
	return &assembled{
		text: res.Prompt.Text, report: res.Budget, record: rec,
		request: func() (provider.Request, error) {
			req, err := provider.FromPrompt(res.Prompt, res.Sections, provider.StableKeys(canonical.StableKeys()...))
			if err != nil {
				return req, err
			}
			if res.OutputSchema != nil {
				req.Output = &provider.Output{Name: res.OutputName, Schema: res.OutputSchema}
			}
			return req, nil
		},
	}, nil
}

// openCatalogIfAny opens the catalog named by --root, or the nearest one
// above the current directory, or returns nil when there is none.
func (a *app) openCatalogIfAny(ctx context.Context) (*catalog.Catalog, error) {
	if a.root == "" {
		if _, err := findRoot(); err != nil {
			return nil, nil
		}
	}
	return a.openCatalog(ctx)
}

// budgetFlags are the token budget options of assemble.
type budgetFlags struct {
	model            string
	context, reserve int
	explain          bool
	// forReply is set with --provider: the reserve is then also the
	// request's cap on the reply's tokens.
	forReply bool
}

func (bf *budgetFlags) register(f *pflag.FlagSet) {
	f.StringVar(&bf.model, "model", "", "model: whose tokenizer counts the budget, and the model of a --provider request (gpt-5, gpt-4o, o3, gpt-4, claude-*, gemini-*; default: the provider's, else tessera.yaml's budget model, else gpt-4o)")
	f.IntVar(&bf.context, "budget", 0, "fit the prompt into this many tokens of context (0: no budget)")
	f.IntVar(&bf.reserve, "reserve", 0, "tokens of the budget kept for the reply")
	f.BoolVar(&bf.explain, "explain", false, "print a table of where the budget's tokens go to standard error")
}

// resolve returns the counter and budget for a request of the given
// number of messages: from --budget when given, else from tessera.yaml's
// budget (with --model and --reserve overriding it), else none (a nil
// counter).
func (bf *budgetFlags) resolve(flags *pflag.FlagSet, c *catalog.Catalog, messages int) (tokenizer.Counter, budget.Budget, error) {
	none := budget.Budget{}
	model, context, reserve := bf.model, bf.context, bf.reserve
	if model == "" {
		model = "gpt-4o"
	}
	if context == 0 {
		var cfg *catalog.BudgetConfig
		if c != nil {
			cfg = c.Config().Budget
		}
		if cfg == nil {
			// With --provider, --reserve alone caps the reply.
			if bf.explain || (bf.reserve != 0 && !bf.forReply) {
				return nil, none, errors.New("--reserve and --explain need --budget (or a budget in tessera.yaml)")
			}
			return nil, none, nil
		}
		context = cfg.Context
		if bf.model == "" {
			model = cfg.Model
		}
		if !flags.Changed("reserve") {
			reserve = cfg.Reserve
		}
	}
	if context < 0 || reserve < 0 || reserve >= context {
		return nil, none, fmt.Errorf("--budget %d and --reserve %d: the budget must be positive and larger than the reserve", context, reserve)
	}
	counter, err := tokenizer.ForModel(model)
	if err != nil {
		return nil, none, fmt.Errorf("--model: %w", err)
	}
	return counter, budget.Budget{Context: context, Reserve: reserve, Overhead: tokenizer.MessageOverhead(messages)}, nil
}

func (a *app) tokensCmd() *cobra.Command {
	var (
		model string
		raw   bool
	)
	cmd := &cobra.Command{
		Use:   "tokens [FILE|-]",
		Short: "Count the tokens of a file or standard input for a model",
		Long: `Count the tokens of FILE (or standard input, when FILE is - or absent) as
the model's tokenizer does, and say which counter made the count. OpenAI
models are counted exactly with their own encoding (o200k_base or
cl100k_base); Anthropic and Gemini models with a calibrated estimate.

The text is counted as assemble would use it: a byte-order mark is dropped
and CRLF and CR line ends become LF. With --raw the bytes are counted as
they are. Input that looks binary (a NUL byte or invalid UTF-8) is counted
as it is, with a warning on standard error.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := tokenizer.ForModel(model)
			if err != nil {
				return fmt.Errorf("--model: %w", err)
			}
			name := "standard input"
			var data []byte
			if len(args) == 0 || args[0] == "-" {
				data, err = io.ReadAll(io.LimitReader(cmd.InOrStdin(), fileread.DefaultMaxBytes+1))
				if err == nil && int64(len(data)) > fileread.DefaultMaxBytes {
					err = &fileread.TooLargeError{Path: name, Size: int64(len(data)), Max: fileread.DefaultMaxBytes}
				}
			} else {
				name = args[0]
				data, err = fileread.File(name, 0)
			}
			if err != nil {
				return failure{err}
			}
			text := string(data)
			if why := binaryReason(data); why != "" {
				fmt.Fprintf(a.stderr, "warning: %s looks binary (%s): counting its bytes as they are\n", name, why)
			} else if !raw {
				if text, err = prompt.Normalize(data); err != nil {
					return failure{fmt.Errorf("%s: %w", name, err)}
				}
			}
			kind := "exact"
			if !c.Exact() {
				kind = "estimate"
			}
			fmt.Fprintf(a.stdout, "%d tokens (%s, %s)\n", c.Count(text), c.Name(), kind)
			return nil
		},
	}
	cmd.Flags().StringVar(&model, "model", "gpt-4o", "model whose tokenizer to count with (or an encoding such as cl100k_base)")
	cmd.Flags().BoolVar(&raw, "raw", false, "count the bytes as they are, without dropping a byte-order mark or normalising line ends")
	return cmd
}

// binaryReason says why data looks binary, or "" when it looks like text.
func binaryReason(data []byte) string {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return fmt.Sprintf("a NUL byte at offset %d", i)
	}
	if !utf8.Valid(data) {
		return "invalid UTF-8"
	}
	return ""
}

func (a *app) compileCmd() *cobra.Command {
	var (
		out   string
		check bool
	)
	cmd := &cobra.Command{
		Use:   "compile",
		Short: "Assemble every workflow node; write build/prompts, or fail listing every problem",
		Long: `Assemble every workflow node that has a task_ref and write each prompt to
<out>/<workflow id>/<node_id>.txt, and every canonical spec of the "specs"
directory (if tessera.yaml names one) to <out>/specs/<name>.txt, with a
manifest.json listing workflow, node, task_ref or spec, hash and size. With a
budget in tessera.yaml, every prompt must fit it. When anything fails, every problem is listed
as path:line: message, nothing is written, and the previous output stays as
it was. With --check, assemble and report but write nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			c, err := a.openCatalog(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			if check {
				built, specs, err := c.BuildAll(ctx)
				if err != nil {
					return a.compileFailed(err, true)
				}
				fmt.Fprintf(a.stdout, "checked %d prompts: all assemble\n", len(built)+len(specs))
				return nil
			}
			res, err := c.Compile(ctx, out)
			if err != nil {
				return a.compileFailed(err, false)
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
	return cmd
}

func (a *app) compileFailed(err error, check bool) error {
	var list diag.List
	list.Add(err)
	note := "nothing written; the previous output is unchanged"
	if check {
		note = "nothing written (--check)"
	}
	return failure{fmt.Errorf("%v\ncompile failed: %d problem(s); %s", a.fail(err), len(list), note)}
}

func (a *app) replayCmd() *cobra.Command {
	var logFile, id string
	cmd := &cobra.Command{
		Use:   "replay --id CORRELATION_ID",
		Short: "Re-assemble a logged prompt and verify its hash",
		Long: `Find the records with the given correlation id in the audit log, check
that each stored prompt still hashes to its stored hash, re-assemble it from
the catalog as it is now, and compare. Exit 0 when every record matches; exit
1 and show the first differing line and the files that changed when one does
not, or when a stored prompt does not match its own hash.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if id == "" {
				return errors.New("replay needs --id")
			}
			ctx := cmd.Context()
			c, err := a.openCatalogIfAny(ctx)
			if err != nil {
				return err
			}
			if c != nil {
				defer c.Close()
			}
			lp, err := a.logPath(logFile, c)
			if err != nil {
				return err
			}
			if lp == "" {
				return errors.New("replay needs --log FILE (or a log path in tessera.yaml)")
			}
			rebuild := func(ctx context.Context, r *audit.Record) (*prompt.Prompt, error) {
				if r.Preset == audit.PresetCanonical {
					return canonical.Rebuild(ctx, r)
				}
				if c == nil {
					return nil, fmt.Errorf("a %q record is rebuilt from its catalog, and there is no %s here: pass --root DIR", r.Preset, catalog.ConfigFile)
				}
				return c.Rebuild(ctx, r)
			}
			rep, err := audit.Replay(ctx, &audit.Log{Path: lp}, id, rebuild)
			if err != nil {
				return failure{err}
			}
			for _, v := range rep.Verdicts {
				a.printVerdict(v, lp)
			}
			for i, b := range rep.BadLines {
				if i == 5 {
					fmt.Fprintf(a.stderr, "warning: %d more unreadable lines\n", len(rep.BadLines)-i)
					break
				}
				fmt.Fprintf(a.stderr, "warning: %s:%d: unreadable line, not a record: %v\n", filepath.ToSlash(lp), b.Line, b.Err)
			}
			if !rep.OK() {
				return silentFailure
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&logFile, "log", "", "the JSON Lines audit log (default: tessera.yaml's log)")
	cmd.Flags().StringVar(&id, "id", "", "correlation id of the record(s) to replay")
	return cmd
}

func (a *app) printVerdict(v audit.Verdict, logPath string) {
	r := v.Record
	what := r.TaskRef
	switch {
	case r.WorkflowID != "":
		what = r.WorkflowID + "/" + r.NodeID
	case r.Preset == audit.PresetCanonical:
		what = "canonical spec"
	}
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

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the Tessera version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintf(a.stdout, "tessera %s (%s %s/%s)\n", tessera.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
