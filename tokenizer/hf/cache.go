package hf

import (
	"sync/atomic"

	"github.com/tessera-dev/tessera/tokenizer/internal/vocabtab"
)

// The word cache remembers the ids of short pieces, as the reference
// implementations do, so that a word met again is not merged again. Each
// scratch space of merges (mergeState, one per goroutine counting at a
// time, through the tokenizer's pool) holds its own slots, wordSlots, so
// that a lookup takes no lock: a lock per lookup and per store had cost a
// tenth of the time on Cyrillic and Devanagari with Qwen 3. The slots are
// direct-mapped, in fixed arrays allocated once per scratch space
// (bounded memory, and no allocation per word): cacheSlots pieces of up
// to cacheMaxPiece bytes that merge into at most cacheMaxIDs tokens. The
// tokenizer's wordCache holds the generation all its slots answer for,
// so that a reset empties every one of them at once. The cache only ever
// changes speed, never a result.
type wordCache struct {
	gen atomic.Uint32 // reset moves on a generation: older entries miss
}

const (
	cacheBits     = 14
	cacheSlots    = 1 << cacheBits
	cacheMaxPiece = 32
	cacheMaxIDs   = 8
)

// wordSlots are one scratch space's slots of the word cache of owner.
type wordSlots struct {
	owner *wordCache
	slots [cacheSlots]cacheSlot
}

type cacheSlot struct {
	gen     uint32 // 0: empty
	klen, n uint8
	key     [cacheMaxPiece]byte
	ids     [cacheMaxIDs]int32
}

func newWordCache() *wordCache {
	c := &wordCache{}
	c.gen.Store(1)
	return c
}

// hashPiece hashes a piece of at most cacheMaxPiece bytes.
func hashPiece(s string) uint64 {
	h := uint64(len(s)) * 0xA0761D6478BD642F
	if len(s) < 8 {
		return (h ^ vocabtab.ShortKey(s)) * 0x9E3779B97F4A7C15
	}
	for i := 0; i+8 < len(s); i += 8 {
		h = (h ^ vocabtab.Load64(s, i)) * 0xE7037ED1A0B428DB
		h ^= h >> 31
	}
	h = (h ^ vocabtab.Load64(s, len(s)-8)) * 0x8EBC6AF09C88C6E3
	return h ^ h>>29
}

// slot returns the slot of piece, and the generation its entry must have
// to count. Slots last used for another cache (scratch space shared by
// copies of a tokenizer, in tests) are emptied first.
func (w *wordSlots) slot(c *wordCache, piece string) (*cacheSlot, uint32) {
	if w.owner != c {
		w.slots = [cacheSlots]cacheSlot{}
		w.owner = c
	}
	return &w.slots[hashPiece(piece)>>(64-cacheBits)], c.gen.Load()
}

// get appends the cached ids of piece to dst.
func (w *wordSlots) get(c *wordCache, piece string, dst []int32) ([]int32, bool) {
	s, gen := w.slot(c, piece)
	return s.get(gen, piece, dst)
}

// get is wordSlots' get on piece's slot s, of generation gen.
func (s *cacheSlot) get(gen uint32, piece string, dst []int32) ([]int32, bool) {
	if s.gen == gen && int(s.klen) == len(piece) && string(s.key[:s.klen]) == piece {
		return append(dst, s.ids[:s.n]...), true
	}
	return dst, false
}

// put stores the ids of piece, replacing whatever held its slot; a piece
// or a list of ids too long for a slot is not stored.
func (w *wordSlots) put(c *wordCache, piece string, ids []int32) {
	if len(piece) > cacheMaxPiece || len(ids) > cacheMaxIDs {
		return
	}
	s, gen := w.slot(c, piece)
	s.store(gen, piece, ids)
}

// store is put on piece's slot s and generation gen (from slot): for a
// piece whose lookup has just missed in s, without hashing it again.
func (s *cacheSlot) store(gen uint32, piece string, ids []int32) {
	if len(piece) > cacheMaxPiece || len(ids) > cacheMaxIDs {
		return
	}
	s.gen, s.klen, s.n = gen, uint8(len(piece)), uint8(len(ids))
	copy(s.key[:], piece)
	copy(s.ids[:], ids)
}

// reset empties the cache, every scratch space's slots at once, in
// constant time.
func (c *wordCache) reset() {
	if c.gen.Add(1) == 0 {
		c.gen.Add(1) // 0 marks an empty slot
	}
}
