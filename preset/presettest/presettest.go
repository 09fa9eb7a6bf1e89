// Package presettest checks that a preset keeps the promises the engine
// and its users rely on, in the spirit of testing/slogtest: give it a
// preset and inputs, and it assembles them through the engine and reports
// every broken promise.
//
// For each case it checks that:
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

// Run checks preset p on every case, each as a subtest of t. The engine
// is given a registry holding p alone.
func Run(t *testing.T, p preset.Preset, cases ...Case) {
	t.Helper()
	reg, err := preset.NewRegistry(p)
	if err != nil {
		t.Fatalf("registering %s: %v", p.Name(), err)
	}
	e := &engine.Engine{Registry: reg}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if err := Check(context.Background(), e, p, c, t.TempDir()); err != nil {
				t.Error(err)
			}
		})
	}
}

// Check checks one case with engine e, writing its audit log under dir,
// and returns every broken promise joined, or nil.
func Check(ctx context.Context, e *engine.Engine, p preset.Preset, c Case, dir string) error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	req := engine.Request{Preset: p.Name(), Args: c.Args, Catalog: c.Catalog, NoLog: true, CorrelationID: "presettest-1", AllowEmpty: true}
	res, err := e.Assemble(ctx, req)
	if err != nil {
		return fmt.Errorf("assemble: %w", err)
	}
	again, err := e.Assemble(ctx, req)
	if err != nil {
		return fmt.Errorf("assemble again: %w", err)
	}
	if again.Prompt.Text != res.Prompt.Text {
		fail("determinism: two assemblies differ at line %d", audit.FirstDiff(res.Prompt.Text, again.Prompt.Text).Line)
	}
	text := res.Prompt.Text
	if res.Prompt.Hash != prompt.Hash(text) {
		fail("hash: %s is not the SHA-256 of the text", res.Prompt.Hash)
	}
	errs = append(errs, checkSpans(res)...)
	env, err := engine.Env(c.Catalog)
	if err != nil {
		return err
	}
	l, err := p.Load(ctx, env, c.Args)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	errs = append(errs, checkFences(text, l.Sections)...)
	errs = append(errs, checkBudget(ctx, e, req, l, text)...)
	errs = append(errs, checkReplay(ctx, e, req, dir)...)
	errs = append(errs, checkBodies(ctx, e, req, res)...)
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
