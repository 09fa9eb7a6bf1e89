package layered

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tessera-dev/tessera/embed"
	"github.com/tessera-dev/tessera/internal/shuffle"
)

// A learned mode for a desk's tasks. The mode rules (ruleModeOf) were
// written for a software agent's work and agree with the labels of the
// software sets for 91% of their tasks, but only for 73% of the tasks
// of catalogs found by their keywords: a desk's questions are reviews as
// often as plans ("did anyone log a complaint while they were
// staying?"), and most of its tasks name no mode at all. For such a
// catalog, a multinomial logistic model reads the task's words and what
// the rules decided, and picks the mode: trained on the labelled tasks
// of the catalogs found by their keywords (defaults/mode-keywords.tsv,
// made again by TestModeModelTrained -update), each catalog's tasks read
// with its catalog's rules. It never decides a mode the request gives,
// an interactive session, a task with changes in Git, or a setup that
// names its own mode keywords: those keep the rules.

// modeModelFile is the built-in model, in defaults.
const modeModelFile = "defaults/mode-keywords.tsv"

// modeOrder is the order of a feature's weights in the model's file.
var modeOrder = [3]string{"act", "plan", "review"}

// modeModel is a weight for each mode of each feature the model knows.
type modeModel struct {
	w map[string][3]float64
}

// Training the mode model: the passes, the rate (decaying by pass), the
// L2 penalty, and the fewest training tasks a feature must occur in to
// be learned. Chosen on the catalogs found by their keywords, left out
// in eighths, and on heldout86 to heldout89 (see TestModeModelCatalogs):
// 8 to 20 passes, penalties of 1e-4 to 1e-3 and at least 1 to 5 tasks
// all agreed with the labels for 84% to 85% of the tasks left out; 5
// tasks keeps a third of the features of 1.
const (
	modeEpochs   = 10
	modeRate     = 0.1
	modeL2       = 1e-4
	modeMinCount = 5
)

// builtinModeModel reads the built-in model, once a process.
var builtinModeModel = sync.OnceValues(func() (*modeModel, error) {
	data, err := defaults.ReadFile(modeModelFile)
	if err != nil {
		return nil, err
	}
	return parseModeModel(modeModelFile, data)
})

// maxModeLine caps a line of a mode model's file.
const maxModeLine = 4096

// parseModeModel reads a mode model: a line a feature, its name and its
// weights for act, plan and review, tab-separated; blank lines and
// lines that start with # are skipped. Every error names the line.
func parseModeModel(name string, data []byte) (*modeModel, error) {
	m := &modeModel{w: map[string][3]float64{}}
	err := eachHeadLine(name, data, maxModeLine, "a feature and its three weights, tab-separated", func(line int, head, rest string) error {
		fields := strings.Split(rest, "\t")
		if len(fields) != 3 {
			return fmt.Errorf("%s:%d: %d weights: want 3 (act, plan, review), tab-separated", name, line, len(fields))
		}
		var w [3]float64
		for i, f := range fields {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s:%d: weight %d, %q: want a finite number", name, line, i+1, f)
			}
			w[i] = v
		}
		head = strings.TrimSpace(head)
		if _, dup := m.w[head]; dup {
			return fmt.Errorf("%s:%d: feature %q is listed twice: keep one line", name, line, head)
		}
		m.w[head] = w
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(m.w) == 0 {
		return nil, fmt.Errorf("%s: no feature: a mode model lists at least one", name)
	}
	return m, nil
}

// marshal writes m as its file holds it, features in order.
func (m *modeModel) marshal() []byte {
	var b bytes.Buffer
	b.WriteString("# The learned mode of a task for a catalog found by its keywords: a feature\n")
	b.WriteString("# a line, with its weights for act, plan and review. Made by\n")
	b.WriteString("# go test ./preset/layered -run TestModeModelTrained -update; see modemodel.go.\n")
	for _, f := range slices.Sorted(maps.Keys(m.w)) {
		w := m.w[f]
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", f, fmtWeight(w[0]), fmtWeight(w[1]), fmtWeight(w[2]))
	}
	return b.Bytes()
}

// fmtWeight writes a weight as the model's file holds it.
func fmtWeight(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// infer returns the mode m gives features, and its probability.
func (m *modeModel) infer(features []string) (string, float64) {
	var z [3]float64
	for _, f := range features {
		w := m.w[f]
		for k := range z {
			z[k] += w[k]
		}
	}
	p := softmax(z)
	best := 0
	for k := 1; k < len(p); k++ {
		if p[k] > p[best] {
			best = k
		}
	}
	return modeOrder[best], p[best]
}

// softmax returns the probabilities of log-odds z.
func softmax(z [3]float64) [3]float64 {
	top := max(z[0], z[1], z[2])
	var p [3]float64
	var sum float64
	for k := range z {
		p[k] = math.Exp(z[k] - top)
		sum += p[k]
	}
	for k := range p {
		p[k] /= sum
	}
	return p
}

// modeFeatures are the features of a task the mode model reads: the
// mode the rules gave and the kind of rule that gave it (its reason up
// to a quoted word or a parenthesis: "keyword", "a question"), a bias,
// and the task's terms (see modeTerms).
func modeFeatures(task, ruleMode, ruleWhy string) []string {
	kind := ruleWhy
	if i := strings.IndexAny(kind, "(\""); i > 0 {
		kind = strings.TrimSpace(kind[:i])
	}
	out := []string{"bias", "rule:" + ruleMode, "why:" + kind}
	for _, t := range modeTerms(task) {
		out = append(out, "w:"+t)
	}
	return out
}

// modeTerms are a task's terms, each once, in order: each word as
// embed.Words reads it, cut to its first six letters (a stem, roughly,
// in the alphabetic languages: "refunds" and "refunded" are "refund"),
// words of one or two letters left out; and every two characters in a
// row of a Chinese or Japanese run.
func modeTerms(task string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, w := range embed.Words(task) {
		r := []rune(w)
		if hasIdeograph(w) {
			for i := 0; i+1 < len(r); i++ {
				add(string(r[i : i+2]))
			}
			continue
		}
		if len(r) < 3 {
			continue
		}
		add(string(r[:min(len(r), 6)]))
	}
	return out
}

// modeExample is a labelled task as the mode model learns from it.
type modeExample struct {
	features []string
	mode     int // in modeOrder
}

// trainModeModel fits a model to examples: epochs passes of stochastic
// gradient descent on the log loss, in a fixed order (internal/shuffle),
// each weight held near zero by an L2 penalty of l2, over the features
// of at least minCount examples; the weights are rounded to four
// decimals, and a feature whose weights all round to zero is left out.
//
//go:norace
func trainModeModel(examples []modeExample, epochs int, rate, l2 float64, minCount int) *modeModel {
	count := map[string]int{}
	for _, e := range examples {
		for _, f := range e.features {
			count[f]++
		}
	}
	w := map[string]*[3]float64{}
	for f, n := range count {
		if n >= minCount {
			w[f] = &[3]float64{}
		}
	}
	order := shuffle.Order(len(examples))
	for e := range epochs {
		r := rate / (1 + 0.5*float64(e))
		for _, i := range order {
			ex := examples[i]
			var z [3]float64
			for _, f := range ex.features {
				if v := w[f]; v != nil {
					for k := range z {
						z[k] += v[k]
					}
				}
			}
			p := softmax(z)
			for k := range p {
				g := p[k]
				if k == ex.mode {
					g--
				}
				for _, f := range ex.features {
					if v := w[f]; v != nil {
						v[k] -= r * (g + l2*v[k])
					}
				}
			}
		}
	}
	m := &modeModel{w: map[string][3]float64{}}
	for f, v := range w {
		var r [3]float64
		for k := range r {
			r[k] = math.Round(v[k]*1e4) / 1e4
		}
		if r != [3]float64{} {
			m.w[f] = r
		}
	}
	return m
}

// learnsMode reports whether the mode model decides req's mode for s: a
// catalog found by its keywords, a setup that names no mode keywords of
// its own, and a request whose mode is neither given, nor interactive,
// nor set by changes in Git.
func (s *Setup) learnsMode(req Request) bool {
	if !s.byKeywords || req.Mode != "" && req.Mode != "auto" || req.Interactive {
		return false
	}
	if c := req.Context; c != nil && c.Git != nil && c.Git.Changed > 0 {
		return false
	}
	for _, ms := range s.ModeSpecs {
		if len(ms.Keywords) > 0 {
			return false
		}
	}
	return true
}
