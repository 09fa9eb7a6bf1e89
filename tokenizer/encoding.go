package tokenizer

import (
	"bytes"
	_ "embed" // the vocabularies
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"unicode/utf8"
)

// The vocabularies, in the form internal/vocabgen writes: a uvarint count,
// then each token's uvarint length and bytes in rank order. Tokens are
// substrings of these strings, read in place.
var (
	//go:embed data/o200k_base.bpe
	o200kData string
	//go:embed data/cl100k_base.bpe
	cl100kData string
)

// Encoding is an exact byte-pair encoder for one of OpenAI's public
// encodings. It is immutable and safe for concurrent use; get one with
// O200kBase, Cl100kBase or EncodingFor.
type Encoding struct {
	name  string
	next  func(s string, i int) int // the pre-tokenizer: end of the piece at i
	ranks *rankTable                // token bytes → rank
	vocab []string                  // rank → token bytes
}

// Encoding names.
const (
	O200kBaseName  = "o200k_base"
	Cl100kBaseName = "cl100k_base"
)

var (
	o200k  = sync.OnceValues(func() (*Encoding, error) { return load(O200kBaseName, o200kData, nextO200K) })
	cl100k = sync.OnceValues(func() (*Encoding, error) { return load(Cl100kBaseName, cl100kData, nextCL100K) })
)

// O200kBase returns the o200k_base encoding (GPT-4o, GPT-4.1, GPT-5 and
// the o-series). The vocabulary is embedded and its rank table built on
// first use (about 15 ms, and 8 ms more on the first text that is not
// ASCII); later calls return the same Encoding.
func O200kBase() *Encoding { return mustLoad(o200k) }

// Cl100kBase returns the cl100k_base encoding (GPT-4, GPT-3.5 and the
// text-embedding-3 models).
func Cl100kBase() *Encoding { return mustLoad(cl100k) }

// mustLoad returns a loaded encoding. The vocabularies are part of the
// binary and checked by the package's tests against the published files,
// so a failure here is a corrupt build, not bad input.
func mustLoad(f func() (*Encoding, error)) *Encoding {
	e, err := f()
	if err != nil {
		panic(err)
	}
	return e
}

// EncodingNamed returns the encoding called name ("o200k_base" or
// "cl100k_base").
func EncodingNamed(name string) (*Encoding, error) {
	switch name {
	case O200kBaseName:
		return o200k()
	case Cl100kBaseName:
		return cl100k()
	}
	return nil, fmt.Errorf("unknown encoding %q: use %s or %s", name, O200kBaseName, Cl100kBaseName)
}

// load reads the vocabulary all (see o200kData) for the encoding name.
func load(name, all string, next func(string, int) int) (*Encoding, error) {
	n, w := uvarint(all)
	if w <= 0 || n > math.MaxUint32 {
		return nil, fmt.Errorf("tokenizer: vocabulary %s: bad token count", name)
	}
	e := &Encoding{name: name, next: next, vocab: make([]string, 0, n)}
	off := w
	for r := uint64(0); r < n; r++ {
		l, w := uvarint(all[off:])
		if w <= 0 || uint64(len(all)-off-w) < l {
			return nil, fmt.Errorf("tokenizer: vocabulary %s: token %d is truncated", name, r)
		}
		off += w
		tok := all[off : off+int(l)]
		off += int(l)
		e.vocab = append(e.vocab, tok)
	}
	if off != len(all) {
		return nil, fmt.Errorf("tokenizer: vocabulary %s: %d trailing bytes", name, len(all)-off)
	}
	var ok bool
	if e.ranks, ok = newRankTable(e.vocab); !ok {
		return nil, fmt.Errorf("tokenizer: vocabulary %s: a token is empty or repeats an earlier one", name)
	}
	for b := 0; b < 256; b++ {
		if e.ranks.One[b] == noRank {
			return nil, fmt.Errorf("tokenizer: vocabulary %s: byte %#x has no token", name, b)
		}
	}
	return e, nil
}

// uvarint decodes an unsigned varint from the start of s, as
// binary.Uvarint does from a byte slice: the value and the bytes read, or
// a width of zero or less if s holds none.
func uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		b := s[i]
		if b < 0x80 {
			if i == binary.MaxVarintLen64-1 && b > 1 {
				return 0, -(i + 1)
			}
			return x | uint64(b)<<shift, i + 1
		}
		x |= uint64(b&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

// Name returns the encoding's name, such as "o200k_base".
func (e *Encoding) Name() string { return e.name }

// Exact reports true: an Encoding's counts equal OpenAI's tokenizer.
func (e *Encoding) Exact() bool { return true }

// VocabSize returns the number of ordinary (non-special) tokens.
func (e *Encoding) VocabSize() int { return len(e.vocab) }

// Count returns the number of tokens in text, treating any special-token
// text such as "<|endoftext|>" as ordinary text (as tiktoken's
// encode_ordinary does). It allocates nothing for ordinary text.
func (e *Encoding) Count(text string) int {
	var m merger
	n := 0
	// Pieces for the tournament merge are taken two at a time and
	// merged a step of each in turn: a merge waits on a chain of loads,
	// and the two chains overlap.
	a, b := &m.tree, &m.tree2
	busy := false // a holds a piece being merged
	for i := 0; i < len(text); {
		j := e.next(text, i)
		piece := text[i:j]
		i = j
		if len(piece) == 1 || e.ranks.rank(piece) != noRank {
			n++
			continue
		}
		if len(piece) > treePiece {
			n += m.bigMerger().merge(e.ranks, piece, len(piece) > sortedPiece)
			continue
		}
		if !busy {
			a.start(e.ranks, piece)
			busy = true
			continue
		}
		b.start(e.ranks, piece)
		for {
			if !a.step(e.ranks) {
				n += a.count
				a, b = b, a
				break
			}
			if !b.step(e.ranks) {
				n += b.count
				break
			}
		}
	}
	if busy {
		for a.step(e.ranks) {
		}
		n += a.count
	}
	m.release()
	return n
}

// Encode returns the tokens of text, treating special-token text as
// ordinary text.
func (e *Encoding) Encode(text string) []int {
	return e.AppendEncode(nil, text)
}

// AppendEncode appends the tokens of text to dst and returns the result.
func (e *Encoding) AppendEncode(dst []int, text string) []int {
	var m merger
	for i := 0; i < len(text); {
		j := e.next(text, i)
		dst = m.encode(e.ranks, dst, text[i:j])
		i = j
	}
	m.release()
	return dst
}

// Decode returns the bytes of tokens. Byte-level tokens need not end on a
// character boundary, so a slice of a token list may decode to invalid
// UTF-8; see Truncate for a cut that does not. Tokens outside the
// vocabulary are an error.
func (e *Encoding) Decode(tokens []int) ([]byte, error) {
	var b bytes.Buffer
	for i, t := range tokens {
		if t < 0 || t >= len(e.vocab) {
			return nil, fmt.Errorf("token %d at index %d is not in %s", t, i, e.name)
		}
		b.WriteString(e.vocab[t])
	}
	return b.Bytes(), nil
}

// Truncate returns the longest prefix of text that ends on one of text's
// own token boundaries (or, inside a multi-byte character, just before
// it) and holds at most max tokens, with the number of text's tokens it
// holds. Counting the prefix on its own can give a slightly different
// number, since the pieces at the cut may split differently; callers that
// need a guarantee count again.
func (e *Encoding) Truncate(text string, max int) (string, int) {
	var m merger
	defer m.release()
	var toks []int
	n := 0
	for i := 0; i < len(text); {
		j := e.next(text, i)
		toks = m.encode(e.ranks, toks[:0], text[i:j])
		if n+len(toks) <= max {
			n += len(toks)
			i = j
			continue
		}
		// Take the whole tokens of this piece that fit and end on a
		// character boundary.
		off, best, bestN := i, i, n
		for k, t := range toks[:max-n] {
			off += len(e.vocab[t])
			if utf8.ValidString(text[i:off]) {
				best, bestN = off, n+k+1
			}
		}
		return text[:best], bestN
	}
	return text, n
}
