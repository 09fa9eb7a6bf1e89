package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/serve/registry"
)

// variableTargets says, per preset, where a render's variables go in the
// inputs its audit record keeps: "values" puts each variable in place of
// the typed parameter of its name; "" puts it in place of the spec's
// top-level key of its name. A preset not listed takes no variables: a
// workflow node's prompt is its files, and a layered prompt's record holds
// a selection already made, which new values would not remake.
var variableTargets = map[string]string{
	"typed":     "values",
	"canonical": "",
}

// VariablesError is a render's variables that its prompt cannot take.
type VariablesError struct{ Msg string }

// Error returns the message.
func (e *VariablesError) Error() string { return e.Msg }

// assembleWith assembles the resolved prompt with vars in place of the
// values its catalog gives: its record's inputs with vars merged in, laid
// out again by its preset. Secrets in the variables' strings are redacted
// as the catalog's redaction says, before they are laid out or recorded.
func (s *Server) assembleWith(ctx context.Context, res *registry.Resolved, vars map[string]json.RawMessage) (*engine.Result, error) {
	name := res.Prompt.Result.Preset
	target, ok := variableTargets[name]
	if !ok {
		return nil, &VariablesError{fmt.Sprintf("prompt %q is a %s prompt, which takes no variables: only typed templates (their parameters) and canonical specs (their top-level keys, such as input) do", res.Name, name)}
	}
	base, err := s.assemble(ctx, res)
	if err != nil {
		return nil, err
	}
	env, err := engine.Env(res.Snapshot.Catalog)
	if err != nil {
		return nil, err
	}
	var counts guard.Counts
	red := make(map[string]json.RawMessage, len(vars))
	for k, v := range vars {
		if red[k], err = redactJSON(v, env.Redactor, &counts); err != nil {
			return nil, &VariablesError{fmt.Sprintf("variable %q: %v", k, err)}
		}
	}
	inputs := base.Record.Inputs
	if target == "" {
		inputs, err = mergeObject(inputs, red)
	} else {
		var sub json.RawMessage
		if sub, err = member(inputs, target); err == nil {
			if sub, err = mergeObject(sub, red); err == nil {
				inputs, err = mergeObject(inputs, map[string]json.RawMessage{target: sub})
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("merging the variables into the %s prompt's inputs: %w", name, err)
	}
	rec := *base.Record
	rec.Inputs = inputs
	p := s.engine.Registry.Lookup(name)
	l, err := p.Rebuild(ctx, env, &rec)
	if err != nil {
		return nil, &VariablesError{fmt.Sprintf("prompt %q with these variables: %v", res.Name, err)}
	}
	for _, c := range counts {
		l.Redactions.Add(c.Label, c.N)
	}
	return s.engine.Assemble(ctx, engine.Request{Preset: name, Layout: l, Catalog: res.Snapshot.Catalog, NoLog: true})
}

// redactJSON returns the JSON value v with the secrets in its strings
// redacted, counting them in counts.
func redactJSON(v json.RawMessage, r *guard.Redactor, counts *guard.Counts) (json.RawMessage, error) {
	var x any
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case string:
			out, c := r.RedactSecrets(t)
			for _, n := range c {
				counts.Add(n.Label, n.N)
			}
			return out
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
		case map[string]any:
			for k := range t {
				t[k] = walk(t[k])
			}
		}
		return x
	}
	if _, ok := x.(map[string]any); ok {
		// An object's keys keep their order only as written: leave
		// objects as they came when nothing in them is a secret.
		if !hasSecret(x, r) {
			return v, nil
		}
	}
	return json.Marshal(walk(x))
}

// hasSecret reports whether any string in x holds a secret.
func hasSecret(x any, r *guard.Redactor) bool {
	switch t := x.(type) {
	case string:
		_, c := r.RedactSecrets(t)
		return len(c) > 0
	case []any:
		for _, e := range t {
			if hasSecret(e, r) {
				return true
			}
		}
	case map[string]any:
		for _, e := range t {
			if hasSecret(e, r) {
				return true
			}
		}
	}
	return false
}

// member returns the value of key in the JSON object obj, or {} when it
// has none.
func member(obj json.RawMessage, key string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		return nil, err
	}
	if v, ok := m[key]; ok {
		return v, nil
	}
	return json.RawMessage("{}"), nil
}

// mergeObject returns the JSON object obj with each key of set in place of
// its value, or added at the end, keeping the order of obj's keys (a
// spec's schemas keep their property order).
func mergeObject(obj json.RawMessage, set map[string]json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var b strings.Builder
	b.WriteByte('{')
	done := map[string]bool{}
	write := func(k string, v json.RawMessage) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kj, _ := json.Marshal(k)
		b.Write(kj)
		b.WriteByte(':')
		b.Write(v)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if nv, ok := set[k]; ok {
			v, done[k] = nv, true
		}
		write(k, v)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, errors.New("not a JSON object: it does not end")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not one JSON object: something follows it")
	}
	for _, k := range sortedKeys(set) {
		if !done[k] {
			write(k, set[k])
		}
	}
	b.WriteByte('}')
	return json.RawMessage(b.String()), nil
}
