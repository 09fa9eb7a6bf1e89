package serve

import (
	"encoding/json"
	"sync"

	"github.com/tessera-dev/tessera/serve/registry"
)

// respCacheSize caps the answers kept; a full cache starts again.
const respCacheSize = 4096

// respCache keeps the encoded answers of GET /api/public/v2/prompts/{name}
// for one registry state: a prompt's answer changes only when the state
// does (its labels move), so a fetch of one already answered encodes
// nothing.
type respCache struct {
	mu    sync.Mutex
	state *registry.State
	m     map[respKey][]byte
}

type respKey struct {
	name, commit, ref string
	version           int
}

// get returns the answer for res in st, encoding it with body on a miss.
func (c *respCache) get(st *registry.State, res *registry.Resolved, body func() promptBody) ([]byte, error) {
	k := respKey{name: res.Name, commit: res.Commit.String(), ref: res.Ref, version: res.Version}
	c.mu.Lock()
	if c.state != st {
		c.state, c.m = st, map[respKey][]byte{}
	}
	data, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return data, nil
	}
	data, err := json.Marshal(body())
	if err != nil {
		return nil, err
	}
	data = append(data, '\n')
	c.mu.Lock()
	if c.state == st {
		if len(c.m) >= respCacheSize {
			clear(c.m)
		}
		c.m[k] = data
	}
	c.mu.Unlock()
	return data, nil
}
