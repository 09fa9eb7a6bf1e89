package tokenizer

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sync"
	"unicode/utf8"
)

//go:embed data/*.bpe.gz
var vocabFS embed.FS

// Encoding is an exact byte-pair encoder for one of OpenAI's public
// encodings. It is immutable and safe for concurrent use; get one with
// O200kBase, Cl100kBase or EncodingFor.
type Encoding struct {
	name  string
	next  func(s string, i int) int // the pre-tokenizer: end of the piece at i
	ranks map[string]uint32         // token bytes → rank
	vocab []string                  // rank → token bytes
}

// Encoding names.
const (
	O200kBaseName  = "o200k_base"
	Cl100kBaseName = "cl100k_base"
)

var (
	o200k  = sync.OnceValues(func() (*Encoding, error) { return load(O200kBaseName, nextO200K) })
	cl100k = sync.OnceValues(func() (*Encoding, error) { return load(Cl100kBaseName, nextCL100K) })
)

// O200kBase returns the o200k_base encoding (GPT-4o, GPT-4.1, GPT-5 and
// the o-series). The vocabulary is embedded and decoded on first use
// (about 30 ms); later calls return the same Encoding.
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

// load decodes an embedded vocabulary: gzip over a uvarint count, then
// each token's uvarint length and bytes in rank order.
func load(name string, next func(string, int) int) (*Encoding, error) {
	f, err := vocabFS.Open("data/" + name + ".bpe.gz")
	if err != nil {
		return nil, fmt.Errorf("tokenizer: vocabulary %s: %w", name, err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: vocabulary %s: %w", name, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: vocabulary %s: %w", name, err)
	}
	all := string(raw) // one allocation; every token is a substring of it
	n, w := binary.Uvarint(raw)
	if w <= 0 || n > math.MaxUint32 {
		return nil, fmt.Errorf("tokenizer: vocabulary %s: bad token count", name)
	}
	e := &Encoding{name: name, next: next, ranks: make(map[string]uint32, n), vocab: make([]string, 0, n)}
	off := w
	for r := uint64(0); r < n; r++ {
		l, w := binary.Uvarint(raw[off:])
		if w <= 0 || uint64(len(raw)-off-w) < l {
			return nil, fmt.Errorf("tokenizer: vocabulary %s: token %d is truncated", name, r)
		}
		off += w
		tok := all[off : off+int(l)]
		off += int(l)
		if _, dup := e.ranks[tok]; dup {
			return nil, fmt.Errorf("tokenizer: vocabulary %s: token %d repeats an earlier one", name, r)
		}
		e.ranks[tok] = uint32(r)
		e.vocab = append(e.vocab, tok)
	}
	if off != len(raw) {
		return nil, fmt.Errorf("tokenizer: vocabulary %s: %d trailing bytes", name, len(raw)-off)
	}
	for b := 0; b < 256; b++ {
		if _, ok := e.ranks[string([]byte{byte(b)})]; !ok {
			return nil, fmt.Errorf("tokenizer: vocabulary %s: byte %#x has no token", name, b)
		}
	}
	return e, nil
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
	for i := 0; i < len(text); {
		j := e.next(text, i)
		n += m.count(e, text[i:j])
		i = j
	}
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
		dst = m.encode(e, dst, text[i:j])
		i = j
	}
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
	var toks []int
	n := 0
	for i := 0; i < len(text); {
		j := e.next(text, i)
		toks = m.encode(e, toks[:0], text[i:j])
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

// merger merges the bytes of one piece into tokens. Pieces up to
// smallPiece bytes use fixed arrays (no allocation); longer ones use a
// heap, so a piece of n bytes costs O(n log n) rather than O(n²).
type merger struct {
	bounds [smallPiece + 1]int32
	ranks  [smallPiece + 1]uint32
	big    bigMerge
}

const (
	smallPiece = 64
	noRank     = math.MaxUint32
)

func (m *merger) count(e *Encoding, piece string) int {
	if len(piece) == 1 {
		return 1
	}
	if _, ok := e.ranks[piece]; ok {
		return 1
	}
	if len(piece) <= smallPiece {
		return m.small(e, piece) - 1
	}
	return m.big.merge(e, piece)
}

func (m *merger) encode(e *Encoding, dst []int, piece string) []int {
	if r, ok := e.ranks[piece]; ok {
		return append(dst, int(r))
	}
	if len(piece) <= smallPiece {
		k := m.small(e, piece)
		for i := 0; i+1 < k; i++ {
			dst = append(dst, int(e.ranks[piece[m.bounds[i]:m.bounds[i+1]]]))
		}
		return dst
	}
	m.big.merge(e, piece)
	return m.big.appendTokens(e, dst, piece)
}

// small runs tiktoken's merge loop: repeatedly merge the adjacent pair of
// lowest rank, leftmost first. It leaves the token boundaries in
// m.bounds[:k] and returns k (tokens are k-1).
func (m *merger) small(e *Encoding, piece string) int {
	n := len(piece)
	b, r := m.bounds[:n+1], m.ranks[:n+1]
	for i := range b {
		b[i] = int32(i)
	}
	rank := func(i, j int32) uint32 {
		if v, ok := e.ranks[piece[i:j]]; ok {
			return v
		}
		return noRank
	}
	for i := 0; i < n-1; i++ {
		r[i] = rank(int32(i), int32(i+2))
	}
	r[n-1], r[n] = noRank, noRank
	k := n + 1 // live boundaries
	for {
		minI, minR := -1, uint32(noRank)
		for i := 0; i < k-2; i++ {
			if r[i] < minR {
				minI, minR = i, r[i]
			}
		}
		if minI < 0 {
			return k
		}
		i := minI
		// Merge tokens i and i+1 by removing boundary i+1.
		if i+3 < k {
			r[i] = rank(b[i], b[i+3])
		} else {
			r[i] = noRank
		}
		if i > 0 {
			r[i-1] = rank(b[i-1], b[i+2])
		}
		copy(b[i+1:k-1], b[i+2:k])
		copy(r[i+1:k-1], r[i+2:k])
		k--
	}
}

// bigMerge is the heap-based merge for long pieces. Nodes are indexed by
// their start byte; each holds the rank of the pair it starts.
type bigMerge struct {
	next, prev []int32
	rank       []uint32
	heap       []uint64 // rank<<32 | start: ordered by rank, then leftmost
}

// merge merges piece and returns its token count; the tokens are the
// live nodes, in order, from node 0.
func (g *bigMerge) merge(e *Encoding, piece string) int {
	n := len(piece)
	g.next = resize(g.next, n)
	g.prev = resize(g.prev, n)
	g.rank = resize(g.rank, n)
	g.heap = g.heap[:0]
	for i := 0; i < n; i++ {
		g.next[i] = int32(i + 1)
		g.prev[i] = int32(i - 1)
		g.rank[i] = noRank
		if i+2 <= n {
			if v, ok := e.ranks[piece[i:i+2]]; ok {
				g.rank[i] = v
				g.heap = append(g.heap, uint64(v)<<32|uint64(i))
			}
		}
	}
	heapInit(g.heap)
	count := n
	end := func(i int32) int32 { // end byte of the token at node i
		return g.next[i]
	}
	for len(g.heap) > 0 {
		top := g.heap[0]
		g.heap = heapPop(g.heap)
		a, r := int32(top&0xffffffff), uint32(top>>32)
		if g.rank[a] != r || g.prev[a] == -2 {
			continue // stale: a was merged away or its pair changed
		}
		b := g.next[a]
		// Remove b, extending a over it.
		c := g.next[b]
		g.next[a] = c
		if int(c) < n {
			g.prev[c] = a
		}
		g.prev[b] = -2
		g.rank[b] = noRank
		count--
		// The pair a starts is now (a..b, c).
		g.rank[a] = noRank
		if int(c) < n {
			if v, ok := e.ranks[piece[a:end(c)]]; ok {
				g.rank[a] = v
				g.heap = heapPush(g.heap, uint64(v)<<32|uint64(a))
			}
		}
		// The pair before a is now (p, a..b).
		if p := g.prev[a]; p >= 0 {
			g.rank[p] = noRank
			if v, ok := e.ranks[piece[p:c]]; ok {
				g.rank[p] = v
				g.heap = heapPush(g.heap, uint64(v)<<32|uint64(p))
			}
		}
	}
	return count
}

func (g *bigMerge) appendTokens(e *Encoding, dst []int, piece string) []int {
	for i := int32(0); int(i) < len(piece); i = g.next[i] {
		dst = append(dst, int(e.ranks[piece[i:g.next[i]]]))
	}
	return dst
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// The heap is 4-ary: half the depth of a binary heap, and the four
// children of a node share a cache line.

func heapInit(h []uint64) {
	if len(h) < 2 {
		return
	}
	for i := (len(h) - 2) / 4; i >= 0; i-- {
		heapDown(h, i)
	}
}

func heapPush(h []uint64, v uint64) []uint64 {
	h = append(h, v)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if h[p] <= v {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = v
	return h
}

func heapPop(h []uint64) []uint64 {
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	if last > 0 {
		heapDown(h, 0)
	}
	return h
}

func heapDown(h []uint64, i int) {
	n := len(h)
	v := h[i]
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		// The smallest of up to four children.
		m := c
		end := min(c+4, n)
		for k := c + 1; k < end; k++ {
			if h[k] < h[m] {
				m = k
			}
		}
		if h[m] >= v {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = v
}
