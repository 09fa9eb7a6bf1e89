package embed

import (
	"container/list"
	"sync"
)

// DefaultCacheSize is the number of vectors a Cache of size 0 keeps: 100,
// as design 002's task-embedding cache.
const DefaultCacheSize = 100

// Cache keeps the vectors of the texts last embedded, in each embedder's
// space, and forgets the least recently used beyond its size. It is safe
// for concurrent use; the zero value keeps DefaultCacheSize vectors.
// Vectors it returns are shared: callers must not change them.
type Cache struct {
	// Size is the most vectors kept; 0 means DefaultCacheSize, and a
	// negative size keeps none.
	Size int

	mu    sync.Mutex
	order list.List // of *cacheEntry, most recent first
	index map[cacheKey]*list.Element
}

type cacheKey struct{ space, text string }

type cacheEntry struct {
	key cacheKey
	v   Vector
}

func (c *Cache) size() int {
	if c.Size == 0 {
		return DefaultCacheSize
	}
	return c.Size
}

// Get returns the vector of text in the space of the embedder named
// space, if it is kept, and marks it as the most recently used.
func (c *Cache) Get(space, text string) (Vector, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.index[cacheKey{space, text}]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheEntry).v, true
}

// Put keeps v as the vector of text in space, forgetting the least
// recently used vector when the cache is full.
func (c *Cache) Put(space, text string, v Vector) {
	n := c.size()
	if n < 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.index == nil {
		c.index = make(map[cacheKey]*list.Element, n)
	}
	k := cacheKey{space, text}
	if el, ok := c.index[k]; ok {
		el.Value.(*cacheEntry).v = v
		c.order.MoveToFront(el)
		return
	}
	c.index[k] = c.order.PushFront(&cacheEntry{key: k, v: v})
	for c.order.Len() > n {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.index, last.Value.(*cacheEntry).key)
	}
}

// Len returns the number of vectors kept.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
