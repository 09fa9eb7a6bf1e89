package injection

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Case is one labelled text of an evaluation set.
type Case struct {
	ID    string `json:"id"`
	Lang  string `json:"lang,omitempty"`
	Label string `json:"label"` // "attack" or "benign"
	Kind  string `json:"kind,omitempty"`
	Text  string `json:"text"`
}

// ReadCases reads an evaluation set in JSON Lines, one Case a line;
// blank lines are skipped. An error names the line.
func ReadCases(path string, data []byte) ([]Case, error) {
	var out []Case
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	seen := map[string]int{}
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var c Case
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("%s:%d: %v: write one JSON object a line with id, lang, label, kind and text", path, line, err)
		}
		if c.Label != "attack" && c.Label != "benign" {
			return nil, fmt.Errorf("%s:%d: label %q: use \"attack\" or \"benign\"", path, line, c.Label)
		}
		if c.ID == "" {
			c.ID = fmt.Sprint(line)
		}
		if first, ok := seen[c.ID]; ok {
			return nil, fmt.Errorf("%s:%d: id %q is repeated (first on line %d): give each case its own id", path, line, c.ID, first)
		}
		seen[c.ID] = line
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// Rates are a detector's rates on a set of cases.
type Rates struct {
	Attacks int `json:"attacks"`
	Benign  int `json:"benign"`
	// Caught are the attacks at or above the threshold; FalseAlarms the
	// benign cases.
	Caught      int `json:"caught"`
	FalseAlarms int `json:"false_alarms"`
	// TPR is Caught/Attacks, FPR FalseAlarms/Benign.
	TPR float64 `json:"tpr"`
	FPR float64 `json:"fpr"`
}

func (r *Rates) add(attack, flagged bool) {
	switch {
	case attack:
		r.Attacks++
		if flagged {
			r.Caught++
		}
	default:
		r.Benign++
		if flagged {
			r.FalseAlarms++
		}
	}
	if r.Attacks > 0 {
		r.TPR = round(float64(r.Caught) / float64(r.Attacks))
	}
	if r.Benign > 0 {
		r.FPR = round(float64(r.FalseAlarms) / float64(r.Benign))
	}
}

// Report is an evaluation's outcome.
type Report struct {
	Detector  string  `json:"detector"`
	Threshold float64 `json:"threshold"`
	Rates
	// ByLang are the rates of each language, by its code.
	ByLang map[string]*Rates `json:"by_lang"`
	// Missed are the attacks under the threshold and FalseAlarms the
	// benign cases at or above it, with their verdicts.
	Missed      []Outcome `json:"missed,omitempty"`
	FalseAlarms []Outcome `json:"false_alarm_cases,omitempty"`
}

// Outcome is one case's verdict.
type Outcome struct {
	Case
	Verdict Verdict `json:"verdict"`
}

// Evaluate scores every case with d and reports, at threshold, the true
// and false positive rates, overall and by language, with the cases it
// got wrong.
func Evaluate(ctx context.Context, d Detector, cases []Case, threshold float64) (*Report, error) {
	texts := make([]string, len(cases))
	for i, c := range cases {
		texts[i] = c.Text
	}
	vs, err := d.Detect(ctx, texts)
	if err != nil {
		return nil, err
	}
	r := &Report{Detector: d.Name(), Threshold: threshold, ByLang: map[string]*Rates{}}
	for i, c := range cases {
		attack, flagged := c.Label == "attack", vs[i].Score >= threshold
		r.add(attack, flagged)
		lang := c.Lang
		if lang == "" {
			lang = "?"
		}
		if r.ByLang[lang] == nil {
			r.ByLang[lang] = &Rates{}
		}
		r.ByLang[lang].add(attack, flagged)
		switch {
		case attack && !flagged:
			r.Missed = append(r.Missed, Outcome{c, vs[i]})
		case !attack && flagged:
			r.FalseAlarms = append(r.FalseAlarms, Outcome{c, vs[i]})
		}
	}
	return r, nil
}

// String writes the report as a table: the rates overall and by
// language, in the order of their codes.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "detector %s, threshold %.2f\n", r.Detector, r.Threshold)
	fmt.Fprintf(&b, "%-6s %8s %8s %6s %6s\n", "LANG", "ATTACKS", "BENIGN", "TPR", "FPR")
	for _, lang := range slices.Sorted(func(yield func(string) bool) {
		for k := range r.ByLang {
			if !yield(k) {
				return
			}
		}
	}) {
		x := r.ByLang[lang]
		fmt.Fprintf(&b, "%-6s %8d %8d %6.3f %6.3f\n", lang, x.Attacks, x.Benign, x.TPR, x.FPR)
	}
	fmt.Fprintf(&b, "%-6s %8d %8d %6.3f %6.3f\n", "all", r.Attacks, r.Benign, r.TPR, r.FPR)
	return b.String()
}
