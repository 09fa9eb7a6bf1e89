package engine

import (
	"context"
	"fmt"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/tokenizer"
)

// Replay verifies every record with the correlation id id in log l: each
// stored text must still hash to its stored hash, and the preset the
// record names must lay it out again, with the same budget and counter,
// to the same bytes. Catalog c (nil for none) is what template records
// are rebuilt from.
//
// The log's chain is checked too (audit.Report.Chain); when l has no Key
// and the catalog's tessera.yaml names one (log_key_env), the signatures
// are checked with it.
func (e *Engine) Replay(ctx context.Context, c *catalog.Catalog, l *audit.Log, id string) (*audit.Report, error) {
	rebuild, err := e.rebuilder(c)
	if err != nil {
		return nil, err
	}
	if l, err = KeyedLog(c, l); err != nil {
		return nil, err
	}
	return audit.Replay(ctx, l, id, rebuild)
}

// ReplayHash is Replay for the records whose prompt hash is hash.
func (e *Engine) ReplayHash(ctx context.Context, c *catalog.Catalog, l *audit.Log, hash string) (*audit.Report, error) {
	rebuild, err := e.rebuilder(c)
	if err != nil {
		return nil, err
	}
	if l, err = KeyedLog(c, l); err != nil {
		return nil, err
	}
	return audit.ReplayHash(ctx, l, hash, rebuild)
}

// ReplayEach is Replay for the records q selects that hands each verdict
// to fn as it is made, holding one record at a time (see audit.ReplayEach).
func (e *Engine) ReplayEach(ctx context.Context, c *catalog.Catalog, l *audit.Log, q audit.Query, fn func(audit.Verdict) error) (*audit.Report, error) {
	rebuild, err := e.rebuilder(c)
	if err != nil {
		return nil, err
	}
	if l, err = KeyedLog(c, l); err != nil {
		return nil, err
	}
	return audit.ReplayEach(ctx, l, q, rebuild, fn)
}

// ReplayStore is ReplayEach for the records q selects in any audit store
// (a Log, or a database of package auditdb), named name in messages. The
// store's chain is checked, with the signatures when catalog c's
// tessera.yaml names a key (log_key_env) or s is a Log with a Key.
func (e *Engine) ReplayStore(ctx context.Context, c *catalog.Catalog, s audit.Store, name string, q audit.Query, fn func(audit.Verdict) error) (*audit.Report, error) {
	rebuild, err := e.rebuilder(c)
	if err != nil {
		return nil, err
	}
	var key []byte
	if l, ok := s.(*audit.Log); !ok || l.Key == nil {
		if c != nil {
			if key, err = c.LogKey(); err != nil {
				return nil, err
			}
		}
	}
	return audit.ReplayStore(ctx, s, name, key, q, rebuild, fn)
}

// KeyedLog returns l with the key of catalog c's log (tessera.yaml's
// log_key_env) when l has no key of its own and c names one; l itself
// otherwise. A named key that is not set is an error.
func KeyedLog(c *catalog.Catalog, l *audit.Log) (*audit.Log, error) {
	if l == nil || l.Key != nil || c == nil {
		return l, nil
	}
	key, err := c.LogKey()
	if err != nil || key == nil {
		return l, err
	}
	k := *l
	k.Key = key
	return &k, nil
}

// rebuilder returns the function that lays a record's prompt out again
// from catalog c.
func (e *Engine) rebuilder(c *catalog.Catalog) (audit.RebuildFunc, error) {
	env, err := Env(c)
	if err != nil {
		return nil, err
	}
	reg := e.registry()
	rebuild := func(ctx context.Context, rec *audit.Record) (*prompt.Prompt, error) {
		name := rec.Preset
		if name == "" {
			name = "template" // records written before presets were named
		}
		p := reg.Lookup(name)
		if p == nil {
			if hint := e.noPresetsHint(); hint != "" {
				return nil, fmt.Errorf("record uses preset %q%s", name, hint)
			}
			return nil, fmt.Errorf("record uses preset %q, which is not among %v", rec.Preset, presetNames(reg))
		}
		lay, err := p.Rebuild(ctx, env, rec)
		if err != nil {
			return nil, err
		}
		if rec.Delivery != nil {
			// Sent with native tools: the text did not repeat them.
			native := *lay
			native.Sections = nativeBodies(lay.Sections)
			lay = &native
		}
		var (
			counter tokenizer.Counter
			b       budget.Budget
			fr      *framing
		)
		if rec.Budget != nil {
			if counter, err = CounterNamed(c, rec.Budget.Counter); err != nil {
				return nil, fmt.Errorf("record's budget: %w", err)
			}
			b = rec.Budget.Budget()
			if rec.Budget.Provider != "" {
				f, err := provider.ParseFormat(rec.Budget.Provider)
				if err != nil {
					return nil, fmt.Errorf("record's budget: %w", err)
				}
				fr = &framing{format: f, model: rec.Budget.Model, style: lay.Style}
			}
		}
		res, err := e.finish(ctx, p, lay, env, counter, b, fr)
		if err != nil {
			if fe, ok := err.(*FitError); ok {
				return nil, fmt.Errorf("record's budget: %w", fe.Err)
			}
			return nil, err
		}
		return &res.Prompt, nil
	}
	return rebuild, nil
}

// Describe names the prompt a record holds, for messages: its name (a
// workflow node's), else its preset and label, else its preset's spec.
func Describe(rec *audit.Record) string {
	switch {
	case rec.Name != "":
		return rec.Name
	case rec.Label != "":
		return rec.Preset + " " + rec.Label
	}
	return rec.Preset + " spec"
}
