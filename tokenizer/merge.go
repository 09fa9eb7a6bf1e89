package tokenizer

import (
	"github.com/tessera-dev/tessera/tokenizer/internal/u64heap"
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
			g.key[i] = t.Two[uint16(buf[i])|uint16(buf[i+1])<<8]<<9 | uint32(i)
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
			g.key[s] = t.Two[uint16(buf[s])|uint16(buf[b])<<8]<<9 | uint32(s)
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

// bigMerge merges pieces longer than treePiece. Tokens are nodes of a
// linked list indexed by their start byte: next[i] is the start of the
// token after node i, or -1 for a byte inside a token. A live node's
// rank[i] is the rank of the pair it starts (noRank for none); the rank
// of a token of two or more bytes, which its pairs are cached by, is kept
// in rank[i+1], a byte inside it. The node before a live one is found by
// stepping back over the bytes inside it, at most a token's length.
//
// The queue is three parts: sorted, the pairs waiting in (rank, start)
// order as starts with their ranks in runs; heap, pairs made during the
// merge that sort before the last of sorted, as rank<<32 | start; and
// later, the starts of pairs made that sort after it, each once (inLater
// marks them), sorted into the next sorted part when the rest is used up.
// A queued pair is stale, and skipped, once its node is gone or its rank
// differs. About 14 bytes a byte of the piece in all (next, rank and the
// sorted starts, 4 each, and later, which holds a start for every two
// bytes in the run of one character that fills it most; the heap holds
// about one pair for every seven bytes of random letters), so a piece of
// many megabytes merges in bounded memory.
type bigMerge struct {
	next    []int32
	rank    []uint32
	cache   pairCache
	sorted  []int32 // starts of the sorted pairs, from pos
	runs    []rankRun
	heap    []uint64  // pairs no greater than the last sorted one
	later   [][]int32 // starts of pairs greater than the last sorted one, in blocks
	spare   [][]int32 // emptied blocks of later
	inLater []uint64  // a bit for each node that later holds
	counts  []int32   // scratch of the counting sort: one for each byte pair
}

// A rankRun says that sorted[previous run's end:end] have rank rank.
type rankRun struct {
	rank uint32
	end  int32
}

// countingSortMin is the shortest piece whose initial pairs are ordered by
// a counting sort over the 65,536 byte pairs rather than by sorting.
const countingSortMin = 1 << 20

// sortKeysMax is the most starts sortStarts sorts as keys, 8 bytes each.
const sortKeysMax = 1 << 16

// sortStarts sorts starts, each a live node with a pair, by (rank, start)
// and sets runs from their ranks. Up to sortKeysMax starts, it sorts
// their keys (rank<<32 | start) in the heap's buffer, empty whenever the
// sorted part is made; more are sorted in place, to take no more memory.
func (g *bigMerge) sortStarts(starts []int32) {
	if len(starts) < sortKeysMax {
		keys := slices.Grow(g.heap[:0], len(starts))
		for _, s := range starts {
			keys = append(keys, uint64(g.rank[s])<<32|uint64(s))
		}
		slices.Sort(keys)
		for i, k := range keys {
			starts[i] = int32(k)
		}
		g.heap = keys[:0]
	} else {
		slices.SortFunc(starts, func(a, b int32) int {
			if ra, rb := g.rank[a], g.rank[b]; ra != rb {
				if ra < rb {
					return -1
				}
				return 1
			}
			return int(a - b)
		})
	}
	g.runs = g.runs[:0]
	for i, s := range starts {
		if r := g.rank[s]; len(g.runs) == 0 || g.runs[len(g.runs)-1].rank != r {
			g.runs = append(g.runs, rankRun{rank: r})
		}
		g.runs[len(g.runs)-1].end = int32(i + 1)
	}
}

// merge merges piece (two bytes or more) and returns its token count; the
// tokens are the live nodes, in order, from node 0. With sorted, the queue
// starts from the sorted initial pairs; otherwise they start in the heap.
func (g *bigMerge) merge(t *rankTable, piece string, sorted bool) int {
	n := len(piece)
	g.next = resize(g.next, n)
	g.rank = resize(g.rank, n)
	clear(g.cache[:])
	for i := range n {
		g.next[i] = int32(i + 1)
	}
	g.heap, g.sorted, g.runs = g.heap[:0], g.sorted[:0], g.runs[:0]
	g.spare = append(g.spare, g.later...)
	g.later = g.later[:0]
	g.inLater = resize(g.inLater, (n+63)/64)
	clear(g.inLater)
	pairs := 0
	for i := range n - 1 {
		v := t.Two[uint16(piece[i])|uint16(piece[i+1])<<8]
		g.rank[i] = v
		if v != noRank {
			pairs++
		}
	}
	g.rank[n-1] = noRank
	ceiling := uint64(math.MaxUint64) // pairs above it wait in later
	switch {
	case !sorted:
		for i := range n - 1 {
			if v := g.rank[i]; v != noRank {
				g.heap = append(g.heap, uint64(v)<<32|uint64(i))
			}
		}
		u64heap.Init(g.heap)
	case n >= countingSortMin:
		g.countingSort(piece, pairs)
	default:
		g.sorted = slices.Grow(g.sorted, pairs)
		for i := range n - 1 {
			if g.rank[i] != noRank {
				g.sorted = append(g.sorted, int32(i))
			}
		}
		g.sortStarts(g.sorted)
	}
	if len(g.sorted) > 0 {
		ceiling = uint64(g.runs[len(g.runs)-1].rank)<<32 | uint64(g.sorted[len(g.sorted)-1])
	}
	push := func(v uint32, at int32) {
		if k := uint64(v)<<32 | uint64(at); k <= ceiling {
			g.heap = u64heap.Push(g.heap, k)
		} else if w, bit := at>>6, uint64(1)<<(at&63); g.inLater[w]&bit == 0 {
			g.inLater[w] |= bit
			g.addLater(at)
		}
	}
	count, pos, run := n, 0, 0
	for {
		var top uint64
		var queued uint64 = math.MaxUint64
		if pos < len(g.sorted) {
			for int32(pos) >= g.runs[run].end {
				run++
			}
			queued = uint64(g.runs[run].rank)<<32 | uint64(g.sorted[pos])
		}
		switch {
		case queued != math.MaxUint64 && (len(g.heap) == 0 || queued < g.heap[0]):
			top = queued
			pos++
		case len(g.heap) > 0:
			top = g.heap[0]
			g.heap = u64heap.Pop(g.heap)
		case len(g.later) > 0:
			// Everything left is in later: sort its live pairs.
			g.sortLater()
			pos, run = 0, 0
			if len(g.sorted) > 0 {
				ceiling = uint64(g.runs[len(g.runs)-1].rank)<<32 | uint64(g.sorted[len(g.sorted)-1])
			}
			continue
		default:
			return count
		}
		a, r := int32(top), uint32(top>>32)
		if g.next[a] < 0 || g.rank[a] != r {
			continue // stale: a was merged away or its pair changed
		}
		// Remove b, extending a over it; the token a starts has rank r.
		b := g.next[a]
		c := g.next[b]
		g.next[a] = c
		g.next[b] = -1
		g.rank[a+1] = r
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
		if a > 0 {
			p := a - 1
			for g.next[p] < 0 {
				p--
			}
			g.rank[p] = noRank
			if v := g.pair(t, piece, p, a, c); v != noRank {
				g.rank[p] = v
				push(v, p)
			}
		}
	}
}

// countingSort fills sorted and runs with the initial pairs of piece
// (pairs of them have a rank): each pair of bytes is a token of its own
// rank, so counting the starts of each pair of bytes and laying them out
// in rank order sorts them by (rank, start) in two passes.
func (g *bigMerge) countingSort(piece string, pairs int) {
	g.counts = resize(g.counts, 1<<16)
	clear(g.counts)
	for i := range len(piece) - 1 {
		if g.rank[i] != noRank {
			g.counts[uint16(piece[i])|uint16(piece[i+1])<<8]++
		}
	}
	type keyRank struct {
		key  uint16
		rank uint32
	}
	var present []keyRank
	for k, c := range g.counts {
		if c > 0 {
			present = append(present, keyRank{uint16(k), 0})
		}
	}
	for i := range len(piece) - 1 {
		// The rank of each present pair, from any of its starts.
		if g.rank[i] == noRank {
			continue
		}
		k := uint16(piece[i]) | uint16(piece[i+1])<<8
		if c := g.counts[k]; c > 0 {
			g.counts[k] = -c // seen: its rank is taken below
			j, _ := slices.BinarySearchFunc(present, k, func(p keyRank, k uint16) int { return int(p.key) - int(k) })
			present[j].rank = g.rank[i]
		}
	}
	slices.SortFunc(present, func(a, b keyRank) int {
		if a.rank < b.rank {
			return -1
		}
		if a.rank > b.rank {
			return 1
		}
		return 0
	})
	// counts[k] becomes the next slot of pair k.
	at := int32(0)
	for _, p := range present {
		c := -g.counts[p.key]
		g.counts[p.key] = at
		at += c
		g.runs = append(g.runs, rankRun{rank: p.rank, end: at})
	}
	g.sorted = resize(g.sorted, pairs)
	for i := range len(piece) - 1 {
		if g.rank[i] != noRank {
			k := uint16(piece[i]) | uint16(piece[i+1])<<8
			g.sorted[g.counts[k]] = int32(i)
			g.counts[k]++
		}
	}
}

// laterBlock is the number of starts in a block of later. Later grows by
// blocks, never by copying: in a run of one character it takes a start
// for every two bytes of the piece, and growing one slice to that size
// would allocate five times as much on the way.
const laterBlock = 1 << 14

// addLater adds the start s to later.
func (g *bigMerge) addLater(s int32) {
	if n := len(g.later); n == 0 || len(g.later[n-1]) == laterBlock {
		var b []int32
		if k := len(g.spare); k > 0 {
			b, g.spare = g.spare[k-1][:0], g.spare[:k-1]
		} else {
			b = make([]int32, 0, laterBlock)
		}
		g.later = append(g.later, b)
	}
	last := &g.later[len(g.later)-1]
	*last = append(*last, s)
}

// sortLater makes the live pairs of later the sorted part of the queue,
// in the sorted part's buffer (all of it used by now), and empties later.
func (g *bigMerge) sortLater() {
	total := 0
	for _, b := range g.later {
		total += len(b)
	}
	live := slices.Grow(g.sorted[:0], total)
	for _, b := range g.later {
		for _, s := range b {
			g.inLater[s>>6] &^= 1 << (s & 63)
			if g.next[s] >= 0 && g.rank[s] != noRank {
				live = append(live, s)
			}
		}
	}
	g.spare = append(g.spare, g.later...)
	g.later = g.later[:0]
	g.sortStarts(live)
	g.sorted = live
}

// pair returns the rank of the pair of the tokens at i (to mid) and mid
// (to j), from the cache if it holds it.
func (g *bigMerge) pair(t *rankTable, piece string, i, mid, j int32) uint32 {
	k := uint64(g.tok(piece, i))<<32 | uint64(g.tok(piece, mid)) | 1<<63
	e := &g.cache[k*0x9E3779B97F4A7C15>>(64-pairCacheBits)]
	if e.key == k {
		return e.rank
	}
	r := t.rank(piece[i:j])
	e.key, e.rank = k, r
	return r
}

// tok returns the rank of the token that the live node i starts: the
// byte's rank for one byte, else the rank kept in the byte after i.
func (g *bigMerge) tok(piece string, i int32) uint32 {
	if g.next[i] == i+1 {
		return uint32(piece[i]) | 1<<31 // a byte: its own key, apart from ranks
	}
	return g.rank[i+1]
}

// pairCache remembers the ranks of pairs of tokens by the tokens, which
// decide it: a long piece merges the same pairs again and again (a run of
// one character nothing else), and a hit costs one read instead of a
// lookup in the rank table. A key has its top bit set, so the zero entry
// is empty.
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
