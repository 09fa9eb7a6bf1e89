package hf

// The BPE merge: the pair of adjacent symbols whose merge comes first in
// the file's merge list is merged, the leftmost of equal pairs first,
// until no listed pair is left. Short pieces are merged by scanning, long
// ones with a heap, so a piece of n symbols takes O(n log n).

import (
	"unicode/utf8"

	"github.com/tessera-dev/tessera/tokenizer/internal/u64heap"
)

// pairKey packs two token ids into a merge-table key.
func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// mergeState is the scratch space of one merge, reused through a pool.
type mergeState struct {
	ids   []int32
	next  []int32
	prev  []int32
	heap  []uint64
	syms  []int32
	out   []int32
	nfc   nfcScratch // isNFC's scratch space
	lead  []byte     // a part with the space put before it (see modelLead)
	words *wordSlots // the word cache's slots, allocated on first use
}

// wordSlots returns the state's slots of the word cache.
func (st *mergeState) wordSlots() *wordSlots {
	if st.words == nil {
		st.words = new(wordSlots)
	}
	return st.words
}

// scanLimit is the length up to which a piece is merged by scanning.
const scanLimit = 48

// merge merges the symbols in st.syms with the tokenizer's merge table
// and appends the resulting ids to dst.
func (tk *Tokenizer) merge(st *mergeState, dst []int32) []int32 {
	syms := st.syms
	if len(syms) < 2 {
		return append(dst, syms...)
	}
	if cuts := tk.fallbackCuts; cuts != nil {
		// No merge holds a byte fallback token: each stays as it is,
		// and the runs of symbols between them merge each on its own
		// (the random text: most of its characters fall back).
		start := 0
		for i, id := range syms {
			if cuts[uint32(id)/64]&(1<<(uint32(id)%64)) != 0 {
				if start < i {
					dst = tk.mergeRun(st, syms[start:i], dst)
				}
				dst = append(dst, id)
				start = i + 1
			}
		}
		if start == 0 {
			return tk.mergeRun(st, syms, dst)
		}
		if start < len(syms) {
			dst = tk.mergeRun(st, syms[start:], dst)
		}
		return dst
	}
	return tk.mergeRun(st, syms, dst)
}

// mergeRun merges the symbols syms, st.syms or part of it.
func (tk *Tokenizer) mergeRun(st *mergeState, syms []int32, dst []int32) []int32 {
	if len(syms) < 2 {
		return append(dst, syms...)
	}
	if len(syms) <= scanLimit {
		if len(syms) == 2 {
			if v, ok := tk.firstPair(syms[0], syms[1]); ok {
				return append(dst, int32(uint32(v)))
			}
			return append(dst, syms...)
		}
		if len(syms) == 3 {
			return tk.merge3(syms, dst)
		}
		return tk.mergeScan(syms, dst)
	}
	return tk.mergeHeap(st, syms, dst)
}

// firstPair looks up the merge of two of a piece's initial symbols, as
// mergeScan does.
func (tk *Tokenizer) firstPair(a, b int32) (uint64, bool) {
	if tk.byteLevel {
		return tk.merges.get(pairKey(a, b))
	}
	return tk.merges.probe(pairKey(a, b))
}

// merge3 is mergeScan for three symbols (the parts of a rare character
// that mergeCut leaves, or a short word), without its arrays and loops:
// the lower of the two pairs merges (the left one of equal pairs), then
// the token it made with the third symbol.
func (tk *Tokenizer) merge3(syms []int32, dst []int32) []int32 {
	s0, s1, s2 := syms[0], syms[1], syms[2]
	l, lok := tk.firstPair(s0, s1)
	r, rok := tk.firstPair(s1, s2)
	if lok && (!rok || l <= r) {
		m := int32(uint32(l))
		if v, ok := tk.merges.get(pairKey(m, s2)); ok {
			return append(dst, int32(uint32(v)))
		}
		return append(dst, m, s2)
	}
	if rok {
		m := int32(uint32(r))
		if v, ok := tk.merges.get(pairKey(s0, m)); ok {
			return append(dst, int32(uint32(v)))
		}
		return append(dst, s0, m)
	}
	return append(dst, s0, s1, s2)
}

// noMerge is a scan rank with no merge: above every merge's.
const noMerge = ^uint64(0)

// mergeScan merges a short piece: the rank of each adjacent pair is
// looked up once, and after a merge only the two pairs it changed.
func (tk *Tokenizer) mergeScan(syms []int32, dst []int32) []int32 {
	return tk.scan(syms, nil, "", dst)
}

// scan is mergeScan, and mergeASCII's merge when pairs is not nil: then
// syms are the symbols of piece's characters, and the ranks of their
// pairs are read from pairs instead of looked up.
func (tk *Tokenizer) scan(syms []int32, pairs *asciiMerges, piece string, dst []int32) []int32 {
	var ranks [scanLimit]uint64 // rank<<32 | merged id, or noMerge
	n := len(syms)
	// A SentencePiece-style model's symbols are characters, most pairs
	// of which in a word merge: looked up without the filter, whose bit
	// would cost a second memory access for little. A byte-level
	// model's bytes of rare characters mostly do not (the random text).
	probe := !tk.byteLevel
	for i := 0; i+1 < n; i++ {
		if pairs != nil {
			ranks[i] = pairs.ranks[(uint(piece[i])-asciiLow)*asciiSpan+uint(piece[i+1])-asciiLow]
			continue
		}
		var v uint64
		var ok bool
		if probe {
			v, ok = tk.merges.probe(pairKey(syms[i], syms[i+1]))
		} else {
			v, ok = tk.merges.get(pairKey(syms[i], syms[i+1]))
		}
		if ok {
			ranks[i] = v
		} else {
			ranks[i] = noMerge
		}
	}
	for n > 1 {
		at, best := -1, noMerge
		for i := 0; i+1 < n; i++ {
			if ranks[i] < best {
				at, best = i, ranks[i]
			}
		}
		if at < 0 {
			break
		}
		syms[at] = int32(uint32(best))
		// Shifted by a loop: a word's few symbols move faster so than
		// through two calls of copy.
		for i := at + 1; i+1 < n; i++ {
			syms[i] = syms[i+1]
			ranks[i] = ranks[i+1]
		}
		n--
		if at+1 < n {
			if v, ok := tk.merges.get(pairKey(syms[at], syms[at+1])); ok {
				ranks[at] = v
			} else {
				ranks[at] = noMerge
			}
		}
		if at > 0 {
			if v, ok := tk.merges.get(pairKey(syms[at-1], syms[at])); ok {
				ranks[at-1] = v
			} else {
				ranks[at-1] = noMerge
			}
		}
	}
	return append(dst, syms[:n]...)
}

// asciiLow and asciiSpan bound the ASCII characters asciiMerges holds:
// the printable ones, from the space.
const (
	asciiLow  = ' '
	asciiSpan = utf8.RuneSelf - asciiLow
)

// asciiMerges holds, for a SentencePiece-style model, the merge of the
// initial symbols of each two printable ASCII characters (the space,
// standing for the space mark, included), so that a word of them starts
// its merge without a lookup in the merge table per pair: 72 KiB, where
// the merge table is megabytes.
type asciiMerges struct {
	sym   [asciiSpan]int32              // the character's symbol, -1 if it has none of its own (see mergeASCII)
	ranks [asciiSpan * asciiSpan]uint64 // of a then b at a*asciiSpan+b: rank<<32 | merged id, or noMerge
}

// newASCIIMerges builds asciiMerges from the ASCII characters' tokens
// (ascii) and the merge table. A character whose token is a byte
// fallback token (cuts, see fallbackCuts) is left out.
func newASCIIMerges(ascii *[utf8.RuneSelf]int32, merges *pairTable, cuts []uint64) *asciiMerges {
	m := new(asciiMerges)
	for c := range asciiSpan {
		id := ascii[asciiLow+c]
		if id >= 0 && cuts != nil && cuts[uint32(id)/64]&(1<<(uint32(id)%64)) != 0 {
			id = -1
		}
		m.sym[c] = id
	}
	for a, sa := range m.sym {
		for b, sb := range m.sym {
			r := noMerge
			if sa >= 0 && sb >= 0 {
				if v, ok := merges.probe(pairKey(sa, sb)); ok {
					r = v
				}
			}
			m.ranks[a*asciiSpan+b] = r
		}
	}
	return m
}

// mergeASCII merges a SentencePiece-style piece of 2 to scanLimit
// printable ASCII characters as symbols and mergeScan would, taking the
// initial symbols and their pairs' ranks from asciiMerges; it reports
// false, having done nothing, if piece holds another byte (or one
// without a symbol of its own).
func (tk *Tokenizer) mergeASCII(piece string, dst []int32) ([]int32, bool) {
	m := tk.asciiMerges
	var syms [scanLimit]int32
	for i := 0; i < len(piece); i++ {
		c := uint(piece[i]) - asciiLow
		if c >= asciiSpan || m.sym[c] < 0 {
			return dst, false
		}
		syms[i] = m.sym[c]
	}
	return tk.scan(syms[:len(piece)], m, piece, dst), true
}

// mergeHeap merges with a linked list and a heap of candidate pairs,
// keyed by rank and then position; stale entries are skipped when popped.
func (tk *Tokenizer) mergeHeap(st *mergeState, syms []int32, dst []int32) []int32 {
	n := len(syms)
	st.ids = append(st.ids[:0], syms...)
	st.next = resize(st.next, n)
	st.prev = resize(st.prev, n)
	for i := range n {
		st.next[i] = int32(i + 1)
		st.prev[i] = int32(i - 1)
	}
	st.next[n-1] = -1
	h := st.heap[:0]
	for i := 0; i+1 < n; i++ {
		if v, ok := tk.merges.get(pairKey(st.ids[i], st.ids[i+1])); ok {
			h = append(h, v>>32<<32|uint64(i))
		}
	}
	u64heap.Init(h)
	for len(h) > 0 {
		top := h[0]
		h = u64heap.Pop(h)
		rank, i := top>>32, int32(uint32(top))
		if st.ids[i] < 0 {
			continue
		}
		j := st.next[i]
		if j < 0 {
			continue
		}
		v, ok := tk.merges.get(pairKey(st.ids[i], st.ids[j]))
		if !ok || v>>32 != rank {
			continue
		}
		st.ids[i] = int32(uint32(v))
		st.ids[j] = -1
		k := st.next[j]
		st.next[i] = k
		if k >= 0 {
			st.prev[k] = i
			if v, ok := tk.merges.get(pairKey(st.ids[i], st.ids[k])); ok {
				h = u64heap.Push(h, v>>32<<32|uint64(i))
			}
		}
		if p := st.prev[i]; p >= 0 {
			if v, ok := tk.merges.get(pairKey(st.ids[p], st.ids[i])); ok {
				h = u64heap.Push(h, v>>32<<32|uint64(p))
			}
		}
	}
	st.heap = h
	for i := int32(0); i >= 0; i = st.next[i] {
		dst = append(dst, st.ids[i])
	}
	return dst
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}
