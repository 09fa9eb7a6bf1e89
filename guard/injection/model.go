package injection

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"unicode/utf8"
)

// The built-in detector's model is a logistic regression over the
// character n-grams (one to five characters) of a text's readings,
// hashed into 2^modelBits buckets, trained on the project's own
// evaluation sets (their tuning parts only; see model_test.go). Where the
// pattern bank knows phrasings, the model weighs the words and pieces of
// words an attack is made of, so it reaches rewordings the bank does not
// hold. Its probability fires the "model" signal: modelHigh's weight at
// or above its high threshold, modelLow's at or above its low one; both
// thresholds were chosen on held-apart folds of the training data (see
// model_test.go), so that the signal rarely fires on benign notes.
const modelBits = 18

// Weights of the model signal's two levels.
const (
	modelHigh = 0.6
	modelLow  = 0.3
)

//go:embed model.bin
var modelBin []byte

// modelMagic starts model.bin: a version of the file layout.
const modelMagic = "TSIM\x01"

// model is the built-in detector's trained model.
type model struct {
	bits      uint8
	scale     float32 // a weight is scale times its int8
	bias      float32
	high, low float32 // the probabilities the two levels fire at
	w         []int8
}

// builtinModel is the model of model.bin, read once.
var builtinModel = sync.OnceValues(func() (*model, error) {
	return readModel(modelBin)
})

// readModel reads a model in model.bin's layout: the magic, the bucket
// bits, four float32 (scale, bias, high, low), then 2^bits int8 weights,
// little-endian.
func readModel(b []byte) (*model, error) {
	const head = len(modelMagic) + 1 + 16
	if len(b) < head || !bytes.HasPrefix(b, []byte(modelMagic)) {
		return nil, errors.New("injection: model.bin: not a model file (bad magic): regenerate it with go test ./guard/injection -run TestModelTrained -update")
	}
	m := &model{bits: b[len(modelMagic)]}
	if m.bits < 8 || m.bits > 24 {
		return nil, fmt.Errorf("injection: model.bin: %d bucket bits, want 8 to 24", m.bits)
	}
	f := func(i int) float32 {
		return math.Float32frombits(binary.LittleEndian.Uint32(b[len(modelMagic)+1+4*i:]))
	}
	m.scale, m.bias, m.high, m.low = f(0), f(1), f(2), f(3)
	n := 1 << m.bits
	if len(b) != head+n {
		return nil, fmt.Errorf("injection: model.bin: %d bytes, want %d for %d buckets", len(b), head+n, n)
	}
	m.w = make([]int8, n)
	for i, c := range b[head:] {
		m.w[i] = int8(c)
	}
	return m, nil
}

// encode writes m in model.bin's layout.
func (m *model) encode() []byte {
	var b bytes.Buffer
	b.WriteString(modelMagic)
	b.WriteByte(m.bits)
	for _, f := range []float32{m.scale, m.bias, m.high, m.low} {
		_ = binary.Write(&b, binary.LittleEndian, math.Float32bits(f))
	}
	for _, w := range m.w {
		b.WriteByte(byte(w))
	}
	return b.Bytes()
}

// maxModelGrams bounds the n-grams one text contributes, so a hostile
// entry costs the model time linear in the bound.
const maxModelGrams = 1 << 15

// grams appends to buf the sorted, distinct buckets of the n-grams of
// every reading's text, and returns it. Digits count as 0, so numbers
// read alike; each reading is read with a space before and after it.
func grams(bits uint8, vs []view, buf []uint32) []uint32 {
	mask := uint32(1)<<bits - 1
	var starts [6]int // byte offsets of the last runes, a ring
	for _, v := range vs {
		t := " " + v.text + " "
		n := 0
		for i := 0; i < len(t); {
			_, size := utf8.DecodeRuneInString(t[i:])
			starts[n%6] = i
			n++
			end := i + size
			for k := 1; k <= 5 && k <= n; k++ {
				start := starts[(n-k)%6]
				g := t[start:end]
				if k == 1 && size == 1 {
					continue // single ASCII characters say little
				}
				buf = append(buf, hashGram(g, k)&mask)
			}
			i = end
			if len(buf) >= maxModelGrams {
				break
			}
		}
		if len(buf) >= maxModelGrams {
			break
		}
	}
	slices.Sort(buf)
	return slices.Compact(buf)
}

// hashGram hashes an n-gram of k characters, digits as 0 (FNV-1a).
func hashGram(g string, k int) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(g); i++ {
		c := g[i]
		if c >= '0' && c <= '9' {
			c = '0'
		}
		h = (h ^ uint32(c)) * 16777619
	}
	return (h ^ uint32(k)) * 16777619
}

// prob is the model's probability that the text whose buckets are gs is
// an injection.
func (m *model) prob(gs []uint32) float64 {
	if len(gs) == 0 {
		return 0
	}
	var sum int64
	for _, g := range gs {
		sum += int64(m.w[g])
	}
	z := float64(m.bias) + float64(m.scale)*float64(sum)/math.Sqrt(float64(len(gs)))
	return 1 / (1 + math.Exp(-z))
}

// signal is the model's signal for a probability, or false when it does
// not fire.
func (m *model) signal(p float64) (Signal, bool) {
	switch {
	case p >= float64(m.high):
		return Signal{Name: "model", Weight: modelHigh, Match: fmt.Sprintf("p=%.2f", p)}, true
	case p >= float64(m.low):
		return Signal{Name: "model", Weight: modelLow, Match: fmt.Sprintf("p=%.2f", p)}, true
	}
	return Signal{}, false
}
