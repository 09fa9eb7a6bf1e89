package serve

import (
	"crypto/sha256"
	"sync"
	"time"
)

// authCacheSize caps the key pairs remembered; a full cache starts again.
const authCacheSize = 10_000

// authCache remembers the key pairs that authenticated, for a short time,
// so that a fetch does not query the store's database each time. Only
// successes are kept: a wrong secret always reaches the store. Entries
// are keyed by a SHA-256 of the pair, never by the secret itself.
type authCache struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[[sha256.Size]byte]authEntry
}

type authEntry struct {
	key   Key
	until time.Time
}

func newAuthCache(ttl time.Duration) *authCache {
	return &authCache{ttl: ttl, m: map[[sha256.Size]byte]authEntry{}}
}

func pairHash(public, secret string) [sha256.Size]byte {
	return sha256.Sum256([]byte(public + "\x00" + secret))
}

// get returns the key the pair authenticated as, if it did within ttl.
func (c *authCache) get(public, secret string, now time.Time) (Key, bool) {
	if c.ttl <= 0 {
		return Key{}, false
	}
	h := pairHash(public, secret)
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[h]
	if !ok || now.After(e.until) {
		delete(c.m, h)
		return Key{}, false
	}
	return e.key, true
}

// put remembers that the pair authenticated as k.
func (c *authCache) put(public, secret string, k Key, now time.Time) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= authCacheSize {
		clear(c.m)
	}
	c.m[pairHash(public, secret)] = authEntry{key: k, until: now.Add(c.ttl)}
}

// forget drops every pair of public key public: its secret or role
// changed.
func (c *authCache) forget(public string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for h, e := range c.m {
		if e.key.Public == public {
			delete(c.m, h)
		}
	}
}
