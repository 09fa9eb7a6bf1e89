package layered

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tessera-dev/tessera/embed"
)

// Request is one layered assembly's own inputs.
type Request struct {
	// Task is what the user asks for.
	Task string
	// Mode is plan, act or review; empty or "auto" infers it.
	Mode string
	// Interactive hints the plan mode.
	Interactive bool
	// Context is the runtime state; nil for none.
	Context *Context
}

// Selection is what one assembly chose, and why: the mode, the tools and
// skills, the untrusted entries kept, what was filtered out, and the
// metrics. It is the whole input of the layout, so a record that keeps
// it lays the prompt out again without the embedder.
type Selection struct {
	Task       string   `json:"task"`
	Mode       string   `json:"mode"`
	ModeReason string   `json:"mode_reason"`
	Tools      []Pick   `json:"tools"`
	Skills     []Pick   `json:"skills"`
	Context    Selected `json:"context"`
	Metrics    Metrics  `json:"metrics"`
	// Constitution and Rules are the texts of the trusted layers.
	Constitution string `json:"constitution"`
	Rules        string `json:"rules,omitempty"`
	// Defaults name the built-in layer files used (Setup.Defaults).
	Defaults []string `json:"defaults,omitempty"`
}

// Pick is a selected tool or skill.
type Pick struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Score       float64 `json:"score"`
	// Base marks one the mode always offers.
	Base bool `json:"base,omitempty"`
}

// Selected is the context chosen for the prompt.
type Selected struct {
	Git      *Git   `json:"git"`
	Env      *Env   `json:"env"`
	Memories []Kept `json:"memories"`
	Activity []Kept `json:"activity"`
	// Filtered counts the untrusted entries dropped as instruction-like
	// (their kind) or as injection (their similarity to an example).
	Filtered int `json:"filtered_count"`
	// FilteredIDs names them, "memories/m3 (injection)".
	FilteredIDs []string `json:"filtered,omitempty"`
}

// Kept is an untrusted entry kept, with its similarity to the task.
type Kept struct {
	ID    string  `json:"id"`
	Text  string  `json:"text"`
	Score float64 `json:"score"`
}

// Metrics describe the assembly's cost.
type Metrics struct {
	// Embedder names the vector space used.
	Embedder string `json:"embedder"`
	// EmbeddingCalls counts the embedder's calls this assembly made:
	// one for the task with any entry that came without a vector; none
	// when the task's vector was cached and every entry brought one; one
	// more the first time a setup's manifests are used without vectors
	// made in advance (and a failed call before the lexical embedder
	// stood in).
	EmbeddingCalls int `json:"embedding_calls"`
	// EntriesEmbedded counts the entries that came without a usable
	// vector and were embedded in that call.
	EntriesEmbedded int `json:"entries_embedded"`
	// Fallback says why the lexical embedder stood in, when it did.
	Fallback string `json:"fallback,omitempty"`
}

// instructionKinds are the kinds of entry never injected.
var instructionKinds = []string{"system", "meta", "override"}

// Assembler selects and lays out layered prompts for one setup. It keeps
// the manifests' and injection examples' vectors, computed once (or read
// from the manifests); it is safe for concurrent use.
type Assembler struct {
	// Setup is the fixed parts.
	Setup *Setup
	// Embedder embeds the task (and entries without vectors); nil means
	// the one the setup's layered.yaml names (see Setup.NewEmbedder), by
	// default the built-in lexical embed.Hash.
	Embedder embed.Embedder
	// Reembed embeds again, when the setup is first used, the manifest
	// vectors that came from another embedder or another text, or are of
	// another length, which are otherwise an error naming the entry.
	Reembed bool

	space map[string]*vectors // by embedder name
	auto  embed.Embedder      // the setup's own, once made
	tasks embed.Cache         // the task vectors last made, 100 of them
	mu    sync.Mutex
}

// vectors are a setup's vectors in one embedder's space, of dim numbers.
type vectors struct {
	tools, skills, injection []embed.Vector
	dim                      int
}

// Select makes the selection for req: the mode (explicit, else a hint,
// else a keyword of the task, else act), one embedding call for the task,
// the tools and skills (the mode's base ones, then the most similar, up
// to the limits), and the untrusted entries (instruction-like kinds and
// injection-like entries dropped and counted, then the most similar). If
// the embedder fails, the lexical one stands in and the metrics say why.
// An Assembler without a Setup is an error.
func (a *Assembler) Select(ctx context.Context, req Request) (*Selection, error) {
	if a == nil || a.Setup == nil {
		return nil, errNilSetup
	}
	s := a.Setup
	if strings.TrimSpace(req.Task) == "" {
		return nil, fmt.Errorf("the task is empty: say what the agent should do")
	}
	mode, why, err := InferMode(s, req)
	if err != nil {
		return nil, err
	}
	sel := &Selection{Task: req.Task, Mode: mode, ModeReason: why, Constitution: s.Constitution, Tools: []Pick{}, Skills: []Pick{}, Defaults: slices.Clone(s.Defaults)}
	sel.Context.Memories, sel.Context.Activity = []Kept{}, []Kept{}
	rules := []string{strings.TrimSpace(s.Rules), strings.TrimSpace(s.ModeRules[mode])}
	rules = slices.DeleteFunc(rules, func(r string) bool { return r == "" })
	sel.Rules = strings.Join(rules, "\n\n")
	c := req.Context
	if c == nil {
		c = &Context{}
	}
	sel.Context.Git, sel.Context.Env = c.Git, c.Env

	e, err := a.embedder()
	if err != nil {
		return nil, err
	}
	calls := &counted{Embedder: e}
	vecs, task, entryVecs, embedded, err := a.embed(ctx, calls, true, req.Task, c)
	if err != nil {
		if _, lexical := e.(embed.Hash); lexical || isSetupError(err) || ctx.Err() != nil {
			return nil, err
		}
		fb := embed.Hash{}
		sel.Metrics.Fallback = fmt.Sprintf("%s failed (%v): selected with %s", e.Name(), err, fb.Name())
		e, calls.Embedder = fb, fb
		if vecs, task, entryVecs, embedded, err = a.embed(ctx, calls, false, req.Task, c); err != nil {
			return nil, err
		}
	}
	sel.Metrics.Embedder, sel.Metrics.EmbeddingCalls, sel.Metrics.EntriesEmbedded = e.Name(), calls.n, embedded

	spec := s.ModeSpecs[mode]
	sel.Tools = pick(s.Tools, vecs.tools, task, mode, spec.Tools, s.Scores.Min, s.Limits.MaxTools)
	sel.Skills = pick(s.Skills, vecs.skills, task, mode, spec.Skills, s.Scores.Min, s.Limits.MaxSkills)

	n := len(c.Memories)
	sel.Context.Memories = a.keep(sel, "memories", c.Memories, entryVecs[:n], vecs.injection, task, s.Limits.MaxMemories)
	sel.Context.Activity = a.keep(sel, "activity", c.Activity, entryVecs[n:], vecs.injection, task, s.Limits.MaxActivity)
	return sel, nil
}

// pick merges the mode's base capabilities with the most similar ones of
// the mode, best first, up to max.
func pick(caps []Capability, vecs []embed.Vector, task embed.Vector, mode string, base []string, min float64, max int) []Pick {
	out := []Pick{}
	have := map[string]bool{}
	for _, name := range base {
		for i, c := range caps {
			if c.Name == name && !have[name] {
				out = append(out, Pick{Name: c.Name, Description: c.Description, Score: round(embed.Cosine(task, vecs[i])), Base: true})
				have[name] = true
			}
		}
	}
	var idx []int
	var cand []embed.Vector
	for i, c := range caps {
		if c.inMode(mode) && !have[c.Name] {
			idx = append(idx, i)
			cand = append(cand, vecs[i])
		}
	}
	for _, r := range embed.Rank(task, cand, min, 0) {
		c := caps[idx[r.Index]]
		out = append(out, Pick{Name: c.Name, Description: c.Description, Score: round(r.Score)})
	}
	if max >= 0 && len(out) > max {
		out = out[:max]
	}
	return out
}

// keep drops instruction-like and injection-like entries (counting them
// in sel) and keeps the most similar of the rest, up to max.
func (a *Assembler) keep(sel *Selection, list string, entries []Entry, vecs, injection []embed.Vector, task embed.Vector, max int) []Kept {
	var (
		idx  []int
		cand []embed.Vector
	)
	for i, en := range entries {
		id := en.ID
		if id == "" {
			id = fmt.Sprint(i + 1)
		}
		if slices.Contains(instructionKinds, strings.ToLower(en.Kind)) {
			sel.Context.Filtered++
			sel.Context.FilteredIDs = append(sel.Context.FilteredIDs, fmt.Sprintf("%s/%s (kind %s)", list, id, en.Kind))
			continue
		}
		if best := bestScore(vecs[i], injection); best >= a.Setup.Scores.InjectionMin {
			sel.Context.Filtered++
			sel.Context.FilteredIDs = append(sel.Context.FilteredIDs, fmt.Sprintf("%s/%s (injection, %.2f)", list, id, best))
			continue
		}
		idx = append(idx, i)
		cand = append(cand, vecs[i])
	}
	out := []Kept{}
	for _, r := range embed.Rank(task, cand, a.Setup.Scores.MemoryMin, max) {
		en := entries[idx[r.Index]]
		id := en.ID
		if id == "" {
			id = fmt.Sprint(idx[r.Index] + 1)
		}
		out = append(out, Kept{ID: id, Text: en.Text, Score: round(r.Score)})
	}
	return out
}

func bestScore(v embed.Vector, examples []embed.Vector) float64 {
	best := -1.0
	for _, x := range examples {
		best = max(best, embed.Cosine(v, x))
	}
	return best
}

// round keeps four decimals, so that records and reports read the same
// on every platform's float formatting.
func round(f float64) float64 {
	return float64(int64(f*10000+0.5*sign(f))) / 10000
}

func sign(f float64) float64 {
	if f < 0 {
		return -1
	}
	return 1
}

// errNilSetup is the error of a selection without a setup.
var errNilSetup = errors.New("layered: no setup (nil *Setup): read one with ParseSetup and set Assembler.Setup")

// InferMode returns the mode of req and the reason: the explicit mode;
// else plan for an interactive session, act when git shows changes; else
// the first mode (plan, then review) one of whose keywords is a word of
// the task; else act. A nil setup is an error.
func InferMode(s *Setup, req Request) (mode, why string, err error) {
	if s == nil {
		return "", "", errNilSetup
	}
	if err := checkMode(req.Mode); err != nil {
		return "", "", err
	}
	if req.Mode != "" && req.Mode != "auto" {
		return req.Mode, "explicit", nil
	}
	if req.Interactive {
		return "plan", "interactive", nil
	}
	if c := req.Context; c != nil && c.Git != nil && c.Git.Changed > 0 {
		return "act", "git changes", nil
	}
	words := embed.Words(req.Task)
	for _, m := range []string{"plan", "review"} {
		for _, k := range keywordsOf(s, m) {
			if kw := embed.Words(k); len(kw) > 0 && containsRun(words, kw) {
				return m, fmt.Sprintf("keyword %q", k), nil
			}
		}
	}
	return "act", "default", nil
}

// containsRun reports whether run occurs in words, word for word: a
// keyword of several words ("code review") matches them in a row.
func containsRun(words, run []string) bool {
	for i := 0; i+len(run) <= len(words); i++ {
		if slices.Equal(words[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// checkMode refuses a mode that is not plan, act, review, auto or empty.
func checkMode(mode string) error {
	if mode == "" || mode == "auto" || slices.Contains(modes, mode) {
		return nil
	}
	return fmt.Errorf("mode %q: use plan, act, review or auto", mode)
}

// defaultKeywords infer the mode when layered.yaml gives none.
var defaultKeywords = map[string][]string{
	"plan":   {"research", "explore", "analyze", "analyse", "investigate"},
	"review": {"review", "audit", "verify", "check"},
}

func keywordsOf(s *Setup, mode string) []string {
	if ms, ok := s.ModeSpecs[mode]; ok && len(ms.Keywords) > 0 {
		return ms.Keywords
	}
	return defaultKeywords[mode]
}
