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

// The built-in detector's model has two parts, both trained on the
// project's own evaluation sets (their training parts only; see
// model_test.go).
//
// The first is a logistic regression over the character n-grams (one to
// five characters) of a text's readings, hashed into 2^modelBits
// buckets. Where the pattern bank knows phrasings, it weighs the words
// and pieces of words an attack is made of, so it reaches rewordings the
// bank does not hold.
//
// The second, the combiner, weighs what fired into the score: each
// signal of the bank (separately when it fired inside a quotation that
// discusses an attack), whether a signal was found only in a hidden
// reading, how many fired, the patterns' fixed-weight score, and the
// n-gram model's log-odds. It learned from the n-gram model's
// probabilities on held-apart folds, so it trusts the model no more
// than the model earns on text it has not seen, and its bias is set so
// that DefaultThreshold keeps the false alarms on held-apart folds at
// about combinerFPR.
const modelBits = 18

//go:embed model.bin
var modelBin []byte

// modelMagic starts model.bin: a version of the file layout.
const modelMagic = "TSIM\x03"

// model is the built-in detector's trained model.
type model struct {
	bits  uint8
	scale float32 // a weight is scale times its int8
	bias  float32
	w     []int8
	comb  combiner
}

// combiner is the second part of the model: a logistic regression over
// what fired.
type combiner struct {
	// names are the signals it learned weights for, sorted; a signal it
	// did not learn (a caller's, or "known") counts with its fixed weight
	// instead (see score).
	names []string
	// fixed are the names' fixed weights (Weights), by names' index.
	fixed []float64
	// decisive marks the signals that were nearly always an attack in the
	// training sets (see model_test.go's minPrecision): a plain match of
	// one counts at least its fixed weight, whatever the rest says.
	decisive []bool
	// w weighs the features vector lays out: each signal's plain match,
	// by names' index, then each one's quoted match, then a signal found
	// only in a hidden reading, the number of signals, the fixed-weight
	// score, the n-gram model's log-odds and its highest log-odds for a
	// part of the text.
	w    []float32
	bias float32
}

// builtinModel is the model of model.bin, read once.
var builtinModel = sync.OnceValues(func() (*model, error) {
	return readModel(modelBin)
})

// readModel reads a model in model.bin's layout: the magic, the bucket
// bits, two float32 (scale, bias), 2^bits int8 weights; then the
// combiner: a count of signals, each as a length-prefixed name and a
// byte (1 if it is decisive), and
// float32 weights, as many as combiner.size says, and its bias. Numbers
// are little-endian.
func readModel(b []byte) (*model, error) {
	const head = len(modelMagic) + 1 + 8
	if len(b) < head || !bytes.HasPrefix(b, []byte(modelMagic)) {
		return nil, errors.New("injection: model.bin: not a model file of this version (bad magic): regenerate it with go test ./guard/injection -run TestModelTrained -update")
	}
	m := &model{bits: b[len(modelMagic)]}
	if m.bits < 8 || m.bits > 24 {
		return nil, fmt.Errorf("injection: model.bin: %d bucket bits, want 8 to 24", m.bits)
	}
	r := modelReader{b: b, at: len(modelMagic) + 1}
	m.scale, m.bias = r.float(), r.float()
	n := 1 << m.bits
	if len(b)-r.at < n {
		return nil, fmt.Errorf("injection: model.bin: %d bytes, want at least %d for %d buckets", len(b), r.at+n, n)
	}
	m.w = make([]int8, n)
	for i, c := range b[r.at : r.at+n] {
		m.w[i] = int8(c)
	}
	r.at += n
	c := &m.comb
	k := int(r.byte())
	for range k {
		name := r.bytes(int(r.byte()))
		if r.err == nil && (name == "" || len(c.names) > 0 && name <= c.names[len(c.names)-1]) {
			return nil, fmt.Errorf("injection: model.bin: combiner signal %q out of order or empty", name)
		}
		c.names = append(c.names, name)
		c.decisive = append(c.decisive, r.byte() == 1)
	}
	weights := Weights()
	for _, n := range c.names {
		c.fixed = append(c.fixed, weights[n])
	}
	c.w = make([]float32, c.size())
	for i := range c.w {
		c.w[i] = r.float()
	}
	c.bias = r.float()
	if r.err != nil {
		return nil, fmt.Errorf("injection: model.bin: combiner: %w", r.err)
	}
	if r.at != len(b) {
		return nil, fmt.Errorf("injection: model.bin: %d bytes after the combiner", len(b)-r.at)
	}
	return m, nil
}

// modelReader reads model.bin's fields in turn; the first field past
// the end sets err.
type modelReader struct {
	b   []byte
	at  int
	err error
}

func (r *modelReader) bytes(n int) string {
	if r.err != nil || len(r.b)-r.at < n {
		r.err = errors.New("the file ends early")
		return ""
	}
	s := string(r.b[r.at : r.at+n])
	r.at += n
	return s
}

func (r *modelReader) byte() byte {
	if s := r.bytes(1); s != "" {
		return s[0]
	}
	return 0
}

func (r *modelReader) float() float32 {
	s := r.bytes(4)
	if s == "" {
		return 0
	}
	return math.Float32frombits(binary.LittleEndian.Uint32([]byte(s)))
}

// encode writes m in model.bin's layout.
func (m *model) encode() []byte {
	var b bytes.Buffer
	b.WriteString(modelMagic)
	b.WriteByte(m.bits)
	put := func(fs ...float32) {
		for _, f := range fs {
			_ = binary.Write(&b, binary.LittleEndian, math.Float32bits(f))
		}
	}
	put(m.scale, m.bias)
	for _, w := range m.w {
		b.WriteByte(byte(w))
	}
	c := &m.comb
	b.WriteByte(byte(len(c.names)))
	for i, n := range c.names {
		b.WriteByte(byte(len(n)))
		b.WriteString(n)
		if c.decisive[i] {
			b.WriteByte(1)
		} else {
			b.WriteByte(0)
		}
	}
	put(c.w...)
	put(c.bias)
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
	var starts [6]int // offsets of the last runes, a ring
	for _, v := range vs {
		// Offsets are into " " + v.text + " ", which is not built: 0
		// and len(v.text)+1 are the spaces.
		text := v.text
		last := len(text) + 1
		n := 0
		for i := 0; i <= last; {
			size := 1
			if i > 0 && i < last {
				_, size = utf8.DecodeRuneInString(text[i-1:])
			}
			starts[n%6] = i
			n++
			end := i + size
			for k := 1; k <= 5 && k <= n; k++ {
				if k == 1 && size == 1 {
					continue // single ASCII characters say little
				}
				buf = append(buf, hashGram(text, starts[(n-k)%6], end, k)&mask)
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
	buf = appendConceptGrams(bits, vs, buf)
	slices.Sort(buf)
	return slices.Compact(buf)
}

// hashGram hashes the n-gram of k characters at offsets [start, end) of
// " " + text + " ", digits as 0 (FNV-1a).
func hashGram(text string, start, end, k int) uint32 {
	h := uint32(2166136261)
	for j := start; j < end; j++ {
		c := byte(' ')
		if j > 0 && j <= len(text) {
			c = text[j-1]
		}
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

// modelSignal is the model's signal for a probability, or false when
// the probability does not count towards an injection.
func modelSignal(p float64) (Signal, bool) {
	if p <= 0.5 {
		return Signal{}, false
	}
	return Signal{Name: "model", Weight: round(p), Match: fmt.Sprintf("p=%.2f", p)}, true
}

// features are what the combiner reads of a text.
type features struct {
	sigs    []Signal // the bank's signals, not the model's
	noisyOr float64  // 1 - Π(1 - weight) over sigs
	p       float64  // the n-gram model's probability
	// part is the highest probability the model gives a sentence of
	// the text alone (see partProb).
	part float64
}

// minParts is how many sentences a text needs for them to be read
// alone too.
const minParts = 3

// sentenceEnds appends to ends the byte offsets where text's sentences
// end, the last at len(text).
func sentenceEnds(text string, ends []int) []int {
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch r {
		case '.', '!', '?', ';', '\n', '。', '！', '？', '；':
			// A full stop ends a sentence before a space or a line end,
			// not inside "v1.2" or "go.mod"; the others end one anywhere.
			if r < utf8.RuneSelf && r != '\n' && i < len(text) && text[i] != ' ' && text[i] != '\n' {
				continue
			}
			if len(ends) == 0 || i-ends[len(ends)-1] > 1 {
				ends = append(ends, i)
			}
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(text) {
		ends = append(ends, len(text))
	}
	return ends
}

// partProb is the highest probability the model gives one sentence of
// text read alone, or p when text has fewer than minParts sentences:
// an instruction buried in a long ordinary note is a small share of
// the note's n-grams but most of its sentence's. buf is scratch space
// for n-grams.
func (m *model) partProb(text string, p float64, buf []uint32) float64 {
	var at [64]int
	ends := sentenceEnds(text, at[:0])
	if len(ends) < minParts {
		return p
	}
	best, start := 0.0, 0
	var one [1]view
	for _, end := range ends {
		one[0] = view{"text", text[start:end]}
		buf = grams(m.bits, one[:], buf[:0])
		best = max(best, m.prob(buf))
		start = end
	}
	return best
}

// size is the length of the combiner's feature vector.
func (c *combiner) size() int { return 2*len(c.names) + 5 }

// vector writes into x (of length size) the features of f that the
// combiner weighs, and returns the fixed-weight score's complement over
// the signals that decide alone, those it did not learn and its
// decisive ones: Π(1 - weight); or over all signals when the decisive
// "obfuscated" fired, for every one was hidden.
func (c *combiner) vector(f features, x []float64) (alone float64) {
	clear(x)
	k := len(c.names)
	alone = 1
	all, hidden := 1.0, false
	for _, s := range f.sigs {
		all *= 1 - s.Weight
		i, ok := slices.BinarySearch(c.names, s.Name)
		hidden = hidden || ok && s.Name == "obfuscated" && c.decisive[i]
		switch {
		case !ok:
			alone *= 1 - s.Weight
		case s.Quoted:
			x[k+i] = 1
		default:
			if c.decisive[i] {
				alone *= 1 - s.Weight
			}
			strength := 1.0
			if w := c.fixed[i]; w > 0 {
				strength = s.Weight / w
			}
			x[i] = max(x[i], strength)
			if s.View != "text" {
				x[2*k] = 1
			}
		}
	}
	p := min(max(f.p, 1e-4), 1-1e-4)
	x[2*k+1] = float64(len(f.sigs))
	x[2*k+2] = f.noisyOr
	x[2*k+3] = math.Log(p / (1 - p))
	pp := min(max(f.part, 1e-4), 1-1e-4)
	x[2*k+4] = math.Log(pp / (1 - pp))
	if hidden {
		// Every signal was found only in a hidden reading, and hiding
		// decides: all of them count their fixed weights.
		return all
	}
	return alone
}

// score combines what fired into one score. Signals the combiner did not
// learn, and its decisive ones, keep their fixed weights: the score is
// at least their fixed-weight combination, so an order to ignore the
// instructions, or a caller's own pattern or phrase, still flags a text
// alone.
func (c *combiner) score(f features) float64 {
	var buf [64]float64
	var x []float64
	if n := c.size(); n <= len(buf) {
		x = buf[:n]
	} else {
		x = make([]float64, n)
	}
	alone := c.vector(f, x)
	z := float64(c.bias)
	for i, v := range x {
		z += float64(c.w[i]) * v
	}
	return max(1/(1+math.Exp(-z)), round(1-alone))
}
