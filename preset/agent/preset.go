package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/internal/wordlist"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/agent/reply"
	"github.com/tessera-dev/tessera/prompt"
)

// Name is the preset's name in records.
const Name = "agent"

// The preset's inputs. Each is an assemble flag of the same name, and
// "tessera agent ROLE" takes it without the "agent-" prefix.
const (
	InputRole           = "agent-role"
	inputGoal           = "agent-goal"
	inputWorkspace      = "agent-workspace"
	inputContext        = "agent-context"
	inputListingDepth   = "agent-listing-depth"
	inputListingEntries = "agent-listing-entries"
	inputState          = "agent-state"
	inputSubtask        = "agent-subtask"
	inputMemory         = "agent-memory"
	inputDetail         = "agent-detail"
	inputTools          = "agent-tools"
	inputPlan           = "agent-plan"
	inputDiscoveries    = "agent-discoveries"
	inputErrors         = "agent-errors"
	inputToolCalls      = "agent-tool-calls"
	inputModelOutput    = "agent-model-output"
	inputResult         = "agent-result"
	InputTemplates      = "agent-templates"
)

// Preset is the agent preset (design 000): the prompt of each step of an
// agent's loop, from YAML templates. The zero value is ready to use.
type Preset struct{}

// New returns the agent preset.
func New() *Preset { return &Preset{} }

// Name implements preset.Preset.
func (*Preset) Name() string { return Name }

// Inputs implements preset.Preset: the role, which selects the preset,
// and the files and values each role reads.
func (*Preset) Inputs() []preset.Input {
	return []preset.Input{
		{Name: InputRole, Usage: "build the agent prompt of this role (design 000): planner, executor, replanner, extractor or verifier", Selects: true},
		{Name: inputGoal, Usage: "agent planner, replanner: the task's goal"},
		{Name: inputWorkspace, Usage: "agent planner: the workspace directory, shown by its path and listed"},
		{Name: inputContext, Usage: "agent planner: context from the user"},
		{Name: inputListingDepth, Usage: "agent planner: levels of the workspace listed (default 3)", Kind: preset.Int},
		{Name: inputListingEntries, Usage: "agent planner: entries of the workspace listed (default 200)", Kind: preset.Int},
		{Name: inputState, Usage: "agent executor, replanner: the task state, a YAML file", Kind: preset.File},
		{Name: inputSubtask, Usage: "agent executor, extractor, verifier: the subtask, a YAML or JSON file", Kind: preset.File},
		{Name: inputMemory, Usage: "agent executor: the retrieved memory entries, a JSON array", Kind: preset.File},
		{Name: inputDetail, Usage: "agent executor, replanner: show the detail of memory entries, discoveries and errors", Kind: preset.Bool},
		{Name: inputTools, Usage: "agent executor: the tools for this subtask, a JSON array of {name, description, parameters}", Kind: preset.File},
		{Name: inputPlan, Usage: "agent replanner: the original plan, JSON, with each subtask's status", Kind: preset.File},
		{Name: inputDiscoveries, Usage: "agent replanner: what was discovered, a JSON array of memory entries or strings", Kind: preset.File},
		{Name: inputErrors, Usage: "agent replanner: the errors met, a JSON array of memory entries or strings", Kind: preset.File},
		{Name: inputToolCalls, Usage: "agent extractor, verifier: the tool calls made, a JSON array of {name, arguments, result}", Kind: preset.File},
		{Name: inputModelOutput, Usage: "agent extractor: the executor's output, a text file", Kind: preset.File},
		{Name: inputResult, Usage: "agent verifier: the subtask's result, a text file", Kind: preset.File},
		{Name: InputTemplates, Usage: "agent: a directory of templates (planner.yaml, ..., constraints.yaml) that replace the defaults"},
	}
}

// roleInputs returns the inputs role r reads, and those of them it needs.
func roleInputs(r Role) (reads, needs []string) {
	switch r {
	case Planner:
		return []string{inputGoal, inputWorkspace, inputContext, inputListingDepth, inputListingEntries}, []string{inputGoal}
	case Executor:
		return []string{inputState, inputSubtask, inputMemory, inputDetail, inputTools}, []string{inputState, inputSubtask}
	case Replanner:
		return []string{inputGoal, inputState, inputPlan, inputDiscoveries, inputErrors, inputDetail}, []string{inputGoal, inputState, inputPlan}
	case Extractor:
		return []string{inputSubtask, inputToolCalls, inputModelOutput}, []string{inputSubtask, inputModelOutput}
	case Verifier:
		return []string{inputSubtask, inputResult, inputToolCalls}, []string{inputSubtask, inputResult}
	}
	return nil, nil
}

// RoleInputs returns the names of the inputs role r reads (the role and
// the templates directory aside), and those of them it needs.
func RoleInputs(r Role) (reads, needs []string) {
	reads, needs = roleInputs(r)
	return slices.Clone(reads), slices.Clone(needs)
}

// checkArgs returns a *preset.InputError for the first input given that
// the role does not read, or needed and not given.
func checkArgs(r Role, args preset.Args) error {
	reads, needs := roleInputs(r)
	for _, in := range (&Preset{}).Inputs() {
		name := in.Name
		if name == InputRole || name == InputTemplates || slices.Contains(reads, name) || !args.Has(name) {
			continue
		}
		return &preset.InputError{Input: name, Err: fmt.Errorf("is not read by the %s, which reads %s", r, flagList(reads))}
	}
	for _, name := range needs {
		if !args.Has(name) {
			return &preset.InputError{Input: name, Err: fmt.Errorf("is needed by the %s: %s", r, usageOf(name))}
		}
	}
	for _, name := range []string{inputListingDepth, inputListingEntries} {
		if !args.Has(name) {
			continue
		}
		if !args.Has(inputWorkspace) {
			return &preset.InputError{Input: name, Err: fmt.Errorf("bounds the listing of --%s: give that too", inputWorkspace)}
		}
		if n, err := strconv.Atoi(args[name]); err != nil || n < 1 {
			return &preset.InputError{Input: name, Err: fmt.Errorf("%q: use a whole number, 1 or more", args[name])}
		}
	}
	return nil
}

func usageOf(name string) string {
	for _, in := range (&Preset{}).Inputs() {
		if in.Name == name {
			_, u, _ := strings.Cut(in.Usage, ": ")
			return u
		}
	}
	return ""
}

func flagList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "--" + n
	}
	return wordlist.And(out)
}

// Load implements preset.Preset: it reads the role's files (each bounded
// by env's limits), lists the workspace (shown by its absolute path),
// redacts secrets from every value with env's redactor, and builds the
// role's prompt from the templates: the defaults, replaced by the
// catalog's agent/templates files when there is a catalog, replaced by
// the --agent-templates directory's when given. Every problem in every
// file is reported at once.
func (p *Preset) Load(ctx context.Context, env *preset.Env, args preset.Args) (*preset.Layout, error) {
	if env == nil {
		env = &preset.Env{}
	}
	r, err := ParseRole(args[InputRole])
	if err != nil {
		return nil, &preset.InputError{Input: InputRole, Err: err}
	}
	if err := checkArgs(r, args); err != nil {
		return nil, err
	}
	t, err := p.templates(ctx, env, args, r)
	if err != nil {
		return nil, err
	}
	in, err := readInput(r, env, args)
	if err != nil {
		return nil, err
	}
	counts := in.redact(env.Redactor)
	l, err := Build(t, in)
	if err != nil {
		return nil, err
	}
	l.Redactions = counts
	return l, nil
}

// templates returns the templates for role r: the defaults, then the
// catalog's, then the --agent-templates directory's.
func (p *Preset) templates(ctx context.Context, env *preset.Env, args preset.Args, r Role) (*Templates, error) {
	t := DefaultTemplates()
	if c := env.Catalog; c != nil {
		var err error
		t, err = loadFrom(t, func(name string) (string, []byte, error) {
			p := catalogPath(name)
			text, err := c.ReadFile(ctx, p)
			return p, []byte(text), err
		}, []Role{r})
		if err != nil {
			return nil, err
		}
	}
	if dir, ok := args[InputTemplates]; ok {
		var err error
		if t, err = LoadDir(t, dir, env.Limits.MaxFileBytes, r); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// readInput reads the files and values of args into an Input for role r,
// reporting every problem at once.
func readInput(r Role, env *preset.Env, args preset.Args) (*Input, error) {
	in := &Input{Role: r}
	var errs diag.List
	read := func(name string, parse func(path string, data []byte) error) {
		path, ok := args[name]
		if !ok {
			return
		}
		data, err := fileread.File(path, env.Limits.MaxFileBytes)
		if err != nil {
			errs.Add(fileError(path, err))
			return
		}
		errs.Add(parse(path, data))
	}
	text := func(dst *string) func(string, []byte) error {
		return func(path string, data []byte) error {
			s, err := prompt.Normalize(data)
			if err != nil {
				return parser.EncodingError(path, err)
			}
			*dst = s
			return nil
		}
	}
	in.Goal = args[inputGoal]
	in.UserContext = args[inputContext]
	in.Detail = args[inputDetail] == "true"
	if dir, ok := args[inputWorkspace]; ok {
		// The prompt shows the directory the agent runs in, not the
		// "." that was typed.
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, &preset.InputError{Input: inputWorkspace, Err: fmt.Errorf("%q: %v: give the directory the agent works in", dir, err)}
		}
		in.Workspace = abs
		opts := ListOptions{}
		opts.MaxDepth, _ = strconv.Atoi(args[inputListingDepth])
		opts.MaxEntries, _ = strconv.Atoi(args[inputListingEntries])
		switch fi, err := os.Stat(dir); {
		case err != nil:
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, &preset.InputError{Input: inputWorkspace, Err: fmt.Errorf("%q: %v: give the directory the agent works in", dir, err)}
		case !fi.IsDir():
			return nil, &preset.InputError{Input: inputWorkspace, Err: fmt.Errorf("%q is not a directory: give the directory the agent works in", dir)}
		}
		listing, err := ListWorkspace(dir, opts)
		if err != nil {
			return nil, &preset.InputError{Input: inputWorkspace, Err: err}
		}
		in.Listing = listing
	}
	if (r == Planner || r == Replanner) && strings.TrimSpace(in.Goal) == "" {
		return nil, &preset.InputError{Input: inputGoal, Err: errors.New("is empty: say what the agent is to do")}
	}
	read(inputState, func(path string, data []byte) (err error) {
		in.TaskState, err = ParseTaskState(path, data)
		return err
	})
	var subAt subtaskPlaces
	read(inputSubtask, func(path string, data []byte) (err error) {
		in.Subtask, subAt, err = parseSubtask(path, data)
		return err
	})
	read(inputMemory, func(path string, data []byte) (err error) {
		in.Memory, err = ParseMemory(path, data)
		return err
	})
	read(inputTools, func(path string, data []byte) (err error) {
		in.Tools, err = ParseTools(path, data)
		return err
	})
	read(inputPlan, func(path string, data []byte) (err error) {
		in.Plan, err = reply.ParsePlan(path, data)
		return err
	})
	read(inputDiscoveries, func(path string, data []byte) (err error) {
		in.Discoveries, err = ParseNotes(path, data)
		return err
	})
	read(inputErrors, func(path string, data []byte) (err error) {
		in.Errors, err = ParseNotes(path, data)
		return err
	})
	read(inputToolCalls, func(path string, data []byte) (err error) {
		in.ToolCalls, err = ParseToolCalls(path, data)
		return err
	})
	read(inputModelOutput, text(&in.Output))
	read(inputResult, text(&in.Result))
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	if s := in.Subtask; s != nil && (r == Executor || r == Verifier) {
		var missing []string
		if strings.TrimSpace(s.Description) == "" {
			missing = append(missing, "description")
		}
		if strings.TrimSpace(s.AcceptanceCriteria) == "" {
			missing = append(missing, "acceptance_criteria")
		}
		if len(missing) > 0 {
			return nil, diag.List{diag.ErrorfAt(args[inputSubtask], subAt.line, subAt.col, "the subtask has no %s: the %s shows them", wordlist.And(missing), r)}
		}
	}
	if s := in.Subtask; s != nil && r == Executor && len(in.Tools) > 0 {
		var missing []string
		for _, name := range s.Tools {
			if !slices.ContainsFunc(in.Tools, func(t Tool) bool { return t.Name == name }) {
				missing = append(missing, strconv.Quote(name))
			}
		}
		if len(missing) > 0 {
			is, them := "is not a tool", "it"
			if len(missing) > 1 {
				is, them = "are not tools", "them"
			}
			e := diag.ErrorfAt(args[inputSubtask], subAt.toolsLine, subAt.toolsCol, "subtask tools: %s %s of the tools file: define %s there, or remove %s from the subtask's tools", wordlist.And(missing), is, them, them)
			e.Related = []diag.Location{{Label: "tools in", Path: args[inputTools]}}
			return nil, diag.List{e}
		}
	}
	return in, nil
}

// redact replaces secrets in every value of in with labelled
// placeholders, and counts them.
func (in *Input) redact(r *guard.Redactor) guard.Counts {
	if r == nil {
		return nil
	}
	var counts guard.Counts
	red := func(s *string) {
		if *s == "" {
			return
		}
		out, c := r.RedactSecrets(*s)
		if c != nil {
			*s = out
			counts.Merge(c)
		}
	}
	redJSON := func(raw *json.RawMessage) {
		if len(*raw) == 0 {
			return
		}
		s := string(*raw)
		red(&s)
		switch {
		case s == string(*raw):
		case json.Valid([]byte(s)):
			*raw = json.RawMessage(s)
		default:
			q, _ := json.Marshal(s) // a string always marshals
			*raw = q
		}
	}
	entries := func(es []reply.MemoryEntry) {
		for i := range es {
			e := &es[i]
			red(&e.Summary)
			red(&e.Detail)
			for j := range e.Tags {
				red(&e.Tags[j])
			}
		}
	}
	subtask := func(s *reply.Subtask) {
		if s != nil {
			red(&s.Description)
			red(&s.AcceptanceCriteria)
		}
	}
	for _, s := range []*string{&in.Goal, &in.Workspace, &in.UserContext, &in.Listing, &in.TaskState, &in.Output, &in.Result} {
		red(s)
	}
	subtask(in.Subtask)
	if in.Plan != nil {
		for i := range in.Plan.Subtasks {
			subtask(&in.Plan.Subtasks[i])
		}
	}
	entries(in.Memory)
	entries(in.Discoveries)
	entries(in.Errors)
	for i := range in.Tools {
		red(&in.Tools[i].Description)
	}
	for i := range in.ToolCalls {
		c := &in.ToolCalls[i]
		redJSON(&c.Arguments)
		red(&c.Result)
		red(&c.Error)
	}
	return counts
}

// recordVersion is the version of the agent's record format.
const recordVersion = 1

// record is what an agent prompt's audit record holds: the role's
// template and the library as they were, and the inputs as laid out
// (redacted), so Rebuild needs no file.
type record struct {
	Version  int    `json:"version"`
	Template file   `json:"template"`
	Library  file   `json:"library"`
	Input    *Input `json:"input"`
}

type file struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

// Rebuild implements preset.Preset: it lays the prompt out again from the
// record alone: the template and library texts it holds, and its inputs,
// which were redacted before they were recorded and are not redacted
// again.
func (p *Preset) Rebuild(_ context.Context, _ *preset.Env, rec *audit.Record) (*preset.Layout, error) {
	var r record
	if rec == nil || len(rec.Inputs) == 0 {
		return nil, errors.New("agent record has no inputs to rebuild from")
	}
	if err := json.Unmarshal(rec.Inputs, &r); err != nil {
		return nil, fmt.Errorf("agent record: %w", err)
	}
	if r.Version != recordVersion || r.Input == nil {
		return nil, fmt.Errorf("agent record: version %d: this Tessera reads version %d", r.Version, recordVersion)
	}
	tmpl, err := ParseTemplate(r.Input.Role, r.Template.Path, []byte(r.Template.Text))
	if err != nil {
		return nil, fmt.Errorf("agent record's template: %w", err)
	}
	lib, err := ParseLibrary(r.Library.Path, []byte(r.Library.Text))
	if err != nil {
		return nil, fmt.Errorf("agent record's constraint library: %w", err)
	}
	return Build(DefaultTemplates().With(tmpl).WithLibrary(lib), r.Input)
}

// Units implements preset.Preset. An agent prompt is built from the
// loop's state at run time, so a catalog holds nothing to compile; but
// when it has an agent/templates directory, every template and the
// library in it are checked, so the compile guardrail reports a broken
// template before an agent meets it.
func (p *Preset) Units(ctx context.Context, env *preset.Env) ([]preset.Unit, error) {
	if env == nil || env.Catalog == nil {
		return nil, nil
	}
	c := env.Catalog
	if c == nil {
		return nil, nil
	}
	_, err := loadFrom(DefaultTemplates(), func(name string) (string, []byte, error) {
		p := catalogPath(name)
		text, err := c.ReadFile(ctx, p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return p, nil, err
		}
		return p, []byte(text), err
	}, Roles())
	return nil, err
}

// planSchema is the JSON Schema of the planner's and replanner's reply,
// in a form strict structured-output modes accept. reply.ValidatePlan checks
// what a schema cannot: the number of subtasks, unique ids, dependencies.
const planSchema = `{"type":"object","properties":{"subtasks":{"type":"array","items":{"type":"object","properties":{` +
	`"id":{"type":"string"},"description":{"type":"string"},"depends_on":{"type":"array","items":{"type":"string"}},` +
	`"model_tier":{"type":"integer","enum":[1,2,3]},"verification_tier":{"type":"integer","enum":[1,2]},` +
	`"is_critical_path":{"type":"boolean"},"acceptance_criteria":{"type":"string"}},` +
	`"required":["id","description","depends_on","model_tier","verification_tier","is_critical_path","acceptance_criteria"],` +
	`"additionalProperties":false}}},"required":["subtasks"],"additionalProperties":false}`

// verdictSchema is the JSON Schema of the verifier's reply.
const verdictSchema = `{"type":"object","properties":{"passed":{"type":"boolean"},"reason":{"type":"string"},` +
	`"issues":{"type":"array","items":{"type":"string"}}},"required":["passed","reason","issues"],"additionalProperties":false}`

// Summary implements preset.Describer.
func (*Preset) Summary() string {
	return "an agent step's prompt: planner, executor, replanner, extractor or verifier (design 000)"
}

// UnitsSummary implements preset.Describer.
func (*Preset) UnitsSummary() string {
	return "the catalog's agent/templates, checked only: an agent's prompts are built at run time"
}
