package layered

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/tessera-dev/tessera/embed"
	"github.com/tessera-dev/tessera/internal/shuffle"
	"github.com/tessera-dev/tessera/preset/layered/untrusted"
)

// rankerFile is the file of a setup directory that holds a ranker
// fitted to its catalog (Assembler.FitRanker, "tessera layered fit").
// When it is there, selection uses it instead of the built-in ranker.
const rankerFile = "ranker.json"

// Training a ranker: a fixed number of passes of stochastic gradient
// descent on the log loss over the examples in a fixed order
// (internal/shuffle), each weight held to its prior (zero for the
// built-in model) by an L2 penalty.
const (
	rankEpochs = 8
	rankRate   = 0.05
	rankL2     = 1e-4
	// fitL2 holds a fitted model near the built-in one: a catalog's few
	// dozen tasks move it where they say, and leave the rest as it was.
	// Chosen on eval/heldout32 (22 tools of another author's catalog,
	// 64 tasks, five folds): 1e-3 to 1e-1 and 4 to 16 passes all took
	// precision@3 and recall@3 from 0.862, 0.786 to 0.878–0.901,
	// 0.831–0.839 at 4e1486e. With the tools' own weights and the
	// concepts added since: 0.901, 0.810 to 0.927, 0.854; on the 48
	// examples of eval/heldout33 and heldout34, 0.722, 0.688 to 0.688,
	// 0.740 and 0.448, 0.483 to 0.583, 0.656.
	fitL2 = 1e-2
)

// rankCase is one labelled task as the ranker sees it.
type rankCase struct {
	c        EvalCase
	inputs   []rankInput
	rules    []string // the tools the rules picked, in order
	picks    []Pick   // the same, as pick gives them
	mode     string
	concepts []string
	heads    []string  // the task's headwords (associations)
	skills   []string  // the skills the rules picked
	label    []float64 // 1 for each tool the task wants
}

// rankCases describes each case for the ranker, in the mode it gives
// (or the mode its task gives, when it gives none), with the vectors of
// the Assembler's embedder: the similarities the ranker will rank with.
//
// own adds the keys of a ranker fitted to this catalog: each tool's own
// weight, whatever the task and in its mode.
func (a *Assembler) rankCases(ctx context.Context, cases []EvalCase, own bool) ([]rankCase, error) {
	s := a.Setup
	out := make([]rankCase, 0, len(cases))
	w := a.weights()
	e, err := a.embedder()
	if err != nil {
		return nil, err
	}
	for _, c := range cases {
		mode, _, err := inferMode(s, Request{Task: c.Task, Mode: c.Mode})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", caseName(c), err)
		}
		concepts := s.taskConcepts(c.Task, s.Concepts.ofTask(c.Task), mode)
		vecs, task, _, _, err := a.embed(ctx, e, true, c.Task, &untrusted.Context{})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", caseName(c), err)
		}
		spec := s.ModeSpecs[mode]
		tools := s.toolFit(w, vecs, task, c.Task, concepts)
		if err := s.withHeadwords(&tools, c.Task); err != nil {
			return nil, err
		}
		picks, _ := pick(w, s.Tools, tools, concepts, s.conceptIDF, mode, spec.Tools, s.Scores.Min, s.Limits.MaxTools, true)
		skills, _ := pick(w, s.Skills, fitOf(w, s.Skills, vecs.skills, task, concepts, s.conceptIDF), concepts, s.conceptIDF, mode, spec.Skills, s.Scores.Min, s.Limits.MaxSkills, false)
		rc := rankCase{c: c, inputs: rankFeatures(w, s.Tools, tools, concepts, mode, picks, spec.Tools, s.Scores.Min, true), picks: picks, mode: mode, concepts: concepts, heads: tools.headNames}
		if own {
			for i := range s.Tools {
				rc.inputs[i].pairs = append(rc.inputs[i].pairs, ownKeys(&s.Tools[i], mode)...)
			}
		}
		for _, p := range picks {
			rc.rules = append(rc.rules, p.Name)
		}
		for _, p := range skills {
			rc.skills = append(rc.skills, p.Name)
		}
		for _, tool := range s.Tools {
			y := 0.0
			if slices.Contains(c.Want, tool.Name) {
				y = 1
			}
			rc.label = append(rc.label, y)
		}
		out = append(out, rc)
	}
	return out, nil
}

// caseName names a case in an error: its id, else its task.
func caseName(c EvalCase) string {
	if c.ID != "" {
		return "case " + c.ID
	}
	return fmt.Sprintf("task %q", c.Task)
}

// zOf is m's log-odds for x, read from its keys.
func (m *rankModel) zOf(x rankInput) float64 {
	z := m.Bias
	for j, v := range x.dense {
		z += m.Dense[rankDense[j]] * v
	}
	for _, p := range x.pairs {
		z += m.Pairs[p]
	}
	return z
}

// trainRanker fits a model to the cases' tools, starting from prior (nil:
// from zero) and held near it with an L2 penalty of l2, for epochs
// passes, and rounds its weights to four decimals, leaving out those that
// round to zero.
//
//go:norace
func trainRanker(cs []rankCase, prior *rankModel, epochs int, l2 float64) *rankModel {
	m := &rankModel{Dense: map[string]float64{}, Pairs: map[string]float64{}}
	dense, dense0 := make([]float64, len(rankDense)), make([]float64, len(rankDense))
	pairs0 := map[string]float64{}
	if prior != nil {
		for j, d := range rankDense {
			dense[j], dense0[j] = prior.Dense[d], prior.Dense[d]
		}
		maps.Copy(m.Pairs, prior.Pairs)
		maps.Copy(pairs0, prior.Pairs)
		m.Bias = prior.Bias
	}
	type example struct {
		x rankInput
		y float64
	}
	var ex []example
	for _, c := range cs {
		for i, x := range c.inputs {
			ex = append(ex, example{x, c.label[i]})
		}
	}
	idx := shuffle.Order(len(ex))
	for e := range epochs {
		r := rankRate / (1 + 0.5*float64(e))
		for _, i := range idx {
			x := ex[i]
			z := m.Bias
			for j, v := range x.x.dense {
				z += dense[j] * v
			}
			for _, p := range x.x.pairs {
				z += m.Pairs[p]
			}
			d := sigmoid(z) - x.y
			for j, v := range x.x.dense {
				dense[j] -= r * (d*v + l2*(dense[j]-dense0[j]))
			}
			for _, p := range x.x.pairs {
				m.Pairs[p] -= r * (d + l2*(m.Pairs[p]-pairs0[p]))
			}
			m.Bias -= r * d
		}
	}
	r4 := func(v float64) float64 { return math.Round(v*1e4) / 1e4 }
	for j, d := range rankDense {
		m.Dense[d] = r4(dense[j])
	}
	for k, v := range m.Pairs {
		if m.Pairs[k] = r4(v); m.Pairs[k] == 0 {
			delete(m.Pairs, k)
		}
	}
	m.Bias = r4(m.Bias)
	// Every key is "task side|tool side", as rankFeatures writes them.
	_ = m.index()
	return m
}

// marshal writes m as ranker.json holds it.
func (m *rankModel) marshal() ([]byte, error) {
	data, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return nil, fmt.Errorf("ranker: %w", err)
	}
	return append(data, '\n'), nil
}

// withHeadPairs is c with, in each tool's input, the keys of the pairs
// of c's headwords with the words of the tool's name (of caps) that keep
// takes: the pairs to learn.
func (c rankCase) withHeadPairs(caps []Capability, keep func(string) bool) rankCase {
	in := make([]rankInput, len(c.inputs))
	for i, x := range c.inputs {
		x.pairs = append(slices.Clip(x.pairs), headPairKeys(c.heads, &caps[i], keep)...)
		in[i] = x
	}
	c.inputs = in
	return c
}

// rankPick is what ranker r (a model laid out for the setup's tools)
// picks for c at threshold th, as Select picks: the mode's base tools,
// then the rest by r.
func (a *Assembler) rankPick(r *toolRanker, c rankCase, cut rankCut) []string {
	s := a.Setup
	out, _ := r.rerank(c.inputs, s.Tools, c.concepts, c.heads, c.mode, c.picks, cut, s.Limits.MaxTools, nil)
	names := make([]string, len(out))
	for i, p := range out {
		names[i] = p.Name
	}
	return names
}

// precisionRecall are precision@3 and recall@3 of the tools picked for
// c, as Evaluate counts them (the skills the rules picked count when the
// case wants a skill).
func precisionRecall(c rankCase, tools, skillNames []string) (float64, float64) {
	got := slices.Clone(tools)
	if slices.ContainsFunc(c.c.Want, func(w string) bool { return slices.Contains(skillNames, w) }) {
		got = append(got, c.skills...)
	}
	got = got[:min(3, len(got))]
	return ratios(hitsIn(got, c.c.Want), len(got), len(c.c.Want))
}

// minFitTasks is the fewest tasks a ranker is fitted to.
const minFitTasks = 10

// FitRanker fits the ranker to the setup's own catalog with cases,
// tasks labelled with the tools a person wants for them (the format of
// Evaluate's): starting from the built-in ranker and held near it, so
// that a few dozen tasks move it where they say and leave the rest as
// it was. It returns the model as ranker.json holds it, for the setup
// directory, where ParseSetup reads it; and builtin and fitted, the
// built-in and the fitted ranker measured on held-apart folds of the
// cases (each fold picked by a ranker fitted to the others, its mode
// given, at 3 tools). Every tool a case wants must be one of the
// catalog's; a case may leave its mode out (its task's is inferred).
// The tasks are embedded with the Assembler's embedder (the setup's,
// unless Assembler.Embedder is set): a ranker fitted with a model's
// embeddings records the model and ranks only with it, and its builtin
// report is then the rules', as selection is without it.
func (a *Assembler) FitRanker(ctx context.Context, cases []EvalCase) (model []byte, builtin, fitted *EvalReport, err error) {
	if a == nil || a.Setup == nil {
		return nil, nil, nil, errNilSetup
	}
	s := a.Setup
	if len(cases) < minFitTasks {
		return nil, nil, nil, fmt.Errorf("fit: %d tasks: give at least %d, labelled with the tools each wants", len(cases), minFitTasks)
	}
	var names, skillNames []string
	for _, c := range s.Tools {
		names = append(names, c.Name)
	}
	for _, c := range s.Skills {
		skillNames = append(skillNames, c.Name)
	}
	for _, c := range cases {
		if len(c.Want) == 0 {
			return nil, nil, nil, fmt.Errorf("fit: %s wants no tool: list the tools a person would pick for it", caseName(c))
		}
		for _, w := range c.Want {
			if !slices.Contains(names, w) && !slices.Contains(skillNames, w) {
				return nil, nil, nil, fmt.Errorf("fit: %s wants %q, which is no tool or skill of the catalog: fix the name, or add the tool to layered.yaml", caseName(c), w)
			}
		}
	}
	prior, err := builtinFor(s.byKeywords)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("fit: the built-in ranker: %w", err)
	}
	rcs, err := a.rankCases(ctx, cases, true)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("fit: %w", err)
	}
	// The built-in ranker's pairs of headwords and tool names are fitted
	// too; a catalog's few dozen tasks are too few to learn new ones.
	for i := range rcs {
		rcs[i] = rcs[i].withHeadPairs(s.Tools, func(k string) bool { _, ok := prior.Pairs[k]; return ok })
	}
	cut := s.rankCut()
	if cut.min <= 0 {
		cut = rankCut{defaultRankerThreshold, defaultRankerShare}
	}
	e, err := a.embedder()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("fit: %w", err)
	}
	// The built-in ranker ranks only with the lexical embedder's
	// similarities: with another's, selection without a fitted ranker
	// is the rules', and that is what the fitted one is measured against.
	builtinRanks, _ := rankerFor("", e)
	folds := min(5, len(rcs))
	builtinRanker := newToolRanker(prior, s.Tools)
	results := [2][]EvalResult{make([]EvalResult, len(rcs)), make([]EvalResult, len(rcs))}
	for f := range folds {
		var train []rankCase
		for i, c := range rcs {
			if i%folds != f {
				train = append(train, c)
			}
		}
		fitted := newToolRanker(trainRanker(train, prior, rankEpochs, fitL2), s.Tools)
		for i := f; i < len(rcs); i += folds {
			for k, r := range []*toolRanker{builtinRanker, fitted} {
				got := rcs[i].rules
				if k == 1 || builtinRanks {
					got = a.rankPick(r, rcs[i], cut)
				}
				p, r := precisionRecall(rcs[i], got, skillNames)
				results[k][i] = EvalResult{Task: rcs[i].c.Task, Got: got[:min(3, len(got))], Precision: p, Recall: r}
			}
		}
	}
	reports := [2]*EvalReport{}
	for k := range reports {
		r := &EvalReport{K: 3, Cases: results[k]}
		r.mean()
		reports[k] = r
	}
	m := trainRanker(rcs, prior, rankEpochs, fitL2)
	m.Tasks = len(rcs)
	if _, lexical := e.(embed.Hash); !lexical {
		m.Embedder = e.Name()
	}
	if model, err = m.marshal(); err != nil {
		return nil, nil, nil, err
	}
	return model, reports[0], reports[1], nil
}
