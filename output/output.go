// Package output is the return path: it finds the JSON value in a model's
// reply (a fenced block first, then a balanced run of brackets, so prose
// around it does no harm) and checks it against the JSON Schema the
// prompt declared, reporting every problem with its place in the reply
// and its JSON Pointer in the value.
//
// Schemas are compiled with github.com/santhosh-tekuri/jsonschema/v6,
// offline: a schema that refers to another document by URL is an error,
// never a download.
package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is a compiled JSON Schema. It is safe for concurrent use.
type Schema struct {
	name  string
	s     *jsonschema.Schema
	arr   *jsonschema.Schema // an array of s's values, or nil
	shape *orderNode         // key order and declared keys, from the document
	fast  *fastNode          // the fast check, or nil when it does not know the schema
}

// Compile compiles schema, a JSON Schema document (draft 2020-12 unless
// it says otherwise with $schema); name names it in messages. References
// to other documents are refused.
func Compile(name string, schema []byte) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("output schema %s: not JSON: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	const url = "tessera:///output.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("output schema %s: %w", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("output schema %s: %w", name, err)
	}
	// An array of such values, so that a list is checked in one call.
	// A schema whose own $id moves it elsewhere may not resolve so: its
	// items are then checked one by one.
	var arr *jsonschema.Schema
	const arrURL = "tessera:///items.json"
	if c.AddResource(arrURL, map[string]any{"type": "array", "items": map[string]any{"$ref": url}}) == nil {
		arr, _ = c.Compile(arrURL)
	}
	r := reader{src: schema}
	r.ws()
	root := r.read(0)
	return &Schema{name: name, s: s, arr: arr, shape: shapeOf(root), fast: fastOf(root, 0)}, nil
}

// noLoader refuses every document a schema refers to by URL.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: a schema may not refer to other documents; put the definition under $defs", url)
}

// Problem is one way a value does not match its schema.
type Problem struct {
	// Pointer is the JSON Pointer of the value at fault ("" for the
	// whole value, "/items/0/severity"); a missing or extra key is named
	// by its own pointer ("/line").
	Pointer string
	// Line and Col are where the value at fault starts in the reply (for
	// a missing key, the object that lacks it; for an extra key, the
	// key), 1-based, in bytes; 0 when the problem was found by Check.
	Line, Col int
	// Msg says what is wrong.
	Msg string
}

// String is "pointer: message", "the value" standing for the empty pointer.
func (p Problem) String() string {
	at := p.Pointer
	if at == "" {
		at = "the value"
	}
	return at + ": " + p.Msg
}

// Check returns every problem with the JSON value data against s, in the
// order of their pointers; none when it matches. Data that is not JSON is
// one problem.
func (s *Schema) Check(data []byte) []Problem {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return []Problem{{Msg: "not valid JSON: " + err.Error()}}
	}
	err = s.s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Msg: err.Error()}}
	}
	var out []Problem
	leaves(ve, &out)
	slices.SortStableFunc(out, func(a, b Problem) int { return strings.Compare(a.Pointer, b.Pointer) })
	return slices.Compact(out)
}

// leaves collects the innermost causes of e, which say what is wrong
// where; the outer ones only say that something below them is.
func leaves(e *jsonschema.ValidationError, out *[]Problem) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			leaves(c, out)
		}
		return
	}
	leaf := *e
	leaf.Causes = nil
	msg := leaf.Error()
	// "at '/a/b': msg": keep the message; the pointer is kept apart.
	if _, rest, ok := strings.Cut(msg, "': "); ok && strings.HasPrefix(msg, "at '") {
		msg = rest
	}
	ptr := ""
	for _, tok := range e.InstanceLocation {
		ptr += "/" + strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
	}
	*out = append(*out, Problem{Pointer: ptr, Msg: msg})
}

// Error is a reply that holds no value of the declared kind, or one that
// does not match its schema. It keeps the reply, for the caller's logs.
type Error struct {
	// Name names what was expected ("reply", a schema's name).
	Name string
	// Reply is the reply as it was given.
	Reply string
	// Line and Col are where the value starts in the reply (1-based, in
	// bytes), 0 when no value was found.
	Line, Col int
	// Problems are what is wrong with the value; empty when none was
	// found (Msg says so).
	Problems []Problem
	// Msg is the problem when there is no value to check.
	Msg string
	// Repairs are the changes tolerant parsing made before the value was
	// checked.
	Repairs []Repair
}

// Error is "name:line:col: " and every problem, joined by "; ".
func (e *Error) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "%s:%d:%d: ", e.Name, e.Line, e.Col)
	} else {
		b.WriteString(e.Name + ": ")
	}
	if e.Msg != "" {
		b.WriteString(e.Msg)
	}
	for i, p := range e.Problems {
		if i > 0 || e.Msg != "" {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// Parse finds in reply the JSON value that opens with open ('{' for an
// object, '[' for an array) and checks it against s (nil checks
// nothing), keys s does not declare forbidden; it returns the value,
// compact, or an *Error. It is Spec.Parse with those choices.
func Parse(name string, reply []byte, open byte, s *Schema) (json.RawMessage, error) {
	sp := Spec{Name: name, Schema: s}
	if open == '[' {
		sp.Container = Array
		if s != nil {
			// s is the whole array's: read it as such, item by item
			// being the schema's business.
			sp.Schema = nil
		}
	}
	res, err := sp.Parse(reply)
	if err != nil {
		return nil, err
	}
	if open == '[' && s != nil {
		if probs := s.Check(res.Value); len(probs) > 0 {
			return nil, &Error{Name: sp.Name, Reply: string(reply), Line: res.Line, Col: res.Col, Problems: probs}
		}
	}
	return res.Value, nil
}

// Decode finds the JSON value in reply (as Parse does, an object for a
// struct or map, an array for a slice), checks it against s when s is not
// nil, and decodes it into a T with unknown fields refused, so a reply is
// checked against a Go type as well as, or instead of, a schema. A field
// the type lacks, or a value of the wrong type, is an *Error naming it.
func Decode[T any](name string, reply []byte, s *Schema) (T, error) {
	var v T
	open := byte('{')
	if k := reflect.TypeFor[T]().Kind(); k == reflect.Slice || k == reflect.Array {
		open = '['
	}
	sp := Spec{Name: name, Schema: s}
	if open == '[' {
		sp.Container = Array
		sp.Schema = nil
	}
	res, err := sp.Parse(reply)
	if err == nil && open == '[' && s != nil {
		if probs := s.Check(res.Value); len(probs) > 0 {
			err = &Error{Name: name, Reply: string(reply), Line: res.Line, Col: res.Col, Problems: probs}
		}
	}
	if err != nil {
		return v, err
	}
	dec := json.NewDecoder(bytes.NewReader(res.Value))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return v, &Error{Name: name, Reply: string(reply), Line: res.Line, Col: res.Col, Msg: "does not fit " + reflect.TypeFor[T]().String() + ": " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	return v, nil
}
