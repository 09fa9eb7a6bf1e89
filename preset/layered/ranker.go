package layered

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/tessera-dev/tessera/embed"
)

// The ranker is a logistic model that gives, for a task and one tool,
// the probability that a person picking tools for the task would pick
// it. Its features are the rules' own (how similar the tool is to the
// task, what concepts the two share, whether the tool is of the task's
// mode, whether and where the rules picked it), how much of the task's
// words in the catalog's own vocabulary the tool names (lexicon), and
// pairs of what the task names (each of its concepts, its mode) with
// each concept the tool names. None names a tool or a catalog: the pairs are of concepts, the
// built-in vocabulary every catalog's tools are read with, so what the
// model learned on the project's evaluation catalog (which tasks that
// name "debug" also need a tool that reads logs) carries to a catalog
// whose tools it never saw. It is trained on the project's tuning sets:
// those of the evaluation catalog and those of four catalogs other
// authors designed, each set read with its own catalog, so that what it
// learns is what holds across catalogs (defaults/ranker.json, made again
// by TestRankerTrained -update; TestRankerCatalogs measures it on each
// of those catalogs left out of its training).

// defaultRankerThreshold is scores.ranker's default, the probability
// from which the ranker picks a tool, and defaultRankerShare
// scores.ranker_share's, the share of the most probable tool's
// probability a tool needs beside it: a tool far less probable than the
// best is passed over however probable it is, and one near the best is
// picked from a lower probability. Both were chosen together as the pair
// that brings selection nearest the targets (precision@3 0.85, recall@3
// 0.90, at worst) on the tasks of catalogs left out of training: each
// catalog found by its keywords in turn (TestKeywordRankerCatalogs),
// 0.700, 0.707 at 0.25 alone against 0.678, 0.734; and the software
// sets' held-apart folds (TestRankerFolds), 0.838, 0.854 against 0.831,
// 0.862. 0.25 alone had been chosen on those folds as the lowest at
// which the ranker's precision stayed at the rules'.
const (
	defaultRankerThreshold = 0.15
	defaultRankerShare     = 0.25
)

// rankCut is when the ranker picks a tool: at probability min and at
// share of the most probable tool's, or more.
type rankCut struct {
	min, share float64
}

// rankDense are the names of a candidate's dense features, in order.
var rankDense = []string{"similarity", "share", "in_mode", "rule_pick", "rule_position", "rule_relative", "base", "words", "words_relative", "gloss", "gloss_relative", "assoc", "assoc_relative"}

// rankDenseSince are the dense features a ranker.json may leave out,
// each weighing 0 there: those added after models were first fitted
// (the task's headwords and their associations, see associations), so
// that a model a team fitted before reads as it ranked.
var rankDenseSince = []string{"gloss", "gloss_relative", "assoc", "assoc_relative"}

// rankModel is the ranker's weights as defaults/ranker.json holds them:
// the dense features' by name, the pairs' by key ("edit|test": a task
// naming edit, a tool naming test; "mode:act|test", "any|test",
// "none|test" for a task that names no concept; a concept written "~y"
// is one only the tool's description names).
type rankModel struct {
	Bias  float64            `json:"bias"`
	Dense map[string]float64 `json:"dense"`
	Pairs map[string]float64 `json:"pairs"`
	// Tasks are how many tasks of its catalog a fitted model was fitted
	// to (FitRanker); 0 for the built-in one.
	Tasks int `json:"tasks,omitempty"`
	// Embedder names the vector space whose similarities the model was
	// fitted to, when that is not the lexical embedder's (the built-in
	// model's): a model's weights hold for the similarities they were
	// learned from, and a model's cosines are not the lexical ones.
	Embedder string `json:"embedder,omitempty"`

	// bySide are the pairs by the tool's side, each with its task's side
	// and weight, in the order of their keys.
	bySide map[string][]rankPair
}

// rankPair is a pair's task side ("edit", "mode:act", "any", "none")
// and weight.
type rankPair struct {
	left string
	w    float64
}

// The built-in models, each read once a process: defaultRanker, trained
// on the catalogs of a software agent's work, and keywordRanker, trained
// on catalogs found by their keywords alone (see Setup.FoundByKeywords),
// which a setup without a ranker of its own ranks with when its catalog
// is one.
var (
	defaultRanker = sync.OnceValues(func() (*rankModel, error) { return builtinRanker("defaults/ranker.json") })
	keywordRanker = sync.OnceValues(func() (*rankModel, error) { return builtinRanker("defaults/ranker-keywords.json") })
)

// builtinRanker reads the built-in model at name.
func builtinRanker(name string) (*rankModel, error) {
	data, err := defaults.ReadFile(name)
	if err != nil {
		return nil, err
	}
	m, err := parseRankModel(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// parseRankModel reads a ranker model, every dense feature present.
func parseRankModel(data []byte) (*rankModel, error) {
	var m rankModel
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("not a ranker's JSON: %w", err)
	}
	for _, d := range rankDense {
		if _, ok := m.Dense[d]; !ok && !slices.Contains(rankDenseSince, d) {
			return nil, fmt.Errorf("dense: no weight for %q", d)
		}
	}
	for _, d := range slices.Sorted(maps.Keys(m.Dense)) {
		if !slices.Contains(rankDense, d) {
			return nil, fmt.Errorf("dense: %q is no feature of the ranker's (%v)", d, rankDense)
		}
	}
	if err := m.index(); err != nil {
		return nil, err
	}
	return &m, nil
}

// index groups m's pairs by the tool's side (bySide), each side's in
// the order of their task's side (the order of their keys). Sorting
// each side's few pairs, not all the keys, halves the time the keyword
// ranker's thousands take to read.
func (m *rankModel) index() error {
	m.bySide = map[string][]rankPair{}
	for k, w := range m.Pairs {
		left, right, ok := pairSides(k)
		if !ok {
			// The first such key, whatever the map's order.
			bad := slices.Sorted(maps.Keys(m.Pairs))
			k = bad[slices.IndexFunc(bad, func(k string) bool { _, _, ok := pairSides(k); return !ok })]
			return fmt.Errorf("pairs: %q is not a task's side and a tool's side joined by |", k)
		}
		m.bySide[right] = append(m.bySide[right], rankPair{left, w})
	}
	for _, ps := range m.bySide {
		slices.SortFunc(ps, func(a, b rankPair) int { return strings.Compare(a.left, b.left) })
	}
	return nil
}

// pairSides are the task's side and the tool's side of pair key k, and
// whether it has both.
func pairSides(k string) (left, right string, ok bool) {
	left, right, ok = strings.Cut(k, "|")
	return left, right, ok && left != "" && right != ""
}

// toolRanker is a rankModel laid out for one catalog's tools: what each
// tool gets whatever the task (base), for the task's mode, for each
// concept the task names, and for a task that names none.
type toolRanker struct {
	dense   []float64
	base    []float64
	mode    []map[string]float64
	concept []map[string]float64
	none    []float64
	// heads are, for each tool, the weight of each headword a task may
	// name (associations) paired with a word of the tool's name.
	heads []map[string]float64
	// keywords are each tool's keyword concept's name.
	keywords []string
}

// newToolRanker lays m out for caps.
func newToolRanker(m *rankModel, caps []Capability) *toolRanker {
	r := &toolRanker{
		base:    make([]float64, len(caps)),
		mode:    make([]map[string]float64, len(caps)),
		concept: make([]map[string]float64, len(caps)),
		none:    make([]float64, len(caps)),
		heads:   make([]map[string]float64, len(caps)),
	}
	for _, d := range rankDense {
		r.dense = append(r.dense, m.Dense[d])
	}
	for i := range caps {
		c := &caps[i]
		r.keywords = append(r.keywords, keywordPrefix+c.Name)
		r.base[i] = m.Bias
		r.mode[i], r.concept[i] = map[string]float64{}, map[string]float64{}
		// A fitted ranker's weights for this very tool (whatever the
		// task, and in its mode), then those of the tool's concepts.
		sides := []string{ownSide(c)}
		for _, y := range c.concepts {
			sides = append(sides, rankSide(c, y))
		}
		for _, side := range sides {
			for _, p := range m.bySide[side] {
				left, w := p.left, p.w
				switch {
				case left == "any":
					r.base[i] += w
				case left == "none":
					r.none[i] += w
				case strings.HasPrefix(left, "mode:"):
					r.mode[i][left[len("mode:"):]] += w
				default:
					r.concept[i][left] += w
				}
			}
		}
		for _, st := range nameStems(c) {
			for _, p := range m.bySide[namePrefix+st] {
				if h, ok := strings.CutPrefix(p.left, headPrefix); ok {
					if r.heads[i] == nil {
						r.heads[i] = map[string]float64{}
					}
					r.heads[i][h] += p.w
				}
			}
		}
	}
	return r
}

// headPrefix and namePrefix mark the two sides of a pair of a task's
// headword (see associations) and a word of a tool's name:
// "h:money|n:refun" weighs a task that names money for a tool whose name
// says refund. Tool names are the one part of a catalog written the same
// way in every team's ("issue_refund", "send_message", "run_report"),
// and a headword is found in whichever language a task is written in,
// so the keyword ranker learns these pairs on its training catalogs and
// uses them on any other: only those that went with a wanted tool in
// two of its training catalogs at least (TestRankerTrained).
const (
	headPrefix = "h:"
	namePrefix = "n:"
)

// nameStems are the stems (lexStem) of the words of c's name, split at
// its underscores and hyphens, each once: "issue_refund" gives "issue"
// and "refun".
func nameStems(c *Capability) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(c.Name), func(r rune) bool { return r == '_' || r == '-' }) {
		if st, ok := lexStem(w); ok && !slices.Contains(out, st) {
			out = append(out, st)
		}
	}
	return out
}

// headPairKeys are the keys of the pairs of heads, a task's headwords,
// with the words of c's name, those keep takes (all when keep is nil).
func headPairKeys(heads []string, c *Capability, keep func(string) bool) []string {
	var out []string
	stems := nameStems(c)
	for _, h := range heads {
		for _, st := range stems {
			if k := headPrefix + h + "|" + namePrefix + st; keep == nil || keep(k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// ownSide is how a fitted ranker's pair names the tool itself: "@" and
// its name. Only a ranker fitted to one catalog names its tools.
func ownSide(c *Capability) string {
	return "@" + c.Name
}

// ownKeys are the keys of a fitted ranker's pairs for tool c: the tool
// whatever the task, and in the task's mode.
func ownKeys(c *Capability, mode string) []string {
	side := ownSide(c)
	return []string{"any|" + side, "mode:" + mode + "|" + side}
}

// rankSide is how a pair names the tool's concept y: "~y" when only its
// description names it.
func rankSide(c *Capability, y string) string {
	if strings.HasPrefix(y, keywordPrefix) {
		return taskSide(c, y)
	}
	if slices.Contains(c.major, y) {
		return y
	}
	return "~" + y
}

// ownKeywords and otherKeywords name keyword concepts in the ranker's
// pairs whatever the catalog: the tool's own (a task that says one of
// its keywords) and another tool's. The concepts themselves are named
// after their tools, which no other catalog has.
const (
	ownKeywords   = keywordPrefix + "own"
	otherKeywords = keywordPrefix + "other"
)

// taskSide is how a pair names concept t of a task, for tool c: a
// keyword concept as c's own or another's, any other as itself. A
// keyword concept c's description names is named so on the tool's side
// too.
func taskSide(c *Capability, t string) string {
	return keywordSide(t, keywordPrefix+c.Name)
}

// keywordSide names concept t for the tool whose keyword concept is own:
// ownKeywords or otherKeywords for a keyword concept, t itself for any
// other.
func keywordSide(t, own string) string {
	switch {
	case !strings.HasPrefix(t, keywordPrefix):
		return t
	case t == own:
		return ownKeywords
	default:
		return otherKeywords
	}
}

// rankInput is what the ranker sees of one tool for one task.
type rankInput struct {
	dense []float64
	pairs []string // only for training: the pairs' keys
}

// rankFeatures describes every tool of caps for a task as the ranker
// sees it, from how the task fits each (f): the dense features (among
// them the share of the task's words in the catalog's lexicon the tool
// names, and that share relative to the best tool's), and, when keys is
// set, the pairs' keys.
// A tool's score relative to the best is relative to min (scores.min)
// when the best is under it: being the best of tools that barely fit
// says little.
func rankFeatures(w weights, caps []Capability, f capFit, concepts []string, mode string, picks []Pick, base []string, min float64, keys bool) []rankInput {
	out := make([]rankInput, len(caps))
	n := len(rankDense)
	buf := make([]float64, len(caps)*n)
	scores := make([]float64, len(caps))
	best, bestLex, bestGloss, bestAssoc := min, 0.0, 0.0, 0.0
	for i := range caps {
		c := &caps[i]
		d := buf[i*n : (i+1)*n : (i+1)*n]
		d[0], d[1] = f.similarity(i), f.shared[i]
		scores[i] = d[0] + w.concept*d[1]
		if c.inMode(mode) {
			d[2] = 1
		} else {
			scores[i] *= w.otherMode
		}
		best = max2(best, scores[i])
		if f.lex != nil {
			d[7] = f.lex[i]
			bestLex = max2(bestLex, d[7])
		}
		if f.gloss != nil {
			d[9], d[11] = f.gloss[i], f.assoc[i]
			bestGloss, bestAssoc = max2(bestGloss, d[9]), max2(bestAssoc, d[11])
		}
	}
	for i := range caps {
		c := &caps[i]
		d := buf[i*n : (i+1)*n : (i+1)*n]
		if j := slices.IndexFunc(picks, func(p Pick) bool { return p.Name == c.Name }); j >= 0 {
			d[3], d[4] = 1, 1/float64(j+1)
		}
		if best > 0 {
			d[5] = scores[i] / best
		}
		if slices.Contains(base, c.Name) {
			d[6] = 1
		}
		if bestLex > 0 {
			d[8] = d[7] / bestLex
		}
		if bestGloss > 0 {
			d[10] = d[9] / bestGloss
		}
		if bestAssoc > 0 {
			d[12] = d[11] / bestAssoc
		}
		x := rankInput{dense: d}
		if keys {
			for _, y := range c.concepts {
				side := rankSide(c, y)
				x.pairs = append(x.pairs, "mode:"+mode+"|"+side, "any|"+side)
				for _, t := range concepts {
					x.pairs = append(x.pairs, taskSide(c, t)+"|"+side)
				}
				if len(concepts) == 0 {
					x.pairs = append(x.pairs, "none|"+side)
				}
			}
		}
		out[i] = x
	}
	return out
}

// z is the ranker's log-odds that tool i is needed, given its dense
// features, the task's concepts, its headwords and its mode.
func (r *toolRanker) z(i int, dense []float64, concepts, heads []string, mode string) float64 {
	z := r.base[i] + r.mode[i][mode]
	for j, v := range dense {
		z += r.dense[j] * v
	}
	for _, t := range concepts {
		z += r.concept[i][keywordSide(t, r.keywords[i])]
	}
	if len(concepts) == 0 {
		z += r.none[i]
	}
	for _, h := range heads {
		z += r.heads[i][h]
	}
	return z
}

// headsFor is what the pairs of heads, a task's headwords, with the words
// of tool i's name add to its log-odds, and the headwords that add most,
// three at most, for why.
func (r *toolRanker) headsFor(i int, heads []string) (float64, []string) {
	var sum float64
	var named []string
	for _, h := range heads {
		if w := r.heads[i][h]; w != 0 {
			sum += w
			named = append(named, h)
		}
	}
	slices.SortStableFunc(named, func(a, b string) int { return cmp.Compare(math.Abs(r.heads[i][b]), math.Abs(r.heads[i][a])) })
	return sum, named[:min(3, len(named))]
}

// rerank picks the tools by the ranker: the mode's base tools first, as
// the rules pick them, then the others whose probability reaches cut
// (its min, and its share of the most probable's), the most probable
// first, up to max. When none reaches min and the mode brings none, the
// most probable of those the rules score above zero is, so that no task is
// left without a tool while one fits it at all. passed are the best of
// those not picked, with why; explain, when not nil, says which of the
// task's headwords tool i names, and of their associated words
// (assocIndex.explain), for why.
func (r *toolRanker) rerank(in []rankInput, caps []Capability, concepts, heads []string, mode string, rules []Pick, cut rankCut, max int, explain func(i int) (named, associated string)) (out, passed []Pick) {
	type cand struct {
		i int
		p float64
	}
	out = []Pick{}
	var cands []cand
	for i := range caps {
		if j := slices.IndexFunc(rules, func(p Pick) bool { return p.Name == caps[i].Name && p.Base }); j >= 0 {
			out = append(out, rules[j])
			continue
		}
		cands = append(cands, cand{i, sigmoid(r.z(i, in[i].dense, concepts, heads, mode))})
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].p > cands[b].p })
	why := func(c cand) string {
		d := in[c.i].dense
		s := fmt.Sprintf("learned %.2f: similarity %.2f", c.p, d[0])
		if d[1] > 0 {
			s += fmt.Sprintf(", concepts %.2f", d[1])
		}
		if d[7] > 0 {
			s += fmt.Sprintf(", words %.2f", d[7])
		}
		var named, associated string
		if explain != nil && d[9]+d[11] > 0 {
			named, associated = explain(c.i)
		}
		if d[9] > 0 {
			s += fmt.Sprintf(", headwords %.2f", d[9]) + parenthesized(named)
		}
		if d[11] > 0 {
			s += fmt.Sprintf(", associations %.2f", d[11]) + parenthesized(associated)
		}
		if w, named := r.headsFor(c.i, heads); w != 0 {
			s += fmt.Sprintf(", headwords with its name %+.2f", w) + parenthesized(strings.Join(named, ", "))
		}
		if d[2] == 0 {
			s += ", of another mode"
		}
		return s
	}
	// lone is the candidate picked when no base tool is and none reaches
	// th: the most probable of those the rules score above zero.
	lone := -1
	if len(out) == 0 && (len(cands) == 0 || cands[0].p < cut.min) {
		lone = slices.IndexFunc(cands, func(c cand) bool { return in[c.i].dense[5] > 0 })
	}
	var floor float64 // the share of the best's probability a tool needs
	if len(cands) > 0 {
		floor = cut.share * cands[0].p
	}
	for n, c := range cands {
		var suffix string
		take := false
		switch {
		case max >= 0 && len(out) >= max:
			suffix = "; over the limit"
		case n == lone:
			suffix, take = fmt.Sprintf("; under scores.ranker %.2f, but the best there is", cut.min), true
		case c.p < cut.min:
			suffix = fmt.Sprintf("; under scores.ranker %.2f", cut.min)
		case c.p < floor:
			suffix = fmt.Sprintf("; under scores.ranker_share %.2f of the best's %.2f", cut.share, cands[0].p)
		default:
			take = true
		}
		if !take && len(passed) >= maxPassed {
			continue
		}
		cp := &caps[c.i]
		p := Pick{Name: cp.Name, Description: cp.Description, Score: round(c.p), Why: why(c) + suffix}
		if take {
			out = append(out, p)
		} else {
			passed = append(passed, p)
		}
	}
	return out, passed
}

// parenthesized is " (s)", or nothing for an empty s.
func parenthesized(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func sigmoid(z float64) float64 {
	return 1 / (1 + math.Exp(-z))
}

// rankerFor says whether a ranker fitted in space (rankModel.Embedder)
// may rank with e's similarities, and when not, why, for the report: the
// built-in ranker and one fitted with the lexical embedder rank with the
// lexical embedder's, one fitted with a model's embeddings with that
// model's.
func rankerFor(space string, e embed.Embedder) (ok bool, why string) {
	_, lexical := e.(embed.Hash)
	switch {
	case space == "" && lexical, space == e.Name():
		return true, ""
	case space == "":
		return false, fmt.Sprintf("off: the ranker learned from the lexical embedder's similarities, and this selection's are %s's; fit it to them with tessera layered fit, or set scores.ranker: 0", e.Name())
	}
	return false, fmt.Sprintf("off: ranker.json was fitted to %s's similarities, and this selection's are %s's; fit it again, or remove it", space, e.Name())
}

// rankCut is when the setup's ranker picks a tool (scores.ranker and
// scores.ranker_share).
func (s *Setup) rankCut() rankCut {
	return rankCut{s.Scores.Ranker, s.Scores.RankerShare}
}
