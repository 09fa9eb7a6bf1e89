package budget

import (
	"sync"

	"github.com/tessera-dev/tessera/tokenizer"
)

// Cache remembers token counts by counter and content hash, so a section
// that recurs across assemblies (a system prompt, a rule set) is counted
// once. It is safe for concurrent use. Counts are deterministic, so what
// the cache holds never changes a result, only how fast it comes.
type Cache struct {
	mu  sync.Mutex
	max int
	m   map[cacheKey]int
}

type cacheKey struct {
	counter string
	hash    string
}

// DefaultCacheSize is the number of counts a cache holds when NewCache is
// given 0.
const DefaultCacheSize = 16384

// NewCache returns a cache holding up to max counts (DefaultCacheSize if
// max is 0). When full it starts over, which keeps memory bounded without
// bookkeeping on the hot path.
func NewCache(max int) *Cache {
	if max <= 0 {
		max = DefaultCacheSize
	}
	return &Cache{max: max, m: make(map[cacheKey]int)}
}

// Len returns the number of counts held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// count returns the count of text, whose prompt hash is hash, by counter.
func (c *Cache) count(counter tokenizer.Counter, hash, text string) int {
	if text == "" {
		return 0
	}
	k := cacheKey{counter.Name(), hash}
	c.mu.Lock()
	n, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = counter.Count(text)
	c.mu.Lock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[k] = n
	c.mu.Unlock()
	return n
}
