package jinja

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Template is a parsed chat template.
type Template struct {
	src  *source
	body []node
}

// Parse parses a chat template. It refuses, with the line and column,
// any construct outside the supported subset (see the package
// documentation).
func Parse(text string) (*Template, error) {
	src := preprocess(text)
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks}
	body, _, err := p.parseBody()
	if err != nil {
		return nil, err
	}
	return &Template{src: src, body: body}, nil
}

// undefined is the value of a name or key that does not exist.
type undefined struct{}

// Object is a mapping with its keys in order, as JSON objects and
// namespace() hold them.
type Object struct {
	keys []string
	m    map[string]any
	ns   bool
}

func newObject() *Object { return &Object{m: map[string]any{}} }

func (o *Object) set(k string, v any) {
	if _, ok := o.m[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.m[k] = v
}

// function is a callable value.
type function func(args []any, kw *Object) (any, error)

// maxOutput bounds what a template may write, and maxSteps how many
// nodes it may evaluate, so that no template runs away.
const (
	maxOutput = 16 << 20
	maxSteps  = 1_000_000
)

type scope struct {
	vars   map[string]any
	parent *scope
}

func (s *scope) get(name string) (any, bool) {
	for ; s != nil; s = s.parent {
		if v, ok := s.vars[name]; ok {
			return v, true
		}
	}
	return nil, false
}

type evaluator struct {
	t     *Template
	out   strings.Builder
	steps int
}

func (e *evaluator) errorf(n node, format string, args ...any) error {
	return e.t.src.errorAt(n.position(), format, args...)
}

// Render renders the template with the given variables: JSON-like
// values (map[string]any, []any, string, float64 or int, bool, nil), as
// decoded by encoding/json. raise_exception, range and namespace are
// defined, as the reference defines them.
func (t *Template) Render(vars map[string]any) (string, error) {
	root := &scope{vars: map[string]any{}}
	root.vars["raise_exception"] = function(func(args []any, _ *Object) (any, error) {
		msg := ""
		if len(args) > 0 {
			msg = toString(args[0])
		}
		return nil, fmt.Errorf("raise_exception: %s", msg)
	})
	root.vars["range"] = function(rangeFn)
	root.vars["namespace"] = function(func(args []any, kw *Object) (any, error) {
		o := newObject()
		o.ns = true
		if kw != nil {
			for _, k := range kw.keys {
				o.set(k, kw.m[k])
			}
		}
		return o, nil
	})
	for k, v := range vars {
		root.vars[k] = fromGo(v)
	}
	e := &evaluator{t: t}
	if err := e.block(t.body, root); err != nil {
		return "", err
	}
	return e.out.String(), nil
}

// fromGo converts decoded JSON to template values, objects keeping their
// keys sorted (encoding/json's maps have no order).
func fromGo(v any) any {
	switch v := v.(type) {
	case map[string]any:
		o := newObject()
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			o.set(k, fromGo(v[k]))
		}
		return o
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = fromGo(x)
		}
		return out
	case []map[string]any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = fromGo(x)
		}
		return out
	case int:
		return int64(v)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int64(v)
		}
		return v
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return v
}

func (e *evaluator) block(nodes []node, s *scope) error {
	for _, n := range nodes {
		if err := e.stmt(n, s); err != nil {
			return err
		}
		if e.out.Len() > maxOutput {
			return e.errorf(n, "the output is longer than %d bytes", maxOutput)
		}
	}
	return nil
}

func (e *evaluator) stmt(n node, s *scope) error {
	e.steps++
	if e.steps > maxSteps {
		return e.errorf(n, "the template took more than %d steps", maxSteps)
	}
	switch n := n.(type) {
	case *textNode:
		e.out.WriteString(n.text)
	case *outputNode:
		v, err := e.eval(n.expr, s)
		if err != nil {
			return err
		}
		switch v.(type) {
		case nil, undefined:
		default:
			e.out.WriteString(toString(v))
		}
	case *ifNode:
		c, err := e.eval(n.cond, s)
		if err != nil {
			return err
		}
		if truthy(c) {
			return e.block(n.body, s)
		}
		return e.block(n.else_, s)
	case *setNode:
		v, err := e.eval(n.value, s)
		if err != nil {
			return err
		}
		if n.attr == "" {
			s.vars[n.name] = v
			return nil
		}
		obj, _ := s.get(n.name)
		o, ok := obj.(*Object)
		if !ok || !o.ns {
			return e.errorf(n, "set %s.%s: %s is not a namespace", n.name, n.attr, n.name)
		}
		o.set(n.attr, v)
	case *forNode:
		it, err := e.eval(n.iter, s)
		if err != nil {
			return err
		}
		var items []any
		switch it := it.(type) {
		case []any:
			items = it
		case *Object:
			for _, k := range it.keys {
				items = append(items, k)
			}
		case string:
			for _, r := range it {
				items = append(items, string(r))
			}
		default:
			return e.errorf(n, "for: cannot loop over %s", typeName(it))
		}
		if len(items) == 0 {
			return e.block(n.elseBody, &scope{vars: map[string]any{}, parent: s})
		}
		for i, item := range items {
			inner := &scope{vars: map[string]any{}, parent: s}
			loop := newObject()
			loop.set("index", int64(i+1))
			loop.set("index0", int64(i))
			loop.set("revindex", int64(len(items)-i))
			loop.set("revindex0", int64(len(items)-i-1))
			loop.set("first", i == 0)
			loop.set("last", i == len(items)-1)
			loop.set("length", int64(len(items)))
			if i > 0 {
				loop.set("previtem", items[i-1])
			} else {
				loop.set("previtem", undefined{})
			}
			if i+1 < len(items) {
				loop.set("nextitem", items[i+1])
			} else {
				loop.set("nextitem", undefined{})
			}
			inner.vars["loop"] = loop
			if len(n.vars) == 1 {
				inner.vars[n.vars[0]] = item
			} else {
				tuple, ok := item.([]any)
				if !ok || len(tuple) != len(n.vars) {
					return e.errorf(n, "for: cannot unpack %s into %d variables", typeName(item), len(n.vars))
				}
				for j, name := range n.vars {
					inner.vars[name] = tuple[j]
				}
			}
			if err := e.block(n.body, inner); err != nil {
				return err
			}
		}
	default:
		return e.errorf(n, "unexpected node")
	}
	return nil
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "none"
	case undefined:
		return "an undefined value"
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case *Object:
		return "a mapping"
	case function:
		return "a function"
	}
	return fmt.Sprintf("%T", v)
}

// truthy is the reference's __bool__.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil, undefined:
		return false
	case bool:
		return v
	case int64:
		return v != 0
	case float64:
		return v != 0 && !math.IsNaN(v)
	case string:
		return v != ""
	case []any:
		return len(v) > 0
	case *Object:
		return v.ns || len(v.keys) > 0
	}
	return true
}

// toString is the reference's toString: JSON for lists and mappings.
func toString(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case undefined:
		return ""
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		if v == math.Trunc(v) && !math.IsInf(v, 0) {
			return strconv.FormatFloat(v, 'f', 1, 64)
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	case string:
		return v
	case []any, *Object:
		return toJSON(v, "")
	}
	return fmt.Sprint(v)
}

// toJSON writes v as the reference's tojson does by default: ", " and
// ": " between items, non-ASCII kept, indent when given.
func toJSON(v any, indent string) string {
	var b strings.Builder
	writeJSON(&b, v, indent, 0)
	return b.String()
}

func writeJSON(b *strings.Builder, v any, indent string, depth int) {
	nl := func(d int) {
		if indent != "" {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(indent, d))
		}
	}
	sep := ", "
	if indent != "" {
		sep = ","
	}
	switch v := v.(type) {
	case nil, undefined:
		b.WriteString("null")
	case string:
		data, _ := json.Marshal(v)
		// encoding/json escapes <, > and &; the reference does not.
		s := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(data))
		b.WriteString(s)
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteString(sep)
			}
			nl(depth + 1)
			writeJSON(b, x, indent, depth+1)
		}
		nl(depth)
		b.WriteByte(']')
	case *Object:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteString(sep)
			}
			nl(depth + 1)
			writeJSON(b, k, indent, depth+1)
			b.WriteString(": ")
			writeJSON(b, v.m[k], indent, depth+1)
		}
		nl(depth)
		b.WriteByte('}')
	default:
		b.WriteString(toString(v))
	}
}

func rangeFn(args []any, _ *Object) (any, error) {
	var nums []int64
	for _, a := range args {
		n, ok := a.(int64)
		if !ok {
			return nil, fmt.Errorf("range: arguments must be integers")
		}
		nums = append(nums, n)
	}
	start, stop, step := int64(0), int64(0), int64(1)
	switch len(nums) {
	case 1:
		stop = nums[0]
	case 2:
		start, stop = nums[0], nums[1]
	case 3:
		start, stop, step = nums[0], nums[1], nums[2]
	default:
		return nil, fmt.Errorf("range: takes 1 to 3 arguments")
	}
	if step == 0 {
		return nil, fmt.Errorf("range: step must not be 0")
	}
	var out []any
	for i := start; (step > 0 && i < stop) || (step < 0 && i > stop); i += step {
		if len(out) >= 1<<16 {
			return nil, fmt.Errorf("range: more than %d numbers", 1<<16)
		}
		out = append(out, i)
	}
	return out, nil
}

func (e *evaluator) eval(n node, s *scope) (any, error) {
	e.steps++
	if e.steps > maxSteps {
		return nil, e.errorf(n, "the template took more than %d steps", maxSteps)
	}
	switch n := n.(type) {
	case *literal:
		return n.v, nil
	case *ident:
		if v, ok := s.get(n.name); ok {
			return v, nil
		}
		return undefined{}, nil
	case *listLit:
		out := make([]any, 0, len(n.items))
		for _, it := range n.items {
			v, err := e.eval(it, s)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case *dictLit:
		o := newObject()
		for i := range n.keys {
			k, err := e.eval(n.keys[i], s)
			if err != nil {
				return nil, err
			}
			ks, ok := k.(string)
			if !ok {
				return nil, e.errorf(n, "mapping keys must be strings, not %s", typeName(k))
			}
			v, err := e.eval(n.vals[i], s)
			if err != nil {
				return nil, err
			}
			o.set(ks, v)
		}
		return o, nil
	case *member:
		obj, err := e.eval(n.obj, s)
		if err != nil {
			return nil, err
		}
		var key any = n.name
		if n.computed {
			if key, err = e.eval(n.key, s); err != nil {
				return nil, err
			}
		} else if i, err := strconv.ParseInt(n.name, 10, 64); err == nil {
			key = i
		}
		return e.member(n, obj, key)
	case *sliceNode:
		return e.slice(n, s)
	case *callNode:
		return e.call(n, s)
	case *filterNode:
		return e.filter(n, s)
	case *testNode:
		v, err := e.eval(n.obj, s)
		if err != nil {
			return nil, err
		}
		r, err := e.test(n, v)
		if err != nil {
			return nil, err
		}
		return r != n.negate, nil
	case *unary:
		v, err := e.eval(n.x, s)
		if err != nil {
			return nil, err
		}
		switch n.op {
		case "not":
			return !truthy(v), nil
		case "-":
			switch v := v.(type) {
			case int64:
				return -v, nil
			case float64:
				return -v, nil
			}
		case "+":
			switch v.(type) {
			case int64, float64:
				return v, nil
			}
		}
		return nil, e.errorf(n, "%s cannot apply to %s", n.op, typeName(v))
	case *ternary:
		c, err := e.eval(n.cond, s)
		if err != nil {
			return nil, err
		}
		if truthy(c) {
			return e.eval(n.yes, s)
		}
		return e.eval(n.no, s)
	case *binary:
		return e.binary(n, s)
	}
	return nil, e.errorf(n, "unexpected expression")
}

// member is obj.key and obj[key].
func (e *evaluator) member(n node, obj, key any) (any, error) {
	switch o := obj.(type) {
	case *Object:
		k, ok := key.(string)
		if !ok {
			return nil, e.errorf(n, "a mapping's key must be a string, not %s", typeName(key))
		}
		if v, ok := o.m[k]; ok {
			return v, nil
		}
		if !o.ns {
			if f := objectMethod(o, k); f != nil {
				return f, nil
			}
		}
		return undefined{}, nil
	case []any:
		switch k := key.(type) {
		case int64:
			if k < 0 {
				k += int64(len(o))
			}
			if k < 0 || k >= int64(len(o)) {
				return undefined{}, nil
			}
			return o[k], nil
		case string:
			if k == "length" {
				return int64(len(o)), nil
			}
			return undefined{}, nil
		}
		return nil, e.errorf(n, "a list's index must be an integer, not %s", typeName(key))
	case string:
		switch k := key.(type) {
		case int64:
			rs := []rune(o)
			if k < 0 {
				k += int64(len(rs))
			}
			if k < 0 || k >= int64(len(rs)) {
				return undefined{}, nil
			}
			return string(rs[k]), nil
		case string:
			if f := stringMethod(o, k); f != nil {
				return f, nil
			}
			if k == "length" {
				return int64(utf16Len(o)), nil
			}
			return undefined{}, nil
		}
		return nil, e.errorf(n, "a string's index must be an integer, not %s", typeName(key))
	case undefined:
		return nil, e.errorf(n, "cannot read %v of an undefined value", key)
	case nil:
		return nil, e.errorf(n, "cannot read %v of none", key)
	}
	return undefined{}, nil
}

// utf16Len is a string's length as JavaScript counts it.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

func (e *evaluator) slice(n *sliceNode, s *scope) (any, error) {
	obj, err := e.eval(n.obj, s)
	if err != nil {
		return nil, err
	}
	var idx [3]*int64
	for i, p := range []node{n.start, n.stop, n.step} {
		if p == nil {
			continue
		}
		v, err := e.eval(p, s)
		if err != nil {
			return nil, err
		}
		iv, ok := v.(int64)
		if !ok {
			return nil, e.errorf(n, "slice bounds must be integers, not %s", typeName(v))
		}
		idx[i] = &iv
	}
	var items []any
	_, isStr := obj.(string)
	switch o := obj.(type) {
	case []any:
		items = o
	case string:
		for _, r := range o {
			items = append(items, string(r))
		}
	default:
		return nil, e.errorf(n, "cannot slice %s", typeName(obj))
	}
	length := int64(len(items))
	step := int64(1)
	if idx[2] != nil {
		step = *idx[2]
	}
	if step == 0 {
		return nil, e.errorf(n, "slice step cannot be zero")
	}
	clamp := func(p *int64, def, lo, hi int64) int64 {
		if p == nil {
			return def
		}
		v := *p
		if v < 0 {
			v += length
			if v < lo {
				v = lo
			}
		} else if v > hi {
			v = hi
		}
		return v
	}
	var out []any
	if step > 0 {
		start := clamp(idx[0], 0, 0, length)
		stop := clamp(idx[1], length, 0, length)
		for i := start; i < stop; i += step {
			out = append(out, items[i])
		}
	} else {
		start := clamp(idx[0], length-1, -1, length-1)
		stop := clamp(idx[1], -1, -1, length-1)
		for i := start; i > stop; i += step {
			out = append(out, items[i])
		}
	}
	if isStr {
		var b strings.Builder
		for _, x := range out {
			b.WriteString(x.(string))
		}
		return b.String(), nil
	}
	if out == nil {
		out = []any{}
	}
	return out, nil
}

func (e *evaluator) args(n node, args []node, kws []kwarg, s *scope) ([]any, *Object, error) {
	var vals []any
	for _, a := range args {
		v, err := e.eval(a, s)
		if err != nil {
			return nil, nil, err
		}
		vals = append(vals, v)
	}
	var kw *Object
	if len(kws) > 0 {
		kw = newObject()
		for _, k := range kws {
			v, err := e.eval(k.val, s)
			if err != nil {
				return nil, nil, err
			}
			kw.set(k.name, v)
		}
	}
	return vals, kw, nil
}

func (e *evaluator) call(n *callNode, s *scope) (any, error) {
	fn, err := e.eval(n.fn, s)
	if err != nil {
		return nil, err
	}
	f, ok := fn.(function)
	if !ok {
		return nil, e.errorf(n, "%s is not a function (the functions are raise_exception, range, namespace and the string and mapping methods)", typeName(fn))
	}
	args, kw, err := e.args(n, n.args, n.kwargs, s)
	if err != nil {
		return nil, err
	}
	v, err := f(args, kw)
	if err != nil {
		return nil, e.errorf(n, "%v", err)
	}
	return v, nil
}

// stringMethod returns the method of a string, or nil.
func stringMethod(str, name string) function {
	chars := func(args []any) (string, bool, error) {
		if len(args) == 0 || args[0] == nil {
			return "", false, nil
		}
		c, ok := args[0].(string)
		if !ok {
			return "", false, fmt.Errorf("%s: the argument must be a string", name)
		}
		return c, true, nil
	}
	switch name {
	case "upper":
		return func([]any, *Object) (any, error) { return strings.ToUpper(str), nil }
	case "lower":
		return func([]any, *Object) (any, error) { return strings.ToLower(str), nil }
	case "strip", "lstrip", "rstrip":
		return func(args []any, _ *Object) (any, error) {
			c, ok, err := chars(args)
			if err != nil {
				return nil, err
			}
			cut := isSpace
			if ok {
				cut = func(r rune) bool { return strings.ContainsRune(c, r) }
			}
			switch name {
			case "strip":
				return strings.TrimFunc(str, cut), nil
			case "lstrip":
				return strings.TrimLeftFunc(str, cut), nil
			}
			return strings.TrimRightFunc(str, cut), nil
		}
	case "startswith", "endswith":
		return func(args []any, _ *Object) (any, error) {
			if len(args) != 1 {
				return nil, fmt.Errorf("%s takes one argument", name)
			}
			p, ok := args[0].(string)
			if !ok {
				return nil, fmt.Errorf("%s: the argument must be a string", name)
			}
			if name == "startswith" {
				return strings.HasPrefix(str, p), nil
			}
			return strings.HasSuffix(str, p), nil
		}
	case "split":
		return func(args []any, _ *Object) (any, error) {
			var parts []string
			if c, ok, err := chars(args); err != nil {
				return nil, err
			} else if ok {
				if c == "" {
					return nil, fmt.Errorf("split: empty separator")
				}
				parts = strings.Split(str, c)
			} else {
				parts = strings.FieldsFunc(str, isSpace)
			}
			out := make([]any, len(parts))
			for i, p := range parts {
				out[i] = p
			}
			return out, nil
		}
	case "replace":
		return func(args []any, _ *Object) (any, error) {
			if len(args) != 2 {
				return nil, fmt.Errorf("replace takes two arguments")
			}
			a, ok1 := args[0].(string)
			b, ok2 := args[1].(string)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("replace: the arguments must be strings")
			}
			return strings.ReplaceAll(str, a, b), nil
		}
	}
	return nil
}

// objectMethod returns the method of a mapping, or nil.
func objectMethod(o *Object, name string) function {
	switch name {
	case "get":
		return func(args []any, _ *Object) (any, error) {
			if len(args) == 0 {
				return nil, fmt.Errorf("get takes a key")
			}
			k, ok := args[0].(string)
			if !ok {
				return nil, fmt.Errorf("get: the key must be a string")
			}
			if v, ok := o.m[k]; ok {
				return v, nil
			}
			if len(args) > 1 {
				return args[1], nil
			}
			return nil, nil
		}
	case "items":
		return func([]any, *Object) (any, error) {
			out := make([]any, len(o.keys))
			for i, k := range o.keys {
				out[i] = []any{k, o.m[k]}
			}
			return out, nil
		}
	case "keys":
		return func([]any, *Object) (any, error) {
			out := make([]any, len(o.keys))
			for i, k := range o.keys {
				out[i] = k
			}
			return out, nil
		}
	case "values":
		return func([]any, *Object) (any, error) {
			out := make([]any, len(o.keys))
			for i, k := range o.keys {
				out[i] = o.m[k]
			}
			return out, nil
		}
	}
	return nil
}

// supportedFilters and supportedTests are listed in errors.
const (
	supportedFilters = "trim, length, count, upper, lower, tojson, string, first, last, join, default, items, list, reverse"
	supportedTests   = "defined, undefined, none, string, number, integer, float, boolean, iterable, mapping, sequence, true, false, odd, even, callable"
)

func (e *evaluator) filter(n *filterNode, s *scope) (any, error) {
	v, err := e.eval(n.obj, s)
	if err != nil {
		return nil, err
	}
	args, kw, err := e.args(n, n.args, n.kwargs, s)
	if err != nil {
		return nil, err
	}
	switch n.name {
	case "trim":
		if str, ok := v.(string); ok {
			return strings.TrimFunc(str, isSpace), nil
		}
	case "length", "count":
		switch v := v.(type) {
		case string:
			return int64(utf16Len(v)), nil
		case []any:
			return int64(len(v)), nil
		case *Object:
			return int64(len(v.keys)), nil
		}
	case "upper", "lower":
		if str, ok := v.(string); ok {
			if n.name == "upper" {
				return strings.ToUpper(str), nil
			}
			return strings.ToLower(str), nil
		}
	case "string":
		return toString(v), nil
	case "tojson":
		indent := ""
		if kw != nil {
			if i, ok := kw.m["indent"].(int64); ok {
				indent = strings.Repeat(" ", int(min(max(i, 0), 16)))
			}
		}
		if len(args) > 0 {
			if i, ok := args[0].(int64); ok {
				indent = strings.Repeat(" ", int(min(max(i, 0), 16)))
			}
		}
		return toJSON(v, indent), nil
	case "first", "last":
		if l, ok := v.([]any); ok {
			if len(l) == 0 {
				return undefined{}, nil
			}
			if n.name == "first" {
				return l[0], nil
			}
			return l[len(l)-1], nil
		}
	case "reverse":
		if l, ok := v.([]any); ok {
			out := make([]any, len(l))
			for i, x := range l {
				out[len(l)-1-i] = x
			}
			return out, nil
		}
	case "list":
		if l, ok := v.([]any); ok {
			return l, nil
		}
	case "join":
		if l, ok := v.([]any); ok {
			sep := ""
			if len(args) > 0 {
				sep = toString(args[0])
			}
			parts := make([]string, len(l))
			for i, x := range l {
				parts[i] = toString(x)
			}
			return strings.Join(parts, sep), nil
		}
	case "default":
		if _, ok := v.(undefined); ok {
			if len(args) > 0 {
				return args[0], nil
			}
			return "", nil
		}
		return v, nil
	case "items":
		if o, ok := v.(*Object); ok {
			return objectMethod(o, "items")(nil, nil)
		}
	default:
		return nil, e.errorf(n, "the filter %q is not supported (supported: %s)", n.name, supportedFilters)
	}
	return nil, e.errorf(n, "the filter %q cannot apply to %s", n.name, typeName(v))
}

func (e *evaluator) test(n *testNode, v any) (bool, error) {
	switch n.name {
	case "defined":
		_, u := v.(undefined)
		return !u, nil
	case "undefined":
		_, u := v.(undefined)
		return u, nil
	case "none":
		return v == nil, nil
	case "string":
		_, ok := v.(string)
		return ok, nil
	case "number":
		switch v.(type) {
		case int64, float64:
			return true, nil
		}
		return false, nil
	case "integer":
		_, ok := v.(int64)
		return ok, nil
	case "float":
		_, ok := v.(float64)
		return ok, nil
	case "boolean":
		_, ok := v.(bool)
		return ok, nil
	case "iterable", "sequence":
		switch v.(type) {
		case string, []any:
			return true, nil
		case *Object:
			return n.name == "iterable", nil
		}
		return false, nil
	case "mapping":
		_, ok := v.(*Object)
		return ok, nil
	case "true":
		b, ok := v.(bool)
		return ok && b, nil
	case "false":
		b, ok := v.(bool)
		return ok && !b, nil
	case "odd", "even":
		i, ok := v.(int64)
		if !ok {
			return false, e.errorf(n, "%s needs an integer, not %s", n.name, typeName(v))
		}
		return (i%2 != 0) == (n.name == "odd"), nil
	case "callable":
		_, ok := v.(function)
		return ok, nil
	}
	return false, e.errorf(n, "the test %q is not supported (supported: %s)", n.name, supportedTests)
}

// looseEqual is JavaScript's == on the values the reference compares.
func looseEqual(a, b any) bool {
	isNil := func(v any) bool {
		switch v.(type) {
		case nil, undefined:
			return true
		}
		return false
	}
	if isNil(a) || isNil(b) {
		return isNil(a) && isNil(b)
	}
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return float64(x) == y
		case bool:
			return (x == 1 && y) || (x == 0 && !y)
		case string:
			f, err := strconv.ParseFloat(strings.TrimSpace(y), 64)
			return err == nil && f == float64(x)
		}
	case float64:
		switch y := b.(type) {
		case int64:
			return x == float64(y)
		case float64:
			return x == y
		}
	case string:
		switch y := b.(type) {
		case string:
			return x == y
		case int64:
			return looseEqual(b, a)
		}
	case bool:
		switch y := b.(type) {
		case bool:
			return x == y
		case int64:
			return looseEqual(b, a)
		}
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && len(x) > 0 && &x[0] == &y[0]
	case *Object:
		y, ok := b.(*Object)
		return ok && x == y
	}
	return false
}

func (e *evaluator) binary(n *binary, s *scope) (any, error) {
	l, err := e.eval(n.l, s)
	if err != nil {
		return nil, err
	}
	switch n.op {
	case "and":
		if !truthy(l) {
			return l, nil
		}
		return e.eval(n.r, s)
	case "or":
		if truthy(l) {
			return l, nil
		}
		return e.eval(n.r, s)
	}
	r, err := e.eval(n.r, s)
	if err != nil {
		return nil, err
	}
	switch n.op {
	case "==":
		return looseEqual(l, r), nil
	case "!=":
		return !looseEqual(l, r), nil
	}
	_, lu := l.(undefined)
	_, ru := r.(undefined)
	if lu || ru {
		if ru && (n.op == "in" || n.op == "not in") {
			return n.op == "not in", nil
		}
		return nil, e.errorf(n, "%s cannot apply to an undefined value", n.op)
	}
	if l == nil || r == nil {
		return nil, e.errorf(n, "%s cannot apply to none", n.op)
	}
	if n.op == "~" {
		return toString(l) + toString(r), nil
	}
	if lf, lok := num(l); lok {
		if rf, rok := num(r); rok {
			_, lfloat := l.(float64)
			_, rfloat := r.(float64)
			isFloat := lfloat || rfloat
			li, _ := l.(int64)
			ri, _ := r.(int64)
			switch n.op {
			case "+", "-", "*":
				if isFloat {
					switch n.op {
					case "+":
						return lf + rf, nil
					case "-":
						return lf - rf, nil
					}
					return lf * rf, nil
				}
				switch n.op {
				case "+":
					return li + ri, nil
				case "-":
					return li - ri, nil
				}
				return li * ri, nil
			case "/":
				return lf / rf, nil
			case "//":
				if !isFloat && ri != 0 {
					return int64(math.Floor(lf / rf)), nil
				}
				return math.Floor(lf / rf), nil
			case "%":
				if !isFloat {
					if ri == 0 {
						return math.NaN(), nil
					}
					return li % ri, nil
				}
				return math.Mod(lf, rf), nil
			case "<":
				return lf < rf, nil
			case ">":
				return lf > rf, nil
			case "<=":
				return lf <= rf, nil
			case ">=":
				return lf >= rf, nil
			}
		}
	}
	if la, ok := l.([]any); ok {
		if ra, ok := r.([]any); ok && n.op == "+" {
			return append(append([]any{}, la...), ra...), nil
		}
	}
	if ra, ok := r.([]any); ok && (n.op == "in" || n.op == "not in") {
		found := false
		for _, x := range ra {
			if strictEqual(x, l) {
				found = true
				break
			}
		}
		return found == (n.op == "in"), nil
	}
	_, ls := l.(string)
	rs, rIsStr := r.(string)
	if (ls || rIsStr) && n.op == "+" {
		return toString(l) + toString(r), nil
	}
	if ls && rIsStr {
		switch n.op {
		case "in":
			return strings.Contains(rs, l.(string)), nil
		case "not in":
			return !strings.Contains(rs, l.(string)), nil
		case "<", ">", "<=", ">=":
			c := strings.Compare(l.(string), rs)
			return map[string]bool{"<": c < 0, ">": c > 0, "<=": c <= 0, ">=": c >= 0}[n.op], nil
		}
	}
	if o, ok := r.(*Object); ok && ls && (n.op == "in" || n.op == "not in") {
		_, has := o.m[l.(string)]
		return has == (n.op == "in"), nil
	}
	return nil, e.errorf(n, "%s cannot apply to %s and %s", n.op, typeName(l), typeName(r))
}

func num(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// strictEqual is JavaScript's === on primitive values.
func strictEqual(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case int64:
		f, ok := num(b)
		return ok && float64(x) == f
	case float64:
		f, ok := num(b)
		return ok && x == f
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

// FromJSON decodes a JSON document into template values, keeping the
// order of each object's keys (as the reference does, so that tojson
// writes them in the order given). Render takes the result as a
// variable's value.
func FromJSON(data []byte) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("JSON: more than one value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > 100 {
		return nil, fmt.Errorf("JSON: nested more than 100 levels deep")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObject()
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.set(k.(string), v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			out := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			_, err := dec.Token()
			return out, err
		}
	case json.Number:
		return fromGo(t), nil
	}
	return tok, nil
}
