package tokenizer

import (
	"math"
	"slices"
	"sync"
)

// The merge is tiktoken's: starting from the piece's bytes, repeatedly
// merge the adjacent pair whose concatenation has the lowest rank, the
// leftmost of equals first, until no adjacent pair is a token. Three
// implementations give the same tokens at different sizes:
//
//   - up to treePiece bytes, treeMerge: a linked list of tokens whose
//     pair keys are the leaves of an eight-way tournament, in fixed
//     arrays (no allocation; a merge costs a few eight-way minimums).
//     Each merge waits on a chain of loads that ends in the rank table,
//     so Count keeps two pieces in hand and merges them a step of each
//     in turn, and the processor overlaps the two chains. A character
//     of two to four bytes starts as the parts its bytes merge into on
//     their own where the vocabulary shows that this changes no merge
//     (chars.go), which in most scripts takes away most of the merges;
//   - longer pieces, bigMerge: the linked list with a 4-ary heap of
//     (rank, start) pairs, O(n log n);
//   - pieces of more than sortedPiece bytes start bigMerge from the
//     initial pairs sorted instead of heaped, and put a pair created
//     during the merge in the heap only if it sorts before the last of
//     them; later pairs wait in a list that is sorted when the rest is
//     used up. A run of one character merges in sweeps of one rank from
//     left to right, each making the pairs of the next, so its merges
//     cost O(1) each instead of O(log n).
//
// The tests check each against a plain transcription of tiktoken's loop.

const (
	sortedPiece = 1024
	noRank      = math.MaxUint32
)

// merger merges pieces into tokens. The zero value is ready; call release
// when done with it.
type merger struct {
	tree, tree2 treeMerge // tree2 for Count's second piece in hand
	big         *bigMerge
}

var bigPool = sync.Pool{New: func() any { return new(bigMerge) }}

func (m *merger) bigMerger() *bigMerge {
	if m.big == nil {
		m.big = bigPool.Get().(*bigMerge)
	}
	return m.big
}

// release returns the buffers of long pieces to their pool.
func (m *merger) release() {
	if m.big != nil {
		bigPool.Put(m.big)
		m.big = nil
	}
}

// count returns the number of tokens in piece.
func (m *merger) count(t *rankTable, piece string) int {
	if len(piece) == 1 || t.rank(piece) != noRank {
		return 1
	}
	if len(piece) <= treePiece {
		return m.tree.merge(t, piece)
	}
	return m.bigMerger().merge(t, piece, len(piece) > sortedPiece)
}

// encode appends the tokens of piece to dst.
func (m *merger) encode(t *rankTable, dst []int, piece string) []int {
	if r := t.rank(piece); r != noRank {
		return append(dst, int(r))
	}
	if len(piece) <= treePiece {
		m.tree.merge(t, piece)
		for i := 0; i < len(piece); {
			j := int(m.tree.next[i])
			dst = append(dst, int(t.rank(piece[i:j])))
			i = j
		}
		return dst
	}
	g := m.bigMerger()
	g.merge(t, piece, len(piece) > sortedPiece)
	return g.appendTokens(t, dst, piece)
}

// treePiece is the longest piece the tournament merge takes.
const treePiece = 512

// treeMerge merges pieces of up to treePiece bytes without allocating.
// Tokens are nodes of a linked list indexed by their start byte, and
// key[s] holds the pair node s starts as rank<<9 | s, so that the
// smallest key is the lowest rank, leftmost first; a node with no pair
// holds noRank<<9 | s or noKey, both at least noPair. The keys are the
// leaves of a tournament of fan-out eight: l1 holds the least key of each
// eight, l2 the least of each eight of those. The next merge is the least
// of eight values, and a merge changes at most three leaves and the
// blocks above them; no array shifts.
type treeMerge struct {
	key  [treePiece]uint32
	l1   [treePiece / 8]uint32
	l2   [8]uint32
	next [treePiece + 1]uint16
	prev [treePiece + 1]uint16
	buf  [treePiece + 8]byte // the piece, then zeros for 8-byte loads

	piece            string
	n, groups, count int
}

const (
	noKey  = math.MaxUint32
	noPair = noKey &^ 511 // noRank<<9: keys from here up hold no pair
)

// Initial links: node i is followed by i+1 and preceded by i-1 (0xFFFF
// before node 0).
var initNext, initPrev = func() (next, prev [treePiece + 1]uint16) {
	for i := range next {
		next[i] = uint16(i + 1)
		prev[i] = uint16(i - 1)
	}
	return
}()

// min8 returns the least of a. It is kept out of line so that it compiles
// to conditional moves: in the merge loop the compiler may branch instead,
// and these branches go whichever way the text makes them.
//
//go:noinline
func min8(a *[8]uint32) uint32 {
	return min(min(min(a[0], a[1]), min(a[2], a[3])), min(min(a[4], a[5]), min(a[6], a[7])))
}

// block returns the eight entries of a from 8*i.
func block(a []uint32, i int) *[8]uint32 {
	return (*[8]uint32)(a[8*i : 8*i+8])
}

// merge merges piece (2 to treePiece bytes) and returns its token count;
// the tokens start at node 0 and follow next.
func (g *treeMerge) merge(t *rankTable, piece string) int {
	g.start(t, piece)
	for g.step(t) {
	}
	return g.count
}

// start sets g up to merge piece (2 to treePiece bytes).
func (g *treeMerge) start(t *rankTable, piece string) {
	n := len(piece)
	g.piece, g.n, g.count = piece, n, n
	buf := g.buf[:n+8]
	copy(buf, piece)
	clear(buf[n:])
	leaves := (n + 7) &^ 7
	if hasHighByte(piece) {
		g.startChars(t, t.charTable(), buf, n)
	} else {
		copy(g.next[:n], initNext[:n])
		copy(g.prev[:n], initPrev[:n])
		for i := range n - 1 {
			g.key[i] = t.two[uint16(buf[i])|uint16(buf[i+1])<<8]<<9 | uint32(i)
		}
		g.key[n-1] = noKey
	}
	for i := n; i < leaves; i++ {
		g.key[i] = noKey
	}
	blocks := leaves / 8
	for b := range blocks {
		g.l1[b] = min8(block(g.key[:], b))
	}
	g.groups = 0 // l2 is used for more than eight blocks
	if blocks > 8 {
		g.groups = (blocks + 7) / 8
		for b := blocks; b < g.groups*8; b++ {
			g.l1[b] = noKey
		}
		for q := range g.groups {
			g.l2[q] = min8(block(g.l1[:], q))
		}
		for q := g.groups; q < 8; q++ {
			g.l2[q] = noKey
		}
	} else {
		for b := blocks; b < 8; b++ {
			g.l1[b] = noKey
		}
	}
}

// startChars links the parts of the piece in buf (n bytes): the parts a
// character's bytes (or, at the start, a space's and a character's) merge
// into on their own, where ct lets the merge start from them (see
// chars.go), and single bytes elsewhere; and keys their pairs. The other
// bytes inside a unit hold no pair.
func (g *treeMerge) startChars(t *rankTable, ct *charTable, buf []byte, n int) {
	prev, count := -1, 0
	link := func(i, end int) {
		g.prev[i] = uint16(prev)
		g.next[i] = uint16(end)
		prev = i
		count++
	}
	for i := 0; i < n; {
		if buf[i] < 0xC2 && (i > 0 || buf[0] != ' ') {
			link(i, i+1)
			i++
			continue
		}
		e, k := ct.charAt(t, g.piece, buf, n, i)
		if k == 1 {
			link(i, i+1)
			i++
			continue
		}
		start := i
		for j := 1; j < k; j++ {
			g.key[i+j] = noKey
			if e&(1<<(charSplit+j-1)) != 0 {
				link(start, i+j)
				start = i + j
			}
		}
		link(start, i+k)
		i += k
	}
	g.prev[n] = uint16(prev)
	g.count = count
	for s := 0; ; {
		b := int(g.next[s])
		if b >= n {
			g.key[s] = noKey
			break
		}
		e := int(g.next[b])
		if e-s == 2 {
			g.key[s] = t.two[uint16(buf[s])|uint16(buf[b])<<8]<<9 | uint32(s)
		} else {
			g.key[s] = t.span(buf, g.piece, s, e)<<9 | uint32(s)
		}
		s = b
	}
}

// step makes the next merge and reports whether there was one; g.count
// holds the tokens left.
func (g *treeMerge) step(t *rankTable) bool {
	n, piece := g.n, g.piece
	buf := g.buf[:n+8]
	var least uint32
	if g.groups == 0 {
		least = min8(block(g.l1[:], 0))
	} else {
		least = min8(&g.l2)
	}
	if least >= noPair {
		return false
	}
	// Merge node s with the next, b, removing b.
	s := int(least & 511)
	b := int(g.next[s]) & 511
	c := int(g.next[b])
	g.next[s] = uint16(c)
	g.prev[c] = uint16(s)
	g.key[b] = noKey
	g.count--
	// The pair s starts is now (s..b, c).
	if c < n {
		g.key[s] = t.span(buf, piece, s, int(g.next[c]))<<9 | uint32(s)
	} else {
		g.key[s] = noKey
	}
	// The pair before s is now (p, s..b).
	p := int(int16(g.prev[s]))
	if p >= 0 {
		p &= 511
		g.key[p] = t.span(buf, piece, p, c)<<9 | uint32(p)
	}
	// Recompute the blocks of the changed leaves (p, s and b often
	// share one), and their groups.
	bs := s >> 3
	g.l1[bs] = min8(block(g.key[:], bs))
	if b>>3 != bs {
		g.l1[b>>3] = min8(block(g.key[:], b>>3))
	}
	if p >= 0 && p>>3 != bs {
		g.l1[p>>3] = min8(block(g.key[:], p>>3))
	}
	if g.groups > 0 {
		q := bs >> 3
		g.l2[q] = min8(block(g.l1[:], q))
		if b>>6 != q {
			g.l2[b>>6] = min8(block(g.l1[:], b>>6))
		}
		if p >= 0 && p>>6 != q {
			g.l2[p>>6] = min8(block(g.l1[:], p>>6))
		}
	}
	return true
}

// bigMerge merges pieces longer than smallPiece. Tokens are nodes of a
// linked list indexed by their start byte; each node holds the rank of
// the pair it starts. Queued pairs are rank<<32 | start, so that they
// order by rank and then leftmost first; a queued pair is stale, and
// skipped, once its node's rank differs from it.
type bigMerge struct {
	buf        []byte // the piece, then zeros for 8-byte loads
	next, prev []int32
	rank       []uint32
	tok        []uint32 // rank of the token each node starts
	cache      pairCache
	sorted     []uint64 // pairs in order, from pos
	heap       []uint64 // pairs no greater than the last sorted one
	later      []uint64 // pairs greater than the last sorted one
}

// merge merges piece (more than smallPiece bytes) and returns its token
// count; the tokens are the live nodes, in order, from node 0. With
// sorted, the queue starts from the sorted initial pairs (see above);
// otherwise it is a heap throughout.
func (g *bigMerge) merge(t *rankTable, piece string, sorted bool) int {
	n := len(piece)
	g.buf = append(append(g.buf[:0], piece...), 0, 0, 0, 0, 0, 0, 0, 0)
	g.next = resize(g.next, n)
	g.prev = resize(g.prev, n)
	g.rank = resize(g.rank, n)
	g.tok = resize(g.tok, n)
	clear(g.cache[:])
	queue := g.sorted[:0]
	for i := range n {
		g.next[i] = int32(i + 1)
		g.prev[i] = int32(i - 1)
		g.rank[i] = noRank
		g.tok[i] = t.one[g.buf[i]]
	}
	for i := range n - 1 {
		if v := t.two[uint16(g.buf[i])|uint16(g.buf[i+1])<<8]; v != noRank {
			g.rank[i] = v
			queue = append(queue, uint64(v)<<32|uint64(i))
		}
	}
	ceiling := uint64(math.MaxUint64) // pairs above it wait in later
	g.heap, g.later = g.heap[:0], g.later[:0]
	if sorted {
		slices.Sort(queue)
		if len(queue) > 0 {
			ceiling = queue[len(queue)-1]
		}
	} else {
		g.heap, queue = queue, g.heap[:0]
		heapInit(g.heap)
	}
	push := func(v uint32, at int32) {
		k := uint64(v)<<32 | uint64(at)
		if k <= ceiling {
			g.heap = heapPush(g.heap, k)
		} else {
			g.later = append(g.later, k)
		}
	}
	count, pos := n, 0
	for {
		var top uint64
		switch {
		case pos < len(queue) && (len(g.heap) == 0 || queue[pos] < g.heap[0]):
			top = queue[pos]
			pos++
		case len(g.heap) > 0:
			top = g.heap[0]
			g.heap = heapPop(g.heap)
		case len(g.later) > 0:
			// Everything left is in later: keep its live pairs, sorted.
			queue, pos = queue[:0], 0
			for _, k := range g.later {
				if g.rank[int32(k)] == uint32(k>>32) {
					queue = append(queue, k)
				}
			}
			g.later = g.later[:0]
			slices.Sort(queue)
			if len(queue) > 0 {
				ceiling = queue[len(queue)-1]
			}
			continue
		default:
			g.sorted = queue
			return count
		}
		a, r := int32(top), uint32(top>>32)
		if g.rank[a] != r {
			continue // stale: a was merged away or its pair changed
		}
		// Remove b, extending a over it.
		b := g.next[a]
		c := g.next[b]
		g.next[a] = c
		if int(c) < n {
			g.prev[c] = a
		}
		g.rank[b] = noRank
		g.tok[a] = r
		count--
		// The pair a starts is now (a..b, c).
		g.rank[a] = noRank
		if int(c) < n {
			if v := g.pair(t, piece, a, c, g.next[c]); v != noRank {
				g.rank[a] = v
				push(v, a)
			}
		}
		// The pair before a is now (p, a..b).
		if p := g.prev[a]; p >= 0 {
			g.rank[p] = noRank
			if v := g.pair(t, piece, p, a, c); v != noRank {
				g.rank[p] = v
				push(v, p)
			}
		}
	}
}

// pair returns the rank of the pair of the tokens at i (to mid) and mid
// (to j), from the cache if it holds it.
func (g *bigMerge) pair(t *rankTable, piece string, i, mid, j int32) uint32 {
	k := uint64(g.tok[i])<<32 | uint64(g.tok[mid]) | 1<<63
	e := &g.cache[k*0x9E3779B97F4A7C15>>(64-pairCacheBits)]
	if e.key == k {
		return e.rank
	}
	r := t.span(g.buf, piece, int(i), int(j))
	e.key, e.rank = k, r
	return r
}

// pairCache remembers the ranks of pairs of tokens by the ranks of the
// two, which decide it: a long piece merges the same pairs again and
// again (a run of one character nothing else), and a hit costs one read
// instead of a lookup in the rank table. A key has its top bit set, so
// the zero entry is empty.
type pairCache [1 << pairCacheBits]struct {
	key  uint64
	rank uint32
}

const pairCacheBits = 8

func (g *bigMerge) appendTokens(t *rankTable, dst []int, piece string) []int {
	for i := int32(0); int(i) < len(piece); i = g.next[i] {
		dst = append(dst, int(t.rank(piece[i:g.next[i]])))
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
