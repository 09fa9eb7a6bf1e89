package output

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/yamldoc"
)

// Container is the JSON value a reply is declared to hold.
type Container uint8

const (
	// Object is one JSON object.
	Object Container = iota
	// Array is a JSON array of items, given bare or as {"items": [...]}
	// (the form a request asks for, since providers want an object at
	// the top); the schema is one item's.
	Array
)

// String is "object" or "array".
func (c Container) String() string {
	if c == Array {
		return "array"
	}
	return "object"
}

// Extra is what to do with keys the schema does not declare.
type Extra uint8

const (
	// Forbid makes each key the schema does not declare a problem, at its
	// pointer. It is the default.
	Forbid Extra = iota
	// Ignore drops them from the value returned; Result.Dropped names
	// them.
	Ignore
)

// String is "forbid" or "ignore".
func (e Extra) String() string {
	if e == Ignore {
		return "ignore"
	}
	return "forbid"
}

// ParseExtra reads "forbid" or "ignore".
func ParseExtra(s string) (Extra, error) {
	switch s {
	case "forbid", "":
		return Forbid, nil
	case "ignore":
		return Ignore, nil
	}
	return Forbid, fmt.Errorf("extra keys %q: use forbid (each is a problem) or ignore (each is dropped)", s)
}

// Spec is what a reply is declared to hold and how strictly it is read.
// The zero Spec reads one JSON object, forbids nothing (it has no schema)
// and repairs nothing.
type Spec struct {
	// Name names the reply in messages ("reply" when empty).
	Name string
	// Schema is the object's schema, or one item's for an Array; nil
	// checks nothing.
	Schema *Schema
	// Container is the value's kind.
	Container Container
	// Extra is what to do with keys the schema does not declare: an
	// object schema with properties declares those (and those its
	// patternProperties match); one whose additionalProperties is true or
	// a schema allows any; anyOf and oneOf leave the choice to the
	// validator.
	Extra Extra
	// Tolerant repairs what models often write that JSON is not:
	// comments, trailing commas, single quotes, unquoted keys, Python's
	// True, False and None, and a value cut off at the end. A reply that
	// reads as JSON is taken as it is; Result.Repairs lists each repair.
	Tolerant bool
}

// Result is a reply's value, checked.
type Result struct {
	// Value is the value, compact, each object's keys in the order its
	// schema lists them (others after, as written), strings escaped as
	// RFC 8785 does. For an Array, it is the array, unwrapped.
	Value json.RawMessage
	// Line and Col are where the value starts in the reply (1-based, in
	// bytes).
	Line, Col int
	// Fenced is whether the value came from a fenced block.
	Fenced bool
	// Dropped are the JSON Pointers of the keys Extra Ignore dropped, in
	// the order of the reply.
	Dropped []string
	// Repairs are the changes Tolerant made, in the order of the reply.
	Repairs []Repair
}

// Parse finds in reply the value sp declares and checks it: the value in
// the first fenced block (``` or ~~~, info json or none) that holds one
// whole, else the first one bare in the text that is not inside another.
// A value of the other container is an error naming what was expected,
// as are keys the schema does not declare (under Forbid) and every way
// the value does not match the schema, each with its JSON Pointer and its
// line and column in the reply. The error is an *Error, which keeps the
// reply. A value holding more than 100,000 JSON values (and repairs)
// plus one for every 64 bytes of the reply is refused before more are
// read, which keeps the memory of a reply within some 16 times its size
// plus a constant.
func (sp *Spec) Parse(reply []byte) (*Result, error) {
	name := sp.Name
	if name == "" {
		name = "reply"
	}
	fail := func(off int, msg string, probs []Problem) *Error {
		e := &Error{Name: name, Reply: string(reply), Msg: msg, Problems: probs}
		if off >= 0 {
			e.Line, e.Col = diag.Position(reply, off)
		}
		return e
	}
	accept := func(f *found) bool {
		if sp.Container == Array {
			return f.v.kind == '[' || f.v.kind == '{' && isWrapper(f.v)
		}
		return f.v.kind == '{'
	}
	sc := newScan(reply, false)
	f := sc.find(accept)
	if f == nil && sp.Tolerant && !sc.tooMany {
		other, bad := sc.other, sc.bad
		sc = newScan(reply, true)
		f = sc.find(accept)
		if sc.other == nil {
			sc.other = other
		}
		if !sc.bad.ok {
			sc.bad = bad
		}
	}
	if sc.tooMany {
		return nil, fail(-1, fmt.Sprintf("the reply holds more than %d JSON values (a reply may hold %d plus one for every %d bytes of it), far more than any answer: ask the model for a shorter answer, or split the work into smaller requests", maxValues(len(reply)), yamldoc.BaseNodes, yamldoc.BytesPerNode), nil)
	}
	if f == nil {
		return nil, sp.notFound(sc, fail)
	}
	res := &Result{Fenced: f.fenced}
	res.Line, res.Col = diag.Position(reply, f.start)
	for _, r := range f.repairs {
		r.Line, r.Col = diag.Position(reply, r.Offset)
		res.Repairs = append(res.Repairs, r)
	}
	var shape *orderNode
	var check, checkAll *jsonschema.Schema
	var fast *fastNode
	if sp.Schema != nil {
		shape, check, checkAll, fast = sp.Schema.shape, sp.Schema.s, sp.Schema.arr, sp.Schema.fast
	}
	c := checker{reply: reply, extra: sp.Extra}
	root := f.v
	prefix := ""
	if sp.Container == Array && root.kind == '{' {
		// {"items": [...]}: any other key is extra.
		for _, m := range root.members {
			if m.key != "items" {
				c.extraKey("/"+escape(m.key), m.off)
			}
		}
		root, prefix = root.get("items"), "/items"
	}
	var base []string
	if prefix != "" {
		base = []string{"items"}
	}
	if sp.Container == Array {
		for i, e := range root.elems {
			c.walk(e, shape, append(base, strconv.Itoa(i)))
		}
	} else {
		c.walk(root, shape, nil)
	}
	if check != nil {
		switch {
		case sp.Container == Array && fast != nil && allFastOK(root.elems, fast):
		case sp.Container == Array && checkAll != nil:
			c.validate(checkAll, root, prefix)
		case sp.Container == Array:
			for i, e := range root.elems {
				c.validate(check, e, prefix+"/"+strconv.Itoa(i))
			}
		case fast != nil && fastOK(root, fast):
		default:
			c.validate(check, root, "")
		}
	}
	res.Dropped = c.dropped
	if len(c.probs) > 0 {
		slices.SortStableFunc(c.probs, func(a, b Problem) int {
			if a.Line != b.Line {
				return a.Line - b.Line
			}
			if a.Col != b.Col {
				return a.Col - b.Col
			}
			return strings.Compare(a.Pointer, b.Pointer)
		})
		e := fail(f.start, "", slices.Compact(c.probs))
		e.Repairs = res.Repairs
		return nil, e
	}
	if sp.Container == Array {
		b := make([]byte, 0, f.end-f.start)
		b = append(b, '[')
		for i, e := range root.elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e, shape)
		}
		res.Value = append(b, ']')
	} else {
		res.Value = appendJSON(make([]byte, 0, f.end-f.start), root, shape)
	}
	return res, nil
}

// allFastOK reports whether the fast check passes every item.
func allFastOK(items []*value, n *fastNode) bool {
	for _, e := range items {
		if !fastOK(e, n) {
			return false
		}
	}
	return true
}

// isWrapper reports whether object v is {"items": [...]}, perhaps with
// other keys (which are then extra).
func isWrapper(v *value) bool {
	it := v.get("items")
	return it != nil && it.kind == '['
}

// notFound is the error of a reply without the declared value.
func (sp *Spec) notFound(sc *scan, fail func(int, string, []Problem) *Error) error {
	want, none := "a JSON object", "JSON object"
	if sp.Container == Array {
		want, none = `a JSON array (or {"items": [...]})`, `JSON array (or {"items": [...]})`
	}
	if o := sc.other; o != nil {
		got := "a JSON array"
		hint := "reply with one object, not a list of them"
		if o.v.kind == '{' {
			got = "a JSON object"
			if len(o.v.members) > 0 {
				keys := make([]string, len(o.v.members))
				for i, m := range o.v.members {
					keys[i] = strconv.Quote(m.key)
				}
				got += " with the keys " + strings.Join(keys, ", ")
			}
			hint = `reply with the list bare, or as {"items": [...]}`
		}
		return fail(o.start, fmt.Sprintf("want %s; the reply holds %s: %s", want, got, hint), nil)
	}
	if bad := sc.error(); bad != nil {
		line, col := diag.Position(sc.reply, bad.off)
		msg := fmt.Sprintf("the value is not valid JSON: %s at %d:%d", bad.msg, line, col)
		if !sp.Tolerant {
			msg += " (tolerant parsing repairs comments, trailing commas, single quotes, unquoted keys, True/False/None and a cut-off end)"
		}
		return fail(sc.bad.start, msg, nil)
	}
	return fail(-1, "the reply holds no "+none+" (fenced as ```json, or bare)", nil)
}

// checker collects the problems of one value.
type checker struct {
	reply   []byte
	extra   Extra
	probs   []Problem
	dropped []string
}

func (c *checker) problem(ptr string, off int, msg string) {
	line, col := diag.Position(c.reply, off)
	c.probs = append(c.probs, Problem{Pointer: ptr, Line: line, Col: col, Msg: msg})
}

const extraMsg = "a key the schema does not declare: remove it, or read the reply with extra keys ignored"

// extraKey handles the key at ptr (its key at off) that the schema does
// not declare: a problem, or dropped.
func (c *checker) extraKey(ptr string, off int) {
	if c.extra == Ignore {
		c.dropped = append(c.dropped, ptr)
		return
	}
	c.problem(ptr, off, extraMsg)
}

// walk finds the keys of v that its shape does not declare, handling
// each, and repeated keys, which are always a problem. path is v's
// pointer as tokens, joined only for a message.
func (c *checker) walk(v *value, o *orderNode, path []string) {
	switch v.kind {
	case '{':
		var kept []member
		for i, m := range v.members {
			for _, prev := range v.members[:i] {
				if prev.key == m.key {
					pl, pc := diag.Position(c.reply, prev.off)
					c.problem(pointer(path, m.key), m.off, fmt.Sprintf("the key is repeated (first at %d:%d): give each key once", pl, pc))
					break
				}
			}
			if o != nil && o.closed && !o.declares(m.key) {
				c.extraKey(pointer(path, m.key), m.off)
				if c.extra == Ignore {
					if kept == nil {
						kept = append(make([]member, 0, len(v.members)), v.members[:i]...)
					}
					continue
				}
			}
			if kept != nil {
				kept = append(kept, m)
			}
			if m.val.kind == '{' || m.val.kind == '[' {
				c.walk(m.val, o.prop(m.key), append(path, m.key))
			}
		}
		if kept != nil {
			v.members = kept
		}
	case '[':
		for i, e := range v.elems {
			if e.kind == '{' || e.kind == '[' {
				c.walk(e, o.item(i), append(path, strconv.Itoa(i)))
			}
		}
	}
}

// pointer returns the JSON Pointer of path, then key.
func pointer(path []string, key string) string {
	var b strings.Builder
	for _, t := range path {
		b.WriteByte('/')
		b.WriteString(escape(t))
	}
	b.WriteByte('/')
	b.WriteString(escape(key))
	return b.String()
}

// validate checks v against s; ptr is v's pointer in the reply's value.
func (c *checker) validate(s *jsonschema.Schema, v *value, ptr string) {
	err := s.Validate(toAny(v))
	if err == nil {
		return
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		c.problem(ptr, v.off, err.Error())
		return
	}
	c.leaves(ve, v, ptr)
}

// leaves turns the innermost causes of e, which say what is wrong where,
// into problems; a missing property is named by its own pointer.
func (c *checker) leaves(e *jsonschema.ValidationError, root *value, base string) {
	if len(e.Causes) > 0 {
		for _, sub := range e.Causes {
			c.leaves(sub, root, base)
		}
		return
	}
	ptr := base
	for _, tok := range e.InstanceLocation {
		ptr += "/" + escape(tok)
	}
	at := find(root, e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, name := range k.Missing {
			c.problem(ptr+"/"+escape(name), at.off, "missing: the schema requires it")
		}
		return
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			off := at.off
			for _, m := range at.members {
				if m.key == name {
					off = m.off
				}
			}
			c.problem(ptr+"/"+escape(name), off, extraMsg)
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
	c.problem(ptr, at.off, msg)
}

// find returns the value at the path below v, or the deepest one there
// is.
func find(v *value, path []string) *value {
	for _, tok := range path {
		var next *value
		switch v.kind {
		case '{':
			next = v.get(tok)
		case '[':
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(v.elems) {
				next = v.elems[i]
			}
		}
		if next == nil {
			return v
		}
		v = next
	}
	return v
}

// escape escapes a JSON Pointer token.
func escape(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}
