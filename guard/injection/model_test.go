package injection

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

var updateModel = flag.Bool("update", false, "train model.bin again from the training sets, choosing its thresholds on held-apart folds")

// trainingSets are the evaluation sets the model learns from: every
// set but the held-out one, eval/heldout4, which is never read here and
// measures the model after it is trained. eval/heldout and
// eval/heldout3 were held out in their turn; they joined the training
// sets once their final figures were reported (docs/PERFORMANCE.md).
var trainingSets = []string{
	"../../preset/layered/testdata/eval/injections.jsonl",
	"../../preset/layered/testdata/eval/tune2/injections.jsonl",
	"../../preset/layered/testdata/eval/tune3/injections.jsonl",
	"../../preset/layered/testdata/eval/tune4/injections-1.jsonl",
	"../../preset/layered/testdata/eval/tune4/injections-2.jsonl",
	"../../preset/layered/testdata/eval/heldout/injections.jsonl",
	"../../preset/layered/testdata/eval/heldout3/injections.jsonl",
	"../../preset/layered/testdata/eval/tune5/injections-1.jsonl",
	"../../preset/layered/testdata/eval/tune5/injections-2.jsonl",
	"../../preset/layered/testdata/eval/tune5/injections-3.jsonl",
}

// Training: stochastic gradient descent on the log loss with an L2
// penalty, in a fixed order, so that the same sets give the same bytes.
const (
	trainEpochs = 12
	trainRate   = 0.5
	trainL2     = 1e-4
	// maxAddedFPR is how much the model may add to the patterns'
	// false-positive rate on held-apart folds: the thresholds catch the
	// most attacks within it.
	maxAddedFPR = 0.015
)

type example struct {
	gs []uint32
	y  float64
}

func readTraining(t testing.TB) []Case {
	t.Helper()
	var all []Case
	for _, p := range trainingSets {
		data, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		cs, err := ReadCases(p, data)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, cs...)
	}
	return all
}

func examples(cs []Case) []example {
	ex := make([]example, len(cs))
	for i, c := range cs {
		ex[i] = example{gs: grams(modelBits, views(c.Text), nil)}
		if c.Label == "attack" {
			ex[i].y = 1
		}
	}
	return ex
}

// order is a fixed permutation of n items (a linear congruential walk),
// so that training sees attacks and benign notes mixed, the same way
// every run.
func order(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	x := uint64(88172645463325252)
	for i := n - 1; i > 0; i-- {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		j := int(x % uint64(i+1))
		idx[i], idx[j] = idx[j], idx[i]
	}
	return idx
}

//go:norace
func train(ex []example) (w []float64, bias float64) {
	w = make([]float64, 1<<modelBits)
	idx := order(len(ex))
	for e := 0; e < trainEpochs; e++ {
		rate := trainRate / (1 + float64(e))
		for _, i := range idx {
			x := ex[i]
			if len(x.gs) == 0 {
				continue
			}
			v := 1 / math.Sqrt(float64(len(x.gs)))
			z := bias
			for _, g := range x.gs {
				z += w[g] * v
			}
			p := 1 / (1 + math.Exp(-z))
			d := p - x.y
			for _, g := range x.gs {
				w[g] -= rate * (d*v + trainL2*w[g])
			}
			bias -= rate * d
		}
	}
	return w, bias
}

// quantize turns trained weights into a model with int8 weights.
func quantize(w []float64, bias float64) *model {
	var top float64
	for _, x := range w {
		top = math.Max(top, math.Abs(x))
	}
	m := &model{bits: modelBits, bias: float32(bias), w: make([]int8, len(w)), high: 2, low: 2}
	if top == 0 {
		m.scale = 1
		return m
	}
	m.scale = float32(top / 127)
	for i, x := range w {
		m.w[i] = int8(math.Round(x / float64(m.scale)))
	}
	return m
}

// chooseThresholds picks the model's two thresholds from probabilities
// made on held-apart folds (oof) and the patterns' scores (pat): the pair
// that catches the most attacks with the signals combined, adding at
// most maxAddedFPR to the patterns' own false-positive rate.
//
//go:norace
func chooseThresholds(oof, pat []float64, y []float64) (high, low float64, tpr, fpr float64) {
	high, low = 2, 2
	best := -1.0
	var patFP, neg float64
	for i := range pat {
		if y[i] != 1 {
			neg++
			if pat[i] >= DefaultThreshold {
				patFP++
			}
		}
	}
	limit := patFP/neg + maxAddedFPR
	for h := 0.50; h < 1.0; h += 0.01 {
		for l := 0.30; l <= h+1e-9; l += 0.01 {
			var tp, fp, pos, neg float64
			for i := range oof {
				keep := 1 - pat[i]
				switch {
				case oof[i] >= h:
					keep *= 1 - modelHigh
				case oof[i] >= l:
					keep *= 1 - modelLow
				}
				hit := round(1-keep) >= DefaultThreshold
				if y[i] == 1 {
					pos++
					if hit {
						tp++
					}
				} else {
					neg++
					if hit {
						fp++
					}
				}
			}
			if fp/neg <= limit+1e-12 && tp/pos > best+1e-12 {
				best, high, low, tpr, fpr = tp/pos, h, l, tp/pos, fp/neg
			}
		}
	}
	return math.Round(high*100) / 100, math.Round(low*100) / 100, tpr, fpr
}

// trainModel trains the model on the training sets and chooses its
// thresholds on five held-apart folds.
func trainModel(t testing.TB) (*model, string) {
	cs := readTraining(t)
	ex := examples(cs)
	y := make([]float64, len(ex))
	for i := range ex {
		y[i] = ex[i].y
	}
	plain := &Builtin{}
	base, err := builtin()
	if err != nil {
		t.Fatal(err)
	}
	plain.patterns = base
	pat := make([]float64, len(cs))
	for i, c := range cs {
		pat[i] = plain.Score(c.Text).Score
	}
	const folds = 5
	oof := make([]float64, len(ex))
	for f := 0; f < folds; f++ {
		var in []example
		for i := range ex {
			if i%folds != f {
				in = append(in, ex[i])
			}
		}
		m := quantize(train(in))
		for i := range ex {
			if i%folds == f {
				oof[i] = m.prob(ex[i].gs)
			}
		}
	}
	m := quantize(train(ex))
	high, low, tpr, fpr := chooseThresholds(oof, pat, y)
	m.high, m.low = float32(high), float32(low)
	var patTP, patFP, pos, neg float64
	for i := range pat {
		if y[i] == 1 {
			pos++
			if pat[i] >= DefaultThreshold {
				patTP++
			}
		} else {
			neg++
			if pat[i] >= DefaultThreshold {
				patFP++
			}
		}
	}
	summary := fmt.Sprintf("%d training cases; on held-apart folds: patterns alone TPR %.3f FPR %.3f; with the model (high %.2f, low %.2f) TPR %.3f FPR %.3f",
		len(cs), patTP/pos, patFP/neg, high, low, tpr, fpr)
	return m, summary
}

// TestModelTrained checks that model.bin is what training on the
// training sets gives, so the weights shipped can be made again from the
// sets in the repository; -update writes it.
func TestModelTrained(t *testing.T) {
	if testing.Short() {
		t.Skip("trains the model: skipped with -short")
	}
	m, summary := trainModel(t)
	t.Log(summary)
	got := m.encode()
	if *updateModel {
		tmp := filepath.Join(".", "model.bin.tmp")
		if err := os.WriteFile(tmp, got, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, "model.bin"); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(got, modelBin) {
		t.Fatalf("model.bin is not what training on %v gives: run go test ./guard/injection -run TestModelTrained -update", trainingSets)
	}
}

func TestReadModelRejects(t *testing.T) {
	good := (&model{bits: 8, scale: 1, w: make([]int8, 256)}).encode()
	if _, err := readModel(good); err != nil {
		t.Fatalf("a well-formed model: %v", err)
	}
	for name, b := range map[string][]byte{
		"empty":     nil,
		"bad magic": append([]byte("XXXX\x01"), good[5:]...),
		"short":     good[:len(good)-1],
		"bits":      append(append([]byte{}, good[:5]...), append([]byte{40}, good[6:]...)...),
	} {
		if _, err := readModel(b); err == nil {
			t.Errorf("%s: read without error", name)
		}
	}
}

func BenchmarkModel(b *testing.B) {
	m, err := builtinModel()
	if err != nil {
		b.Fatal(err)
	}
	text := "Deploys go out on Tuesdays after the release review. The migration job runs first, so if it fails the pods keep the old image; roll back with make rollback ENV=staging."
	vs := views(text)
	var buf []uint32
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		buf = grams(m.bits, vs, buf[:0])
		_ = m.prob(buf)
	}
}

// FuzzReadModel checks model.bin's reader on arbitrary bytes: no panic,
// and a model it accepts has the weights its header promises and
// scores any n-grams to a probability in [0, 1].
func FuzzReadModel(f *testing.F) {
	f.Add((&model{bits: 8, scale: 1, w: make([]int8, 256)}).encode())
	f.Add(modelBin[:64])
	f.Add([]byte(modelMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := readModel(data)
		if err != nil {
			return
		}
		if len(m.w) != 1<<m.bits {
			t.Fatalf("%d weights for %d bits", len(m.w), m.bits)
		}
		if p := m.prob([]uint32{0, uint32(len(m.w) - 1)}); !(p >= 0 && p <= 1) && !math.IsNaN(float64(m.scale)) && !math.IsNaN(float64(m.bias)) && !math.IsInf(float64(m.scale), 0) && !math.IsInf(float64(m.bias), 0) {
			t.Fatalf("probability %v", p)
		}
	})
}
