// Package budget fits a prompt into an exact token budget. It counts each
// rendered section with a tokenizer.Counter (cached by the section's
// content hash), trims sections by priority and by each section's own
// trim rule until the prompt fits, confirms the fit by counting the whole
// prompt, then gives back, most important first, whatever it took that
// still fits by exact count, so the budget is full and not just safe; it
// reports every decision.
//
// Fit works on any preset: the preset supplies its sections and a Render
// function that is a pure function of the sections, and Fit drops
// sections, drops items and truncates bodies, then renders again.
package budget

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/tokenizer"
)

// Budget is the token limit a prompt must fit.
type Budget struct {
	// Context is the model's context window in tokens.
	Context int
	// Reserve is the part of the window kept for the reply; the prompt
	// must fit in Context - Reserve.
	Reserve int
	// Caps limits individual sections, by key (nested keys joined with
	// '/'), to at most that many tokens each.
	Caps map[string]int
	// Overhead is the number of tokens the provider adds around the text
	// (message framing); it is added to the final count.
	Overhead int
	// Output is the tokens of the output schema the request carries
	// beside the text; it is added to the final count.
	Output int
}

// Framing prices what a provider receives beside the prompt's text, so
// that the budget counts the request as it is sent: the text split into
// the messages the body carries, and the native tool definitions of the
// sections kept. A section's tools cost while it is kept and go when it
// is dropped.
type Framing interface {
	// Count returns the tokens of the request that carries prompt p,
	// rendered from the kept sections secs: its text as the body carries
	// it, and apart from it the native tool definitions of secs with what
	// frames them (0 when secs have none). count counts a string through
	// the budget's cache.
	Count(p prompt.Prompt, secs []prompt.Section, count func(string) int) (text, tools int)
	// Tool returns what one tool definition costs on its own, to price a
	// section the budget may drop; Count decides the total.
	Tool(t prompt.Tool, count func(string) int) int
}

// Limit returns the number of tokens the prompt may use:
// Context - Reserve.
func (b Budget) Limit() int { return b.Context - b.Reserve }

// Render turns sections into a prompt. It must be a pure function of its
// argument: Fit calls it again after trimming. Sections the budget drops
// are absent from the slice; a section whose items were dropped has
// Omitted raised by their number.
type Render func(sections []prompt.Section) prompt.Prompt

// Options configures Fit.
type Options struct {
	// Counter counts tokens; required.
	Counter tokenizer.Counter
	// Cache keeps section counts across calls; nil uses a fresh cache.
	Cache *Cache
	// Marker is the text appended to a truncated body, with %d standing
	// for the number of tokens cut; empty uses DefaultMarker.
	Marker string
	// Framing, when set, counts the request as a provider receives it:
	// the text as its messages carry it and the native tools of the
	// sections kept. Nil counts the rendered text whole, without tools.
	Framing Framing
}

// DefaultMarker marks a truncated body; it is counted in the budget.
const DefaultMarker = "\n[… %d tokens truncated to fit the budget]"

// Result is a fitted prompt and the report of how it was fitted.
type Result struct {
	// Sections are the sections as rendered: trimmed, some dropped.
	Sections []prompt.Section
	// Prompt is Render(Sections).
	Prompt prompt.Prompt
	// Report records every decision.
	Report Report
}

// Report is what the budget decided, for the assembly's metadata.
type Report struct {
	// Counter names the counter ("o200k_base", "estimate/anthropic").
	Counter string `json:"counter"`
	// Exact is false when the counts are estimates.
	Exact bool `json:"exact"`
	// Context, Reserve and Limit restate the budget.
	Context int `json:"context"`
	Reserve int `json:"reserve"`
	Limit   int `json:"limit"`
	// Overhead is the provider framing included in Before and Final.
	Overhead int `json:"overhead"`
	// Output is the output schema's tokens, included in Before and
	// Final.
	Output int `json:"output,omitempty"`
	// Tools is the tokens of the native tool definitions sent with the
	// fitted prompt, with what frames them, included in Final; each
	// kept section's share is its SectionReport.Tools.
	Tools int `json:"tools,omitempty"`
	// Provider names the request format whose framing was counted
	// ("openai", "anthropic", ...), and Model the model whose figures
	// it used; empty when the text was counted whole.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// Before is the untrimmed prompt's count as the sum of its sections
	// and the text between them, each counted exactly, overhead included.
	// Tokens that merge across the joins can make the whole text's own
	// count a few tokens lower; the untrimmed prompt is not counted whole
	// unless it is close to the limit.
	Before int `json:"before"`
	// Final is the count of the fitted prompt, overhead included; it is
	// at or under Limit.
	Final int `json:"final"`
	// Sections has one entry per section of the input, in input order
	// (depth first).
	Sections []SectionReport `json:"sections"`
}

// SectionReport is what happened to one section.
type SectionReport struct {
	Key      string `json:"key"`
	Priority int    `json:"priority"`
	Rule     string `json:"rule"`
	// Cap is the section's own cap, 0 if none.
	Cap int `json:"cap,omitempty"`
	// Before and After are the tokens of the section's rendered text
	// before and after fitting; After is 0 for a dropped section.
	Before int `json:"before"`
	After  int `json:"after"`
	// Tools is what the section's own native tool definitions cost
	// (priced one by one), when it has any.
	Tools int `json:"tools,omitempty"`
	// Dropped is true when the whole section was removed, by its own
	// trim rule or with a dropped ancestor.
	Dropped bool `json:"dropped,omitempty"`
	// DroppedWith is the key of the nearest dropped ancestor when the
	// section went with it rather than by its own rule: bringing that
	// ancestor back would bring this section back as it was.
	DroppedWith string `json:"dropped_with,omitempty"`
	// ItemsDropped lists the ids of the items removed and not given
	// back, in removal order.
	ItemsDropped []string `json:"items_dropped,omitempty"`
	// TruncatedTokens and TruncatedBytes say how much of the body was
	// cut (the marker is not included).
	TruncatedTokens int `json:"truncated_tokens,omitempty"`
	TruncatedBytes  int `json:"truncated_bytes,omitempty"`
}

// NeverDropError is returned when the sections that may not be trimmed do
// not fit on their own.
type NeverDropError struct {
	Limit    int
	Required int // tokens of the prompt with everything trimmable trimmed
	Sections []SectionCount
}

// SectionCount is a section key and its tokens.
type SectionCount struct {
	Key    string
	Tokens int
}

func (e *NeverDropError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "prompt needs %d tokens with every trimmable section trimmed, over the limit of %d; sections that may not be trimmed:", e.Required, e.Limit)
	for i, s := range e.Sections {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " %s (%d tokens)", s.Key, s.Tokens)
	}
	b.WriteString("; raise the budget, lower the reserve, or shorten those sections")
	return b.String()
}

// unit is one section of the tree being fitted.
type unit struct {
	path    string // key path, '/'-joined
	index   int    // depth-first position
	sec     *prompt.Section
	parent  *unit
	dropped bool
	rep     *SectionReport
	// For truncation: the body as given, its tokens, the tokens kept so
	// far, and whether nothing more can be cut.
	original       string
	originalTokens int
	keptTokens     int
	exhausted      bool
	// For item rules: the items as given, which of them are out, the
	// order they went out in, and the section's own Omitted as given.
	items       []prompt.Item
	itemOut     []bool
	itemDropped []int
	itemTokens  []int // -1 until counted
	baseOmitted int
	// frame, from frameAt's version of the prompt (see fitter.frame).
	frameAt int
	frame   int
	frameOK bool
	// last is the count of the section's span the last time it was
	// rendered, its tools' price included, which is what it costs to
	// bring back after a drop.
	last int
	// tools is the price of the section's own tool definitions, one by
	// one (see Framing.Tool).
	tools int
	kids  []*unit
	// touched is the version of the prompt at which refill last changed
	// the section or one inside it.
	touched int
}

// Fit fits sections into b, trimming by priority and trim rule, and
// returns the trimmed sections, their rendering and the report. The input
// is not modified. The result always fits: its final count, by
// opts.Counter, with b.Overhead, is at or under b.Limit(); when the
// sections that may not be trimmed do not fit on their own, Fit returns a
// *NeverDropError. The result is also full: no dropped section (whose
// parent is kept) and no dropped item could come back on its own without
// going over the limit or a cap, and a truncated body keeps the longest
// prefix that fits.
func Fit(ctx context.Context, sections []prompt.Section, render Render, b Budget, opts Options) (*Result, error) {
	if opts.Counter == nil {
		return nil, errors.New("budget: no counter")
	}
	if b.Context <= 0 || b.Reserve < 0 || b.Overhead < 0 || b.Output < 0 {
		return nil, fmt.Errorf("budget: context %d, reserve %d, overhead %d, output %d: the context must be above 0, the reserve, overhead and output 0 or more", b.Context, b.Reserve, b.Overhead, b.Output)
	}
	if b.Limit() <= 0 {
		return nil, fmt.Errorf("budget: reserve %d leaves nothing of the %d-token context", b.Reserve, b.Context)
	}
	cache := opts.Cache
	if cache == nil {
		cache = NewCache(0)
	}
	marker := opts.Marker
	if marker == "" {
		marker = DefaultMarker
	}
	fixed := b.Overhead + b.Output
	f := &fitter{counter: opts.Counter, cache: cache, render: render, limit: b.Limit() - fixed, marker: marker, caps: b.Caps, grewAt: -1, framing: opts.Framing}
	f.secs = cloneSections(sections)
	f.report = Report{Counter: opts.Counter.Name(), Exact: opts.Counter.Exact(), Context: b.Context, Reserve: b.Reserve, Limit: b.Limit(), Overhead: b.Overhead, Output: b.Output}
	f.walk(f.secs, "", nil)
	f.priceTools()
	for i, u := range f.units {
		u.rep = &f.report.Sections[i]
	}
	for key := range b.Caps {
		if f.byPath(key) == nil {
			return nil, fmt.Errorf("budget: cap for section %q: no such section; use one of %s", key, strings.Join(f.paths(), ", "))
		}
	}

	// Count every section as it is. The whole prompt is counted exactly
	// only when the estimate (sections plus the text between them) says
	// it fits; that count decides.
	p := render(f.secs)
	counts := f.spanCounts(p)
	est := f.estimate(p, counts)
	f.report.Before = est + fixed
	for _, u := range f.units {
		u.rep.Before = counts[u.path] - f.subtreeTools(u)
		u.rep.Cap = b.Caps[u.path]
		u.rep.Tools = u.tools
	}

	// Per-section caps.
	capped := false
	for _, u := range f.units {
		cp := b.Caps[u.path]
		if cp <= 0 || counts[u.path] <= cp {
			continue
		}
		if u.sec.Trim == prompt.TrimNever {
			return nil, fmt.Errorf("budget: section %q has %d tokens, over its cap of %d, and its trim rule is never: raise the cap or shorten the section", u.path, counts[u.path], cp)
		}
		for counts[u.path] > cp && f.canTrimUnit(u) {
			f.trim(u, counts[u.path]-cp, counts[u.path])
			p = f.rerender()
			counts = f.spanCounts(p)
		}
		capped = true
	}
	if capped {
		est = f.estimate(p, counts)
	}

	// The total: trim the least important first until the estimate
	// fits, then confirm with the exact count.
	order := f.trimOrder()
	total := -1
	for round := 0; ; round++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Tokens can merge across the joins, so the estimate may be over
		// by about one token per join: within that slack, or under the
		// limit, the exact count decides.
		if est <= f.limit+len(p.Sections)+1 {
			total = f.countTotal(p)
			if total <= f.limit {
				break
			}
			est = total
		}
		if !f.canTrim(order) {
			return nil, f.neverDropError(est+fixed, counts)
		}
		deficit := est - f.limit + round
		for _, u := range order {
			if deficit <= 0 {
				break
			}
			if f.canTrimUnit(u) {
				deficit -= f.trim(u, deficit, counts[u.path])
			}
		}
		p = f.rerender()
		counts = f.spanCounts(p)
		est = f.estimate(p, counts)
	}
	// Give back what the estimates took beyond what was needed.
	f.p, f.total = p, total
	if err := f.refill(ctx); err != nil {
		return nil, err
	}
	if f.version > 0 {
		p = f.p
		counts = f.spanCounts(p)
	}
	if f.framing != nil {
		// The tools' share of the prompt kept (the last count may have
		// been of a piece that did not fit); the counts are cached.
		f.total = f.countTotal(p)
		f.report.Tools = f.toolsTotal
		// What frames the tools' list (not in any one tool's price) was
		// sent with the untrimmed prompt too.
		frame := f.toolsTotal
		for _, u := range f.units {
			if !u.dropped && !f.ancestorDropped(u) {
				frame -= u.tools
			}
		}
		if frame > 0 {
			f.report.Before += frame
		}
	}
	f.report.Final = f.total + fixed
	for _, u := range f.units {
		switch {
		case u.dropped:
			u.rep.Dropped = true
		case f.ancestorDropped(u):
			u.rep.Dropped = true
			for a := u.parent; a != nil; a = a.parent {
				if a.dropped {
					u.rep.DroppedWith = a.path
					break
				}
			}
		default:
			u.rep.After = counts[u.path] - f.subtreeTools(u)
		}
		for _, i := range u.itemDropped {
			u.rep.ItemsDropped = append(u.rep.ItemsDropped, u.items[i].ID)
		}
	}
	return &Result{Sections: f.live(), Prompt: p, Report: f.report}, nil
}

type fitter struct {
	counter tokenizer.Counter
	cache   *Cache
	render  Render
	limit   int // tokens for the text alone
	marker  string
	caps    map[string]int
	secs    []prompt.Section
	units   []*unit
	report  Report
	scratch []prompt.Section // reused by rerender
	// Once the prompt fits: the prompt, its exact count, a number that
	// changes whenever either does, and its spans by key.
	p       prompt.Prompt
	total   int
	version int
	pAt     int // the version p was counted at
	spans   map[string]int
	// Pieces given back on their estimates, not yet counted (see refill),
	// the tokens they are expected to take, and whether estimates have
	// proved wrong in this fit.
	pending      []*candidate
	pendingCost  int
	pendingSlack int // how much less than pendingCost they may take
	exactOnly    bool
	undone       bool // pieces given on estimates were just taken out
	// grewAt is the version at which the room last grew: a piece given
	// back took fewer tokens than nothing, or estimates were undone.
	grewAt int
	// framing counts the request as sent, when set; toolsTotal is the
	// tools' share of the last exact total.
	framing     Framing
	toolsTotal  int
	toolScratch []prompt.Section // reused by countTotal
}

func (f *fitter) walk(secs []prompt.Section, parent string, up *unit) {
	for i := range secs {
		s := &secs[i]
		path := prompt.JoinKey(parent, s.Key)
		f.report.Sections = append(f.report.Sections, SectionReport{Key: path, Priority: s.Priority, Rule: s.Trim.String()})
		u := &unit{path: path, index: len(f.units), sec: s, parent: up, baseOmitted: s.Omitted, frameAt: -1, touched: -1}
		if up != nil {
			up.kids = append(up.kids, u)
		}
		if s.Trim == prompt.TrimLowestRelevance || s.Trim == prompt.TrimOldest {
			u.items = s.Items // cloneSections copied them; setItems makes new slices
			u.itemOut = make([]bool, len(s.Items))
			u.itemTokens = make([]int, len(s.Items))
			for i := range u.itemTokens {
				u.itemTokens[i] = -1
			}
		}
		f.units = append(f.units, u)
		f.walk(s.Children, path, u)
	}
}

func (f *fitter) byPath(path string) *unit {
	for _, u := range f.units {
		if u.path == path {
			return u
		}
	}
	return nil
}

func (f *fitter) paths() []string {
	var out []string
	for _, u := range f.units {
		out = append(out, u.path)
	}
	return out
}

func (f *fitter) ancestorDropped(u *unit) bool {
	for p := u.parent; p != nil; p = p.parent {
		if p.dropped {
			return true
		}
	}
	return false
}

// trimOrder lists the trimmable units, least important first: highest
// priority number first, and among equal priorities the later section
// first.
func (f *fitter) trimOrder() []*unit {
	var out []*unit
	for _, u := range f.units {
		if u.sec.Trim != prompt.TrimNever {
			out = append(out, u)
		}
	}
	slices.SortStableFunc(out, func(a, b *unit) int {
		if a.sec.Priority != b.sec.Priority {
			return b.sec.Priority - a.sec.Priority
		}
		return b.index - a.index
	})
	return out
}

// canTrim reports whether any unit can still give up tokens.
func (f *fitter) canTrim(order []*unit) bool {
	return slices.ContainsFunc(order, f.canTrimUnit)
}

// canTrimUnit reports whether u can still give up tokens.
func (f *fitter) canTrimUnit(u *unit) bool {
	if u.dropped || f.ancestorDropped(u) {
		return false
	}
	switch u.sec.Trim {
	case prompt.TrimDrop:
		return true
	case prompt.TrimLowestRelevance, prompt.TrimOldest:
		return slices.ContainsFunc(u.sec.Items, func(it prompt.Item) bool { return !it.Keep })
	case prompt.TrimTruncate:
		return !u.exhausted && u.sec.Body != ""
	}
	return false
}

// estimate is the prompt's count as the sum of its sections' counts and
// the counts of the text between them.
func (f *fitter) estimate(p prompt.Prompt, counts map[string]int) int {
	n, at := 0, 0
	for _, sp := range p.Sections {
		if sp.Start < at || sp.End > len(p.Text) || sp.Start > sp.End {
			continue // nested or malformed: its parent's span covers it
		}
		n += f.count(p.Text[at:sp.Start]) + counts[sp.Key]
		at = sp.End
	}
	if len(p.Sections) == 0 {
		return f.count(p.Text)
	}
	return n + f.count(p.Text[at:])
}

// rerender renders the sections that are still kept.
// The top-level slice is reused from one render to the next: Render is a
// pure function of it and keeps nothing.
func (f *fitter) rerender() prompt.Prompt {
	f.scratch = f.appendLive(f.scratch[:0])
	return f.render(f.scratch)
}

// live returns the section tree without dropped sections.
func (f *fitter) live() []prompt.Section {
	return f.appendLive(make([]prompt.Section, 0, len(f.secs)))
}

func (f *fitter) appendLive(out []prompt.Section) []prompt.Section {
	for _, u := range f.units {
		if u.parent == nil && !u.dropped {
			out = append(out, f.liveSection(u))
		}
	}
	return out
}

// liveSection returns u's section with its dropped descendants left out.
func (f *fitter) liveSection(u *unit) prompt.Section {
	s := *u.sec
	if len(u.kids) > 0 {
		s.Children = make([]prompt.Section, 0, len(u.kids))
		for _, k := range u.kids {
			if !k.dropped {
				s.Children = append(s.Children, f.liveSection(k))
			}
		}
	}
	return s
}

func (f *fitter) neverDropError(required int, counts map[string]int) error {
	e := &NeverDropError{Limit: f.report.Limit, Required: required}
	for _, u := range f.units {
		if u.sec.Trim == prompt.TrimNever && !u.dropped && !f.ancestorDropped(u) {
			e.Sections = append(e.Sections, SectionCount{Key: u.path, Tokens: counts[u.path]})
		}
	}
	return e
}

// cloneSections copies the section tree deeply enough that trimming the
// copy leaves the caller's sections untouched.
func cloneSections(in []prompt.Section) []prompt.Section {
	if in == nil {
		return nil
	}
	out := make([]prompt.Section, len(in))
	for i, s := range in {
		s.Items = slices.Clone(s.Items)
		s.Children = cloneSections(s.Children)
		out[i] = s
	}
	return out
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Budget returns the budget the report was made with, caps included, so a
// replay can fit the same sections the same way.
func (r *Report) Budget() Budget {
	b := Budget{Context: r.Context, Reserve: r.Reserve, Overhead: r.Overhead, Output: r.Output}
	for _, s := range r.Sections {
		if s.Cap > 0 {
			if b.Caps == nil {
				b.Caps = map[string]int{}
			}
			b.Caps[s.Key] = s.Cap
		}
	}
	return b
}
