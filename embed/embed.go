// Package embed holds what semantic selection needs: the Embedder
// interface (one call embeds a batch of texts), vectors and their cosine
// similarity, ranking, and Hash, an offline embedder that needs no model
// and no network.
//
// Hash is lexical, not semantic: it hashes a text's words and their
// character trigrams (lower-cased, accents folded) into a fixed number of
// signed buckets and normalises the result, so texts that share words or
// word parts score high. It is deterministic to the bit on every OS, costs
// microseconds, and is what Tessera uses when no other embedder is given.
// A model's embeddings (an embeddings API, a local model) plug in through
// Embedder from Go; a manifest records which embedder made its vectors,
// and vectors from two embedders are never compared.
package embed

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Vector is an embedding.
type Vector []float32

// Embedder embeds texts.
type Embedder interface {
	// Name identifies the vector space, such as "hash-v1/256" or
	// "openai/text-embedding-3-small": vectors are compared only with
	// vectors of the same name.
	Name() string
	// Embed returns one vector per text, in order. One call is one
	// request to the embedder, however many texts it holds.
	Embed(ctx context.Context, texts []string) ([]Vector, error)
}

// Cosine returns the cosine similarity of a and b: 0 when either is zero
// or their lengths differ.
func Cosine(a, b Vector) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	// The explicit conversions round each product, so that no platform
	// fuses multiply and add: the same vectors give the same bits on
	// every OS and architecture.
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += float64(x * y)
		na += float64(x * x)
		nb += float64(y * y)
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// Scored is an index into a list of candidates and its score.
type Scored struct {
	Index int
	Score float64
}

// Rank scores every candidate against query and returns those scoring at
// least min, best first (ties in candidate order), at most max (0: all).
func Rank(query Vector, candidates []Vector, min float64, max int) []Scored {
	var out []Scored
	for i, c := range candidates {
		if s := Cosine(query, c); s >= min {
			out = append(out, Scored{Index: i, Score: s})
		}
	}
	slices.SortStableFunc(out, func(a, b Scored) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	if max > 0 && len(out) > max {
		out = out[:max]
	}
	return out
}

// Hash is the offline lexical embedder (see the package doc). Dim is the
// number of buckets; 0 means 256.
type Hash struct{ Dim int }

// Name implements Embedder: "hash-v1/<dim>".
func (h Hash) Name() string { return fmt.Sprintf("hash-v1/%d", h.dim()) }

func (h Hash) dim() int {
	if h.Dim <= 0 {
		return 256
	}
	return h.Dim
}

// Embed implements Embedder. It never fails but on a cancelled context.
func (h Hash) Embed(ctx context.Context, texts []string) ([]Vector, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]Vector, len(texts))
	for i, t := range texts {
		out[i] = h.Vector(t)
	}
	return out, nil
}

// stopWords are the commonest function words of English, Portuguese,
// Spanish, French and German: shared by unrelated texts, they would make
// them look alike, so Hash leaves them out.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but of to in on at by for with from as is are was were be been it its this that these those there here
		i you he she we they me my your our their his her them us not no do does did so if then than into over under about
		o os um uma uns umas e ou de do da dos das em no na nos nas por para com sem que se ao aos à às é
		el la los las un una y del al en con sin por para que es
		le les un une des et ou du au aux dans sur pour par avec sans que qui est ce cette ces
		der die das ein eine und oder von zu im in auf mit für ist nicht den dem des`) {
		m[w] = true
	}
	return m
}()

// StopWord reports whether w, a word as Words gives it, is one of the
// commonest function words of English, Portuguese, Spanish, French and
// German, which Hash leaves out.
func StopWord(w string) bool { return stopWords[w] }

// Vector embeds one text, its stop words left out: each word (weight 1) and each character
// trigram of the word padded with spaces (weight 0.5) adds ±weight to
// the bucket its FNV-1a hash picks, the sign from another bit of the
// hash; the result has unit length (all zero for a text without words).
func (h Hash) Vector(text string) Vector {
	d := h.dim()
	v := make([]float64, d)
	for _, w := range Words(text) {
		if stopWords[w] {
			continue
		}
		add(v, w, 1)
		p := []rune(" " + w + " ")
		for i := 0; i+3 <= len(p); i++ {
			add(v, string(p[i:i+3]), 0.5)
		}
	}
	var n float64
	for _, x := range v {
		n += float64(x * x) // rounded: no fused multiply-add
	}
	out := make(Vector, d)
	if n == 0 {
		return out
	}
	n = math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out
}

func add(v []float64, feature string, w float64) {
	f := fnv.New64a()
	f.Write([]byte(feature))
	h := f.Sum64()
	i := int(h % uint64(len(v)))
	if h>>63 == 1 {
		w = -w
	}
	v[i] += w
}

// Words splits text into its words: runs of letters and digits, lower
// case, accents folded ("Análise" is "analise"), so that the embedder and
// keyword rules see the same words.
func Words(text string) []string {
	if ascii(text) {
		return asciiWords(text)
	}
	return unicodeWords(text)
}

// ascii reports whether text is all ASCII.
func ascii(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			return false
		}
	}
	return true
}

// asciiWords is Words for text all in ASCII, which has no accent to
// fold: each word is a slice of text, or, when it holds a capital, its
// lower case.
func asciiWords(text string) []string {
	var words []string
	start, upper := -1, false
	for i := 0; i <= len(text); i++ {
		var c byte
		if i < len(text) {
			c = text[i]
		}
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case 'A' <= c && c <= 'Z':
			upper = true
		default:
			if start >= 0 {
				w := text[start:i]
				if upper {
					w = strings.ToLower(w)
				}
				words = append(words, w)
			}
			start, upper = -1, false
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return words
}

// unicodeWords is Words for any text.
func unicodeWords(text string) []string {
	var (
		words []string
		b     strings.Builder
	)
	flush := func() {
		if b.Len() > 0 {
			words = append(words, b.String())
			b.Reset()
		}
	}
	for _, r := range norm.NFD.String(text) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return words
}
