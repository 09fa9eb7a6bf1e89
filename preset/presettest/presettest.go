// Package presettest checks that a preset keeps the promises the engine
// and its users rely on, in the spirit of testing/slogtest: give it a
// preset and inputs, and it assembles them through the engine and reports
// every broken promise.
//
// Each promise is a subtest of the case, named as below, and a failure
// starts with the sentence it keeps. For each case it checks that:
//   - assembling twice gives the same bytes, and the hash is the SHA-256 of
//     the text;
//   - every section span lies inside the text, its hash is that of its
//     text, and the top-level spans follow each other in order;
//   - every untrusted body and item appears inside a fence that no line of
//     it closes;
//   - fitted to a budget half its size (or the smallest that fits), the
//     prompt fits, and every never-trimmed section is still there, whole;
//   - the audit record, written to a log and replayed, lays out to the
//     same bytes;
//   - the request bodies for all four provider APIs encode, are valid
//     JSON, and carry every section's text.
//
// Once per preset it checks that its selecting inputs do not clash with
// those of Tessera's presets, and that the compile units it lists from a
// catalog are the same each time and each lays out.
package presettest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/presets"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/render"
	"github.com/tessera-dev/tessera/tokenizer"
)

// Case is one set of inputs to check a preset with.
type Case struct {
	// Name names the case in failures.
	Name string
	// Args are the preset's inputs.
	Args preset.Args
	// Catalog is the catalog the inputs come from, or nil.
	Catalog *catalog.Catalog
}

// A promise is one thing a preset keeps, checked on one case: its name
// names the subtest, and says is the sentence a failure starts with.
type promise struct {
	name, says string
	check      func(ctx context.Context, s *subject) []error
}

// subject is one case assembled, for the promises to check.
type subject struct {
	e      *engine.Engine
	p      preset.Preset
	req    engine.Request
	res    *engine.Result
	layout *preset.Layout
	dir    string
}

// promises are the promises checked on every case, in order.
var promises = []promise{
	{"deterministic", "assembling the same inputs twice gives the same bytes, and the hash is the SHA-256 of the text", func(ctx context.Context, s *subject) []error {
		again, err := s.e.Assemble(ctx, s.req)
		if err != nil {
			return []error{fmt.Errorf("assemble again: %w", err)}
		}
		var errs []error
		if again.Prompt.Text != s.res.Prompt.Text {
			errs = append(errs, fmt.Errorf("two assemblies differ at line %d", audit.FirstDiff(s.res.Prompt.Text, again.Prompt.Text).Line))
		}
		if s.res.Prompt.Hash != prompt.Hash(s.res.Prompt.Text) {
			errs = append(errs, fmt.Errorf("%s is not the SHA-256 of the text", s.res.Prompt.Hash))
		}
		return errs
	}},
	{"spans", "every section span lies inside the text and hashes to its text, top-level spans follow each other in order, and each section's text is the text at its span", func(_ context.Context, s *subject) []error {
		return checkSpans(s.res)
	}},
	{"fenced", "every untrusted body and item stands inside a fence that no line of it closes", func(_ context.Context, s *subject) []error {
		return checkFences(s.res.Prompt.Text, s.layout.Sections)
	}},
	{"budget", "fitted to a budget half its size (or the smallest that fits), the prompt fits and keeps every never-trimmed section whole", func(ctx context.Context, s *subject) []error {
		return checkBudget(ctx, s.e, s.req, s.layout, s.res.Prompt.Text)
	}},
	{"replay", "the audit record, written to a log and replayed, lays out to the same bytes", func(ctx context.Context, s *subject) []error {
		return checkReplay(ctx, s.e, s.req, s.dir)
	}},
	{"bodies", "the request bodies for all four provider APIs encode, are valid JSON, carry every section's text and send no tool twice", func(ctx context.Context, s *subject) []error {
		return checkBodies(ctx, s.e, s.req, s.res)
	}},
}

// Run checks preset p on every case, each as a subtest of t with a
// subtest for each promise, in the manner of testing/slogtest; and,
// once, that p's selecting inputs do not clash with other's (Tessera's
// five presets when other is nil) and that the compile units it lists
// from the first case's catalog are the same each time and each lays out.
// The engine is given a registry holding p alone.
func Run(t *testing.T, p preset.Preset, cases ...Case) {
	t.Helper()
	reg, err := preset.NewRegistry(p)
	if err != nil {
		t.Fatalf("registering %s: %v", p.Name(), err)
	}
	e := &engine.Engine{Registry: reg}
	t.Run("inputs", func(t *testing.T) {
		if err := checkInputs(p, presets.Default()); err != nil {
			t.Errorf("a preset's selecting inputs choose it alone among the registered presets: %v", err)
		}
	})
	for _, c := range cases {
		if c.Catalog != nil {
			t.Run("units", func(t *testing.T) {
				if err := checkUnits(context.Background(), p, c.Catalog); err != nil {
					t.Errorf("the compile units a preset lists are the same each time, and each lays out: %v", err)
				}
			})
			break
		}
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			s, err := assemble(context.Background(), e, p, c, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			for _, pr := range promises {
				t.Run(pr.name, func(t *testing.T) {
					if errs := pr.check(context.Background(), s); len(errs) > 0 {
						t.Errorf("%s:\n%v", pr.says, errors.Join(errs...))
					}
				})
			}
		})
	}
}

// Check checks one case with engine e, writing its audit log under dir,
// and returns every broken promise joined, or nil.
func Check(ctx context.Context, e *engine.Engine, p preset.Preset, c Case, dir string) error {
	s, err := assemble(ctx, e, p, c, dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, pr := range promises {
		for _, err := range pr.check(ctx, s) {
			errs = append(errs, fmt.Errorf("%s: %w", pr.name, err))
		}
	}
	return errors.Join(errs...)
}

// assemble assembles case c once and lays it out, for the promises.
func assemble(ctx context.Context, e *engine.Engine, p preset.Preset, c Case, dir string) (*subject, error) {
	req := engine.Request{Preset: p.Name(), Args: c.Args, Catalog: c.Catalog, NoLog: true, CorrelationID: "presettest-1", AllowEmpty: true}
	res, err := e.Assemble(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("assemble: %w", err)
	}
	env, err := engine.Env(c.Catalog)
	if err != nil {
		return nil, err
	}
	l, err := p.Load(ctx, env, c.Args)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	return &subject{e: e, p: p, req: req, res: res, layout: l, dir: dir}, nil
}

// checkInputs checks that p can be registered beside the presets of
// other (those of another name): no two of them are selected by the same
// input.
func checkInputs(p preset.Preset, other *preset.Registry) error {
	var keep []preset.Preset
	for _, q := range other.Presets() {
		if q.Name() != p.Name() {
			keep = append(keep, q)
		}
	}
	_, err := preset.NewRegistry(append(keep, p)...)
	return err
}

// checkUnits lists p's compile units from catalog c twice, checks that
// both lists name the same outputs in the same order, and lays each out.
func checkUnits(ctx context.Context, p preset.Preset, c *catalog.Catalog) error {
	env, err := engine.Env(c)
	if err != nil {
		return err
	}
	first, err := p.Units(ctx, env)
	if err != nil {
		return fmt.Errorf("units: %w", err)
	}
	second, err := p.Units(ctx, env)
	if err != nil {
		return fmt.Errorf("units again: %w", err)
	}
	if len(first) != len(second) {
		return fmt.Errorf("units: %d, then %d", len(first), len(second))
	}
	var errs []error
	for i, u := range first {
		if u.Out != second[i].Out {
			errs = append(errs, fmt.Errorf("unit %d: %q, then %q", i, u.Out, second[i].Out))
		}
		if u.Load == nil {
			errs = append(errs, fmt.Errorf("unit %q: no Load", u.Out))
			continue
		}
		if _, err := u.Load(ctx); err != nil {
			errs = append(errs, fmt.Errorf("unit %q: %w", u.Out, err))
		}
	}
	return errors.Join(errs...)
}

func checkSpans(res *engine.Result) []error {
	var errs []error
	text := res.Prompt.Text
	end := 0
	for _, s := range res.Prompt.Sections {
		if s.Start < 0 || s.End < s.Start || s.End > len(text) {
			errs = append(errs, fmt.Errorf("span %q [%d, %d) is outside the text's %d bytes", s.Key, s.Start, s.End, len(text)))
			continue
		}
		if s.Hash != prompt.Hash(text[s.Start:s.End]) {
			errs = append(errs, fmt.Errorf("span %q: its hash is not that of its text", s.Key))
		}
		if !strings.Contains(s.Key, "/") {
			if s.Start < end {
				errs = append(errs, fmt.Errorf("span %q starts at %d, inside the section before it (ends at %d)", s.Key, s.Start, end))
			}
			end = s.End
		}
	}
	for _, s := range res.Sections {
		if text[s.Start:s.End] != s.Text {
			errs = append(errs, fmt.Errorf("section %q: its text is not the text at its span", s.Key))
		}
	}
	return errs
}

// checkFences checks that every untrusted body and item stands inside a
// tilde fence longer than any tilde run inside it.
func checkFences(text string, secs []prompt.Section) []error {
	var errs []error
	var walk func(ss []prompt.Section)
	walk = func(ss []prompt.Section) {
		for i := range ss {
			s := &ss[i]
			if s.Trust == prompt.Untrusted {
				for _, t := range untrustedTexts(s) {
					if !fenced(text, t) {
						errs = append(errs, fmt.Errorf("untrusted text of %q is not fenced: %.40q", s.Key, t))
					}
				}
			}
			walk(s.Children)
		}
	}
	walk(secs)
	return errs
}

func untrustedTexts(s *prompt.Section) []string {
	var out []string
	if b := render.Body(s); b != "" {
		out = append(out, b)
	}
	for _, it := range s.Items {
		out = append(out, it.Text)
	}
	return out
}

// fenced reports whether t appears in text inside a fence: below an
// opening line "~~~text" (tildes then the info "text", as the engine writes
// untrusted text) longer than any tilde run t could close it with, with no
// closing line of tildes at least as long in between.
func fenced(text, t string) bool {
	need := len(guard.ChooseFence(t))
	for i := 0; ; {
		j := strings.Index(text[i:], t)
		if j < 0 {
			return false
		}
		k := i + j
		closer := 0 // the longest bare run of tildes between the fence and t
		for end := strings.LastIndexByte(text[:k], '\n'); end >= 0; end = strings.LastIndexByte(text[:end], '\n') {
			line := text[strings.LastIndexByte(text[:end], '\n')+1 : end]
			rest := strings.TrimLeft(line, "~")
			run := len(line) - len(rest)
			if run >= 3 && rest == "" {
				closer = max(closer, run)
			}
			if run >= 3 && rest == "text" {
				if run >= need && closer < run {
					return true
				}
				break
			}
		}
		i = k + 1
	}
}

// checkBudget fits the layout to about half its tokens and checks that
// the result fits and keeps every never-trimmed section whole.
func checkBudget(ctx context.Context, e *engine.Engine, req engine.Request, l *preset.Layout, text string) []error {
	counter := tokenizer.O200kBase()
	full := counter.Count(text) + tokenizer.MessageOverhead(max(l.Messages, 1))
	var never []prompt.Section
	// listOnly are the sections that are a list and nothing else, by key
	// path, with how many items they have.
	listOnly := map[string]int{}
	var walk func(parent string, ss []prompt.Section)
	walk = func(parent string, ss []prompt.Section) {
		for _, s := range ss {
			if s.Trim == prompt.TrimNever {
				never = append(never, s)
			}
			path := prompt.JoinKey(parent, s.Key)
			if len(s.Items) > 0 && render.Body(&s) == "" && len(s.Children) == 0 {
				listOnly[path] = len(s.Items)
			}
			walk(path, s.Children)
		}
	}
	walk("", l.Sections)
	for _, limit := range []int{full, full*3/4 + 1, full/2 + 1, full/3 + 1} {
		r := req
		r.Budget = &engine.Budget{Model: "gpt-4o", Context: max(limit, 1), Reserve: 0}
		res, err := e.Assemble(ctx, r)
		var nd *budget.NeverDropError
		if errors.As(err, &nd) {
			continue // the never-trimmed sections alone do not fit: a clear refusal
		}
		if err != nil {
			return []error{fmt.Errorf("budget %d: %w", limit, err)}
		}
		if res.Budget == nil || res.Budget.Final > res.Budget.Limit {
			return []error{fmt.Errorf("budget %d: the fitted prompt does not fit: %+v", limit, res.Budget)}
		}
		if limit == full && res.Prompt.Text != text {
			return []error{fmt.Errorf("budget %d: a prompt that fits was changed", limit)}
		}
		for _, s := range never {
			if b := render.Body(&s); b != "" && !strings.Contains(res.Prompt.Text, b) {
				return []error{fmt.Errorf("budget %d: never-trimmed section %q lost its body", limit, s.Key)}
			}
		}
		// A list that lost every item goes whole: no note is left saying
		// what went from a section that shows nothing else.
		for _, sr := range res.Budget.Sections {
			if n, ok := listOnly[sr.Key]; ok && len(sr.ItemsDropped) == n && !sr.Dropped {
				return []error{fmt.Errorf("budget %d: section %q lost all %d items but was kept, with only its note", limit, sr.Key, n)}
			}
		}
	}
	return nil
}

// checkReplay writes the record to a log and replays it.
func checkReplay(ctx context.Context, e *engine.Engine, req engine.Request, dir string) []error {
	log := &audit.Log{Path: filepath.Join(dir, "presettest.jsonl")}
	r := req
	r.Log, r.CorrelationID = log, "presettest-replay"
	if _, err := e.Assemble(ctx, r); err != nil {
		return []error{fmt.Errorf("assemble with a log: %w", err)}
	}
	rep, err := e.Replay(ctx, req.Catalog, log, "presettest-replay")
	if err != nil {
		return []error{fmt.Errorf("replay: %w", err)}
	}
	if !rep.OK() {
		v := rep.Verdicts[0]
		return []error{fmt.Errorf("replay: %s: %v %+v", v.Status, v.Err, v.Diff)}
	}
	return nil
}

// checkBodies encodes the result for every provider API and checks each
// body is JSON that carries every section's text, and sends no tool
// twice.
func checkBodies(ctx context.Context, e *engine.Engine, req engine.Request, res *engine.Result) []error {
	var errs []error
	for _, f := range provider.Formats() {
		r := req
		r.Delivery = &engine.Delivery{Format: f}
		got, err := e.Assemble(ctx, r)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s body: %w", f, err))
			continue
		}
		var v any
		if err := json.Unmarshal(got.Body, &v); err != nil {
			errs = append(errs, fmt.Errorf("%s body is not JSON: %v", f, err))
			continue
		}
		body := string(got.Body)
		// With native tools the text names them instead of repeating
		// their schemas, so the body carries its own assembly's sections.
		for _, tl := range got.Tools {
			if len(tl.Parameters) > 0 && strings.Contains(got.Prompt.Text, string(tl.Parameters)) {
				errs = append(errs, fmt.Errorf("%s body sends tool %q twice: natively and its schema in the text", f, tl.Name))
			}
		}
		for _, s := range got.Sections {
			if !strings.Contains(body, jsonText(s.Text)) {
				errs = append(errs, fmt.Errorf("%s body lacks the text of section %q", f, s.Key))
			}
		}
	}
	return errs
}

// jsonText is s as it appears inside a JSON string, HTML characters not
// escaped.
func jsonText(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	q := strings.TrimSuffix(b.String(), "\n")
	return q[1 : len(q)-1]
}
