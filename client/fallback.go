package client

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// fallback is the compiled catalog a client falls back to.
type fallback struct {
	fsys   fs.FS
	byName map[string]manifestEntry
	byHash map[string]string // hash → name
}

// manifestEntry is what the fallback needs of a manifest.json entry.
type manifestEntry struct {
	Path string `json:"path"`
	Hash string `json:"hash"`
}

// loadFallback reads the manifest.json at the root of fsys.
func loadFallback(fsys fs.FS) (*fallback, error) {
	data, err := fs.ReadFile(fsys, "manifest.json")
	if err != nil {
		return nil, fmt.Errorf("client: fallback catalog: %w: give the output directory of tessera compile, with its manifest.json at the root (with go:embed, use fs.Sub to reach it)", err)
	}
	var m struct {
		Prompts []manifestEntry `json:"prompts"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("client: fallback catalog: manifest.json: %v", err)
	}
	fb := &fallback{fsys: fsys, byName: map[string]manifestEntry{}, byHash: map[string]string{}}
	for i, e := range m.Prompts {
		if !strings.HasSuffix(e.Path, ".txt") || !fs.ValidPath(e.Path) || len(e.Hash) != 64 {
			return nil, fmt.Errorf("client: fallback catalog: manifest.json: prompt %d: path %q and hash %q are not a compiled prompt's", i+1, e.Path, e.Hash)
		}
		name := strings.TrimSuffix(e.Path, ".txt")
		fb.byName[name] = e
		if _, ok := fb.byHash[e.Hash]; !ok {
			fb.byHash[e.Hash] = name
		}
	}
	return fb, nil
}

// prompt reads the fallback copy of name, checking its hash.
func (fb *fallback) prompt(name string) (*Prompt, error) {
	e, ok := fb.byName[name]
	if !ok {
		return nil, fmt.Errorf("no prompt %s in the fallback catalog", name)
	}
	data, err := fs.ReadFile(fb.fsys, e.Path)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	if h := hex.EncodeToString(sum[:]); h != e.Hash {
		return nil, fmt.Errorf("fallback catalog: %s hashes to %s, not to the %s of manifest.json", e.Path, h, e.Hash)
	}
	return &Prompt{Name: name, Type: "text", Text: string(data), Hash: e.Hash, Tags: []string{path.Dir(e.Path)}, Fallback: true}, nil
}

// fallbackFor returns the fallback copy of k when err says the server
// could not answer and the fallback catalog has it; nil otherwise. Only
// a fetch by label (or by hash) falls back: the compiled catalog has no
// version numbers.
func (c *Client) fallbackFor(k key, err error) *Prompt {
	if c.fallback == nil || !unreachable(err) || k.version != 0 {
		return nil
	}
	name := k.name
	if name == "\x00hash" {
		var ok bool
		if name, ok = c.fallback.byHash[k.label]; !ok {
			return nil
		}
	}
	p, ferr := c.fallback.prompt(name)
	if ferr != nil {
		return nil
	}
	return p
}
