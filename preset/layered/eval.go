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
		picked := slices.Clone(sel.Tools)
		if slices.ContainsFunc(c.Want, func(w string) bool {
			return slices.ContainsFunc(a.Setup.Skills, func(s Capability) bool { return s.Name == w })
		}) {
			picked = append(picked, sel.Skills...)
		}
		var got []string
		for _, p := range picked {
			got = append(got, p.Name)
		}
		if len(got) > k {
			got = got[:k]
		}
		hits := 0
		for _, g := range got {
			if slices.Contains(c.Want, g) {
				hits++
			}
		}
		res := EvalResult{Task: c.Task, Got: got}
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
		if len(got) > 0 {
			res.Precision = float64(hits) / float64(len(got))
		}
		if len(c.Want) > 0 {
			res.Recall = float64(hits) / float64(len(c.Want))
		}
		r.Cases = append(r.Cases, res)
	}
	r.mean()
	return r, nil
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
