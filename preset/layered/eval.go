package layered

import (
	"context"
	"fmt"
	"slices"
)

// EvalCase is one task of an evaluation set, with the tools and skills a
// person expects for it (design 002's selection quality, tracked on a
// fixed set).
type EvalCase struct {
	// ID and Lang name the case and its language in reports.
	ID   string   `yaml:"id" json:"id,omitempty"`
	Lang string   `yaml:"lang" json:"lang,omitempty"`
	Task string   `yaml:"task" json:"task"`
	Mode string   `yaml:"mode" json:"mode,omitempty"`
	Want []string `yaml:"want" json:"want"`
}

// EvalResult is one case's outcome.
type EvalResult struct {
	Task string `json:"task"`
	// Got are the names selected, tools then skills, in the selection's
	// order, the first K of them considered.
	Got []string `json:"got"`
	// Precision is the share of the first K selected that were wanted;
	// Recall the share of the wanted among the first K.
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	// Inferred is the mode inferred from the task alone, as assembly
	// infers it with no mode given, and InferredWhy the rule that
	// decided; both empty when the case gives no mode.
	Inferred    string `json:"inferred,omitempty"`
	InferredWhy string `json:"inferred_why,omitempty"`
	// Ranked are the first K names selection ranked, picked or not:
	// those of Got, then the best of those it passed over.
	Ranked []string `json:"ranked"`
}

// EvalReport is an evaluation's outcome: each case's and the means.
type EvalReport struct {
	K             int          `json:"k"`
	Cases         []EvalResult `json:"cases"`
	MeanPrecision float64      `json:"mean_precision"`
	MeanRecall    float64      `json:"mean_recall"`
	// ModeCases are the cases that give a mode, and ModeRight those
	// whose mode, inferred from the task alone, is the one given.
	ModeCases int `json:"mode_cases"`
	ModeRight int `json:"mode_right"`
	// RankedRecall is the mean recall@K of each case's Ranked: what
	// selection would find offering K whatever their scores.
	// BestPrecision and BestRecall are the means with each case offered
	// the number of its Ranked (1 to K) with the highest precision plus
	// recall: no threshold picks better. Where they fall short, the
	// ranking does (the catalog's words, or a ranker fitted to it); the
	// rest, between them and the means, is the thresholds'.
	RankedRecall  float64 `json:"ranked_recall"`
	BestPrecision float64 `json:"best_precision"`
	BestRecall    float64 `json:"best_recall"`
}

// Evaluate selects for every case and measures precision@k and recall@k
// of the tools selected (and the skills, when the case wants one)
// against those wanted. The mode's base tools count like any other
// selection: a base tool nobody wanted lowers precision. A case that
// gives a mode is selected in it, and the mode its task alone gives is
// counted against it (ModeRight of ModeCases).
func (a *Assembler) Evaluate(ctx context.Context, cases []EvalCase, k int) (*EvalReport, error) {
	if k < 1 {
		return nil, fmt.Errorf("evaluate: k must be 1 or more, not %d", k)
	}
	r := &EvalReport{K: k}
	for _, c := range cases {
		sel, err := a.Select(ctx, Request{Task: c.Task, Mode: c.Mode})
		if err != nil {
			return nil, fmt.Errorf("evaluate %q: %w", c.Task, err)
		}
		// The skills are judged when the case wants one; a case that
		// names only tools is judged on the tools.
		picked, passed := slices.Clone(sel.Tools), slices.Clone(sel.Passed.Tools)
		if slices.ContainsFunc(c.Want, func(w string) bool {
			return slices.ContainsFunc(a.Setup.Skills, func(s Capability) bool { return s.Name == w })
		}) {
			picked = append(picked, sel.Skills...)
			passed = append(passed, sel.Passed.Skills...)
		}
		var ranked []string
		for _, p := range append(picked, passed...) {
			ranked = append(ranked, p.Name)
		}
		ranked = ranked[:min(k, len(ranked))]
		got := ranked[:min(k, len(picked))]
		hits := hitsIn(got, c.Want)
		res := EvalResult{Task: c.Task, Got: got, Ranked: ranked}
		if c.Mode != "" && c.Mode != "auto" {
			// Selection uses the case's mode; the mode a task alone
			// gives is measured on its own, as assembly infers it
			// when no mode is given.
			mode, why, err := inferMode(a.Setup, Request{Task: c.Task})
			if err != nil {
				return nil, fmt.Errorf("evaluate %q: %w", c.Task, err)
			}
			res.Inferred, res.InferredWhy = mode, why
			r.ModeCases++
			if mode == c.Mode {
				r.ModeRight++
			}
		}
		res.Precision, res.Recall = ratios(hits, len(got), len(c.Want))
		r.Cases = append(r.Cases, res)
		// The best cut of the ranking, and all of it.
		var bestP, bestR float64
		for n := 1; n <= len(ranked); n++ {
			p, rc := ratios(hitsIn(ranked[:n], c.Want), n, len(c.Want))
			if p+rc > bestP+bestR {
				bestP, bestR = p, rc
			}
			if n == len(ranked) {
				r.RankedRecall += rc
			}
		}
		r.BestPrecision += bestP
		r.BestRecall += bestR
	}
	if n := float64(len(r.Cases)); n > 0 {
		r.RankedRecall, r.BestPrecision, r.BestRecall = round(r.RankedRecall/n), round(r.BestPrecision/n), round(r.BestRecall/n)
	}
	r.mean()
	return r, nil
}

// hitsIn is how many of got are wanted.
func hitsIn(got, want []string) int {
	n := 0
	for _, g := range got {
		if slices.Contains(want, g) {
			n++
		}
	}
	return n
}

// ratios are precision and recall of hits among got names, of want
// wanted: 0 where there are none.
func ratios(hits, got, want int) (precision, recall float64) {
	if got > 0 {
		precision = float64(hits) / float64(got)
	}
	if want > 0 {
		recall = float64(hits) / float64(want)
	}
	return precision, recall
}

// mean sets r's mean precision and recall, rounded, from its cases.
func (r *EvalReport) mean() {
	r.MeanPrecision, r.MeanRecall = 0, 0
	for _, c := range r.Cases {
		r.MeanPrecision += c.Precision
		r.MeanRecall += c.Recall
	}
	if n := float64(len(r.Cases)); n > 0 {
		r.MeanPrecision, r.MeanRecall = round(r.MeanPrecision/n), round(r.MeanRecall/n)
	}
}
