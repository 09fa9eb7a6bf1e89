package embed

import (
	"fmt"
	"sync"
	"testing"
)

func TestCacheLRU(t *testing.T) {
	c := &Cache{Size: 2}
	c.Put("s", "a", Vector{1})
	c.Put("s", "b", Vector{2})
	if _, ok := c.Get("s", "a"); !ok { // a is now the most recent
		t.Fatal("a missing")
	}
	c.Put("s", "c", Vector{3}) // evicts b
	if _, ok := c.Get("s", "b"); ok {
		t.Error("b was kept beyond the size")
	}
	if v, ok := c.Get("s", "a"); !ok || v[0] != 1 {
		t.Error("a was evicted")
	}
	if _, ok := c.Get("other", "a"); ok {
		t.Error("a vector crossed spaces")
	}
	c.Put("s", "a", Vector{9})
	if v, _ := c.Get("s", "a"); v[0] != 9 || c.Len() != 2 {
		t.Errorf("update: %v, %d kept", v, c.Len())
	}
	var zero Cache
	for i := range 150 {
		zero.Put("s", fmt.Sprint(i), Vector{float32(i)})
	}
	if zero.Len() != DefaultCacheSize {
		t.Errorf("zero cache keeps %d, want %d", zero.Len(), DefaultCacheSize)
	}
	if _, ok := zero.Get("s", "49"); ok {
		t.Error("the oldest were kept")
	}
	off := &Cache{Size: -1}
	off.Put("s", "a", Vector{1})
	if _, ok := off.Get("s", "a"); ok || off.Len() != 0 {
		t.Error("a negative size kept a vector")
	}
}

// TestCacheConcurrent is for the race detector.
func TestCacheConcurrent(t *testing.T) {
	var c Cache
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				k := fmt.Sprint((g * i) % 130)
				if _, ok := c.Get("s", k); !ok {
					c.Put("s", k, Vector{float32(i)})
				}
			}
		})
	}
	wg.Wait()
	if c.Len() > DefaultCacheSize {
		t.Errorf("%d kept", c.Len())
	}
}

// BenchmarkCacheHit is a Get of a kept task in a full cache of 100.
func BenchmarkCacheHit(b *testing.B) {
	var c Cache
	for i := range DefaultCacheSize {
		c.Put("hash-v1/256", fmt.Sprintf("task %d %s", i, benchTask), Vector{float32(i)})
	}
	key := fmt.Sprintf("task %d %s", 42, benchTask)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := c.Get("hash-v1/256", key); !ok {
			b.Fatal("miss")
		}
	}
}

// BenchmarkCachePut is a Put into a full cache of 100: one eviction each.
func BenchmarkCachePut(b *testing.B) {
	var c Cache
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("task %d %s", i, benchTask)
	}
	v := Vector{1}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.Put("hash-v1/256", keys[i%len(keys)], v)
		i++
	}
}
