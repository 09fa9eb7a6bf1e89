package hf

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
)

// wordCache remembers the ids of short pieces, as the reference
// implementations do, so that a word met again is not merged again. It
// is direct-mapped with a fixed number of slots (bounded memory: at most
// cacheSlots pieces of up to cacheMaxPiece bytes), lock-free, and only
// ever changes speed, never a result.
type wordCache struct {
	seed  maphash.Seed
	gen   atomic.Uint32 // reset moves on a generation: older entries miss
	slots [cacheSlots]atomic.Pointer[cacheEntry]
}

const (
	cacheSlots    = 1 << 14
	cacheMaxPiece = 64
)

type cacheEntry struct {
	gen uint32
	key string
	ids []int32
}

func newWordCache() *wordCache { return &wordCache{seed: maphash.MakeSeed()} }

func (c *wordCache) slot(piece string) *atomic.Pointer[cacheEntry] {
	return &c.slots[maphash.String(c.seed, piece)&(cacheSlots-1)]
}

// get returns the cached ids of piece.
func (c *wordCache) get(piece string) ([]int32, bool) {
	if e := c.slot(piece).Load(); e != nil && e.key == piece && e.gen == c.gen.Load() {
		return e.ids, true
	}
	return nil, false
}

// put stores the ids of piece, replacing whatever held its slot. The
// piece is copied, so the cache never keeps a caller's text alive.
func (c *wordCache) put(piece string, ids []int32) {
	c.slot(piece).Store(&cacheEntry{gen: c.gen.Load(), key: strings.Clone(piece), ids: append([]int32(nil), ids...)})
}

// reset empties the cache, in constant time.
func (c *wordCache) reset() { c.gen.Add(1) }
