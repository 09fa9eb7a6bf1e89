package serve

import (
	"testing"
	"time"
)

func TestAuthCache(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	c := newAuthCache(10 * time.Second)
	k := Key{Public: "pk", Role: RoleViewer}
	c.put("pk", "sk", k, now)
	if got, ok := c.get("pk", "sk", now.Add(9*time.Second)); !ok || got != k {
		t.Errorf("within the TTL: %v, %v", got, ok)
	}
	if _, ok := c.get("pk", "other", now); ok {
		t.Error("another secret hit the cache")
	}
	if _, ok := c.get("pk", "sk", now.Add(11*time.Second)); ok {
		t.Error("past the TTL: still cached")
	}
	c.put("pk", "sk", k, now)
	c.forget("pk")
	if _, ok := c.get("pk", "sk", now); ok {
		t.Error("forgotten, still cached")
	}
	off := newAuthCache(-1)
	off.put("pk", "sk", k, now)
	if _, ok := off.get("pk", "sk", now); ok {
		t.Error("a cache turned off cached")
	}
	for i := range authCacheSize + 1 {
		c.put("pk", string(rune(i)), k, now)
	}
	if len(c.m) > authCacheSize {
		t.Errorf("%d entries, over %d", len(c.m), authCacheSize)
	}
}
