package hf

import (
	"sync"
	"sync/atomic"

	"github.com/tessera-dev/tessera/tokenizer/internal/vocabtab"
)

// wordCache remembers the ids of short pieces, as the reference
// implementations do, so that a word met again is not merged again. It
// is direct-mapped, in fixed arrays allocated once (bounded memory, and
// no allocation per word): cacheSlots pieces of up to cacheMaxPiece
// bytes that merge into at most cacheMaxIDs tokens. The slots are split
// among shards with a lock each, so that goroutines counting at once
// rarely wait. It only ever changes speed, never a result.
type wordCache struct {
	gen    atomic.Uint32 // reset moves on a generation: older entries miss
	shards [cacheShards]cacheShard
}

const (
	cacheSlots    = 1 << 14
	cacheShards   = 64
	cacheMaxPiece = 32
	cacheMaxIDs   = 8
)

type cacheShard struct {
	mu    sync.Mutex
	slots [cacheSlots / cacheShards]cacheSlot
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

// slot returns the shard and slot of piece.
func (c *wordCache) slot(piece string) (*cacheShard, *cacheSlot) {
	h := hashPiece(piece)
	sh := &c.shards[h>>(64-6)]
	return sh, &sh.slots[h&(cacheSlots/cacheShards-1)]
}

// get appends the cached ids of piece to dst.
func (c *wordCache) get(piece string, dst []int32) ([]int32, bool) {
	gen := c.gen.Load()
	sh, s := c.slot(piece)
	sh.mu.Lock()
	ok := s.gen == gen && int(s.klen) == len(piece) && string(s.key[:s.klen]) == piece
	if ok {
		dst = append(dst, s.ids[:s.n]...)
	}
	sh.mu.Unlock()
	return dst, ok
}

// put stores the ids of piece, replacing whatever held its slot; a piece
// or a list of ids too long for a slot is not stored.
func (c *wordCache) put(piece string, ids []int32) {
	if len(piece) > cacheMaxPiece || len(ids) > cacheMaxIDs {
		return
	}
	gen := c.gen.Load()
	sh, s := c.slot(piece)
	sh.mu.Lock()
	s.gen, s.klen, s.n = gen, uint8(len(piece)), uint8(len(ids))
	copy(s.key[:], piece)
	copy(s.ids[:], ids)
	sh.mu.Unlock()
}

// reset empties the cache, in constant time.
func (c *wordCache) reset() {
	if c.gen.Add(1) == 0 {
		c.gen.Add(1) // 0 marks an empty slot
	}
}
