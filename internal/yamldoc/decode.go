package yamldoc

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/suggest"
)

// Unmarshaler is implemented (on the pointer) by a type that decodes
// itself, such as a path that must stay inside a directory or a size
// written "16MiB". n is never an alias and never null where it is the
// value of a key (a null value counts as absent); at is the value's
// dotted path, for diagnostics. Problems are reported with d.Errorf or
// d.Wrong; d.Decode decodes a part of n into another Go value.
type Unmarshaler interface {
	UnmarshalYAMLNode(d *Decoder, n *yaml.Node, at string)
}

// Rule is special handling of one field, for Options.Rules: what its
// value must be, in words, and for a whole number its range. Make one
// with Want or Int.
type Rule struct {
	want     string
	ranged   bool
	min, max int64
}

// Want returns a rule that words what a value must be in a type error,
// "want <want>, found ...", in place of the default of its Go type
// ("text", "a list of text", "a mapping of keys to values"...).
func Want(want string) Rule { return Rule{want: want} }

// Int returns a rule for a whole number from lo to hi (both included);
// want words it, for the error on a value out of range or of another
// type: "want <want>, found 7".
func Int(lo, hi int64, want string) Rule {
	return Rule{want: want, ranged: true, min: lo, max: hi}
}

// Options configures a Schema.
type Options struct {
	// Doc names the document in the message that refuses an alias:
	// "aliases (*x) are not supported in <Doc>: write the value out".
	// Empty means "this file".
	Doc string
	// Rules maps field paths to rules. A path is the dotted path of the
	// diagnostics with "[]" for the items of a list:
	// "task[].priority", "conversationState.retention.maxChars". A rule
	// for a pointer applies to what it points to. NewSchema panics on a
	// path that names no field. Rules do not reach the values an
	// Unmarshaler decodes with Decoder.Decode.
	Rules map[string]Rule
	// UnknownKey words the message for an unknown key in the mapping at
	// (empty at the top); hint is the key the writer probably meant (see
	// suggest.Nearest), or empty; keys are the known keys in declaration
	// order. Nil means the default wording:
	//   unknown key "tonee" in identity: did you mean "tone"? the keys are ...
	UnknownKey func(at, key, hint string, keys []string) string
	// Label names the value at the dotted path at in messages, which
	// read "<label>: <problem>" (the problem alone when the label is
	// empty). A format whose values are numbered for people, such as a
	// list of entries, words "[1].type" as "entry 2 type". Nil means the
	// path itself. UnknownKey is given the path, not the label.
	Label func(at string) string
	// TypeError words the problem of a value of the wrong type, or a
	// whole number out of its rule's range, after the value's label:
	// want is what it must be (its Rule, or its type's default, such as
	// "a whole number"), found what it is ("the text \"two\"", "a list",
	// or the number out of range as written). Nil means the default
	// wording, "want <want>, found <found>".
	TypeError func(want, found string) string
	// Columns adds the column of the offending key or value to each
	// problem the decoder reports (path:line:col), and keeps the column
	// of each field for Decoder.Pos. Columns count bytes when the tree
	// comes from a Parser with Columns set (characters otherwise, as the
	// YAML parser counts them).
	Columns bool
}

// Schema decodes YAML nodes into values of type T. Build it once (it
// checks T and the rules), then use it from any goroutine.
type Schema[T any] struct {
	plan *plan
	opts Options
}

// NewSchema returns the schema of T with opts. Fields are named by their
// yaml tags (a field without one by its Go name in lower case; "-" skips
// it; unexported fields are skipped). Supported field types: string,
// bool, the int and float types, json.RawMessage, pointers, slices and
// structs of these, and any type whose pointer implements Unmarshaler.
// NewSchema panics on any other type, and on a rule that names no field
// or does not fit it: those are mistakes in the program.
func NewSchema[T any](opts Options) *Schema[T] {
	p := planOf(reflect.TypeFor[T]())
	if len(opts.Rules) > 0 {
		p = apply(p, compileRules(opts.Rules), "")
	}
	opts.Rules = nil
	return &Schema[T]{plan: p, opts: opts}
}

// Decode decodes n, the top node of the document path (as ParseText
// returns it), into v, and returns the decoder, which holds every problem
// found and the line of every field. A nil or null n leaves v as it is.
func (s *Schema[T]) Decode(path string, n *yaml.Node, v *T) *Decoder {
	if n == nil {
		return s.decoder(path)
	}
	return s.decode(path, yamlNode(n), v)
}

// decode is Decode of n, which may be no node.
func (s *Schema[T]) decode(path string, n node, v *T) *Decoder {
	d := s.decoder(path)
	if n.ok() && !n.isNull() {
		// The places of the fields are found again from the tree when
		// Lines or Pos first asks (see walk), so that decoding records
		// nothing.
		d.top, d.plan, d.lazy = n, s.plan, true
		d.steps = d.stepBuf[:0]
		d.value(s.plan, n, loc{}, reflect.ValueOf(v).Elem())
		d.lazy = false
	}
	return d
}

// decoder returns a new decoder of s for the document path.
func (s *Schema[T]) decoder(path string) *Decoder {
	return &Decoder{path: path, opts: &s.opts}
}

// Decoder is the state of one Schema.Decode: the problems found and the
// line of each field seen. A Decoder is used by one goroutine.
type Decoder struct {
	path  string
	opts  *Options
	errs  diag.List
	errAt []string         // the field path of each problem in errs
	recs  [][]record       // where each field was written, in the order seen, in blocks
	index map[string]place // recs by field path, once asked for
	bad   map[string]bool  // fields that had a problem
	// top and plan are the tree and plan of a Schema.Decode, whose
	// fields' places are not recorded while lazy is set but found again
	// from the tree.
	top    node
	plan   *plan
	lazy   bool
	walked int           // the fields of top, once counted
	steps  []pathSegment // while lazy, the keys and indexes down to the value decoded
	// stepBuf holds the steps of a document nested no deeper than it
	// is long (a canonical spec, a tessera.yaml), without an allocation.
	stepBuf [4]pathSegment
}

// record is where the field at was written: the line and column of its
// key, or of the item for a list item. A document has fewer than 2^31
// lines and bytes on a line, as its size is capped well below that.
type record struct {
	at        string
	line, col int32
}

// loc is where a value being decoded is, when the decoder records the
// places of fields: its dotted path. While the decoder does not record
// them (lazy), the path is built from d.steps only when a message needs
// it.
type loc struct {
	at string
}

// at returns the dotted path of l.
func (d *Decoder) at(l loc) string {
	if d.lazy {
		return dottedPath(d.steps)
	}
	return l.at
}

// Errors returns every problem found, sorted (see diag.List.Sort); it is
// empty when there was none.
func (d *Decoder) Errors() diag.List {
	d.errs.Sort()
	return d.errs
}

// Lines returns the line of each field that was written in the document,
// keyed by dotted path ("task[0].outputFormat.type"): the line of its key,
// or of the item for a list item. Fields whose value was null are
// included. Each call builds a new map.
func (d *Decoder) Lines() map[string]int {
	lines := make(map[string]int, d.count())
	d.paths(func(at string, p place) { lines[at] = p.line })
	return lines
}

// paths calls f with the path and place of each field written, those of
// the tree of a Schema.Decode first, found again from it, then those
// recorded, in the order recorded.
func (d *Decoder) paths(f func(at string, p place)) {
	if d.top.ok() {
		d.walk(d.plan, d.top, "", f)
	}
	for _, b := range d.recs {
		for _, r := range b {
			f(r.at, place{int(r.line), int(r.col)})
		}
	}
}

// walk calls f with the path and place of each field under n, the value
// at at, as decoding n with the plan p records them: each known key of a
// mapping, once, and each item of a list. With a nil f it only counts
// them, in d.walked, building no path.
func (d *Decoder) walk(p *plan, n node, at string, f func(at string, p place)) {
	if n.kind() == yaml.AliasNode {
		return
	}
	index, join := index, join
	if f == nil {
		index = func(at string, _ int) string { return at }
		join = func(at, _ string) string { return at }
	}
	place := func(at string, n node) {
		if f == nil {
			d.walked++
			return
		}
		pl := place{line: n.line()}
		if d.opts.Columns {
			pl.col = n.col()
		}
		f(at, pl)
	}
	switch p.kind {
	case kindPtr:
		d.walk(p.elem, n, at, f)
	case kindSlice:
		if n.kind() != yaml.SequenceNode {
			return
		}
		for i := range n.len() {
			c := n.child(i)
			ip := index(at, i)
			place(ip, c)
			d.walk(p.elem, c, ip, f)
		}
	case kindStruct:
		if n.kind() != yaml.MappingNode {
			return
		}
		var seen uint64
		for i := 0; i+1 < n.len(); i += 2 {
			k, val := n.child(i), n.child(i+1)
			if k.kind() != yaml.ScalarNode {
				continue
			}
			fi := p.find(k.value())
			if fi < 0 {
				continue
			}
			if fi < 64 {
				if seen&(1<<fi) != 0 {
					continue
				}
				seen |= 1 << fi
			}
			fp := join(at, p.fields[fi].key)
			place(fp, k)
			if !val.isNull() {
				d.walk(p.fields[fi].plan, val, fp, f)
			}
		}
	}
}

// count returns the number of fields written: those of top (counted
// once) and those recorded.
func (d *Decoder) count() int {
	if d.top.ok() && d.walked == 0 {
		d.walk(d.plan, d.top, "", nil)
	}
	n := d.walked
	for _, b := range d.recs {
		n += len(b)
	}
	return n
}

// place is where a field was written.
type place struct{ line, col int }

// record notes that the field key (or, for item, the list item i) of
// the value at l was written at node n (its key, or the list item), and
// returns the field's loc. The places are kept in blocks that are never
// copied, and indexed by path only when Pos first asks, as most
// decodings that find no problem never ask: a large document costs a few
// words per field.
func (d *Decoder) record(l loc, key string, item bool, i int, n node) loc {
	r := record{at: join(l.at, key), line: int32(n.line())}
	if item {
		r.at = index(l.at, i)
	}
	if d.opts.Columns {
		r.col = int32(n.col())
	}
	if d.index != nil {
		d.index[r.at] = place{int(r.line), int(r.col)}
	}
	if k := len(d.recs); k == 0 || len(d.recs[k-1]) == cap(d.recs[k-1]) {
		size := 32
		if k > 0 {
			size = min(2*cap(d.recs[k-1]), 4096)
		}
		d.recs = append(d.recs, make([]record, 0, size))
	}
	last := &d.recs[len(d.recs)-1]
	*last = append(*last, r)
	return loc{at: r.at}
}

// Pos returns the line and column of the field at as Lines records it:
// its key, or the item for a list item. The column is 0 unless the
// schema's Options.Columns is set; both are 0 when the field was not
// written.
func (d *Decoder) Pos(at string) (line, col int) {
	if d.index == nil {
		d.index = make(map[string]place, d.count())
		d.paths(func(at string, p place) { d.index[at] = p })
	}
	p := d.index[at]
	return p.line, p.col
}

// label is the name of the value at in messages.
func (d *Decoder) label(at string) string {
	if d.opts.Label != nil {
		return d.opts.Label(at)
	}
	return at
}

// typeError words a value of the wrong type, after its label.
func (d *Decoder) typeError(want, found string) string {
	if d.opts.TypeError != nil {
		return d.opts.TypeError(want, found)
	}
	return "want " + want + ", found " + found
}

// Bad reports whether the field at had a problem of its own, such as a
// value of the wrong type; a caller that validates the decoded value
// further skips such fields.
func (d *Decoder) Bad(at string) bool { return d.bad[at] }

// Failed reports whether any problem was found at the field at or inside
// it, unknown keys included.
func (d *Decoder) Failed(at string) bool {
	for _, p := range d.errAt {
		if p == at || at == "" || strings.HasPrefix(p, at) && (p[len(at)] == '.' || p[len(at)] == '[') {
			return true
		}
	}
	return false
}

// Errorf reports a problem with the field at (marked Bad), located at the
// node n: "<label>: message", where the label is at unless Options.Label
// words it, or the message alone when the label is empty.
func (d *Decoder) Errorf(n *yaml.Node, at, format string, args ...any) {
	d.errorf(yamlNode(n), at, format, args...)
}

// errorf is Errorf at n.
func (d *Decoder) errorf(n node, at, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if l := d.label(at); l != "" {
		msg = l + ": " + msg
	}
	e := d.errorAt(n, msg)
	if d.bad == nil {
		d.bad = map[string]bool{}
	}
	d.bad[at] = true
	d.errs = append(d.errs, e)
	d.errAt = append(d.errAt, at)
}

// Wrong reports a value of the wrong type: "want <want>, found <what n
// is>" (or as Options.TypeError words it); an alias is refused instead.
func (d *Decoder) Wrong(n *yaml.Node, at, want string) {
	d.wrong(yamlNode(n), at, want)
}

// wrong is Wrong at n.
func (d *Decoder) wrong(n node, at, want string) {
	if n.kind() == yaml.AliasNode {
		doc := d.opts.Doc
		if doc == "" {
			doc = "this file"
		}
		d.errorf(n, at, "aliases (*%s) are not supported in %s: write the value out", n.value(), doc)
		return
	}
	d.errorf(n, at, "%s", d.typeError(want, describe(n)))
}

// Text returns the text of a scalar. Numbers and times are taken as
// written, so that "userId: 12345" is the text "12345". Anything else is
// reported (want text) and ok is false.
func (d *Decoder) Text(n *yaml.Node, at string) (s string, ok bool) {
	return d.text(yamlNode(n), at, "text")
}

func (d *Decoder) text(n node, at, want string) (string, bool) {
	if s, ok := scalarText(n); ok {
		return s, true
	}
	d.wrong(n, at, want)
	return "", false
}

// Decode decodes n into the value v points to, as a Schema without rules
// would, with the paths of its fields under at; an Unmarshaler uses it for
// the parts of its node. A null n leaves v as it is. It reports whether
// the value was decoded without a problem.
func (d *Decoder) Decode(n *yaml.Node, at string, v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic(fmt.Sprintf("yamldoc: Decode needs a non-nil pointer, not %T", v))
	}
	if isNull(n) {
		return true
	}
	before := len(d.errs)
	// The decoding of a part records its places: its tree is not kept.
	lazy := d.lazy
	d.lazy = false
	d.value(planOf(rv.Type().Elem()), yamlNode(n), loc{at: at}, rv.Elem())
	d.lazy = lazy
	return len(d.errs) == before
}

// value decodes n, the value at l, into v, which p describes.
func (d *Decoder) value(p *plan, n node, l loc, v reflect.Value) {
	if n.kind() == yaml.AliasNode {
		d.wrong(n, d.at(l), p.want)
		return
	}
	switch p.kind {
	case kindHook:
		v.Addr().Interface().(Unmarshaler).UnmarshalYAMLNode(d, n.yaml(), d.at(l))
	case kindString:
		if s, ok := scalarText(n); ok {
			v.SetString(s)
		} else {
			d.wrong(n, d.at(l), p.want)
		}
	case kindBool:
		if b, ok := boolOf(n); ok {
			v.SetBool(b)
		} else {
			d.wrong(n, d.at(l), p.want)
		}
	case kindInt:
		d.int(p, n, l, v)
	case kindFloat:
		if f, ok := floatOf(n); ok && !v.OverflowFloat(f) {
			v.SetFloat(f)
		} else {
			d.wrong(n, d.at(l), p.want)
		}
	case kindRaw:
		if n.kind() != yaml.MappingNode {
			d.wrong(n, d.at(l), p.want)
		} else if raw, ok := d.toJSON(n, l); ok {
			v.SetBytes(raw)
		}
	case kindPtr:
		if v.IsNil() {
			v.Set(reflect.New(p.typ.Elem()))
		}
		d.value(p.elem, n, l, v.Elem())
	case kindSlice:
		d.list(p, n, l, v)
	case kindStruct:
		d.mapping(p, n, l, v)
	}
}

// scalarText returns the text of a scalar as Text takes it.
func scalarText(n node) (string, bool) {
	if n.y == nil {
		// The fast reader's tags are few: text, the numbers and times
		// are taken as written.
		switch n.f().tag {
		case tagStr, tagInt, tagFloat, tagTimestamp:
			return n.t.str(n.i), true
		}
		return "", false
	}
	if n.y.Kind == yaml.ScalarNode {
		switch n.y.Tag {
		case "!!str", "!!int", "!!float", "!!timestamp":
			return n.y.Value, true
		}
	}
	return "", false
}

// int decodes a whole number, within the plan's range if it has one.
func (d *Decoder) int(p *plan, n node, l loc, v reflect.Value) {
	i, ok := intOf(n)
	if !ok || v.OverflowInt(i) {
		d.wrong(n, d.at(l), p.want)
		return
	}
	if p.ranged && (i < p.min || i > p.max) {
		d.errorf(n, d.at(l), "%s", d.typeError(p.want, n.value()))
		return
	}
	v.SetInt(i)
}

// list decodes a sequence into a slice, recording each item's line. An
// empty list leaves the slice nil.
func (d *Decoder) list(p *plan, n node, l loc, v reflect.Value) {
	if n.kind() != yaml.SequenceNode {
		d.wrong(n, d.at(l), p.want)
		return
	}
	size := n.len()
	if size == 0 {
		return
	}
	s, inPlace := v, v.IsNil()
	if inPlace {
		// Grown in place: one allocation, the items' array.
		v.Grow(size)
		v.SetLen(size)
	} else {
		s = reflect.MakeSlice(p.typ, size, size)
	}
	for i := range size {
		c := n.child(i)
		if d.lazy {
			d.steps = append(d.steps, pathSegment{index: i})
			d.value(p.elem, c, loc{}, s.Index(i))
			d.steps = d.steps[:len(d.steps)-1]
			continue
		}
		d.value(p.elem, c, d.record(l, "", true, i, c), s.Index(i))
	}
	if !inPlace {
		v.Set(s)
	}
}

// mapping decodes a mapping into a struct: each key must be one of the
// struct's and appear once; a null value counts as absent.
func (d *Decoder) mapping(p *plan, n node, l loc, v reflect.Value) {
	if n.kind() != yaml.MappingNode {
		d.wrong(n, d.at(l), p.want)
		return
	}
	var seen uint64 // fields seen, by index; fields past 64 are not checked
	for i := 0; i+1 < n.len(); i += 2 {
		k, val := n.child(i), n.child(i+1)
		if k.kind() != yaml.ScalarNode {
			d.errorf(k, d.at(l), "a key must be a name, found %s", describe(k))
			continue
		}
		fi := p.find(k.value())
		if fi < 0 {
			d.unknown(p, k, d.at(l))
			continue
		}
		f := &p.fields[fi]
		if fi < 64 {
			if seen&(1<<fi) != 0 {
				d.errorf(k, join(d.at(l), f.key), "the key is repeated: keep one")
				continue
			}
			seen |= 1 << fi
		}
		if d.lazy {
			if !val.isNull() {
				d.steps = append(d.steps, pathSegment{key: f.key, isKey: true})
				d.value(f.plan, val, loc{}, v.Field(f.index))
				d.steps = d.steps[:len(d.steps)-1]
			}
			continue
		}
		fl := d.record(l, f.key, false, 0, k)
		if !val.isNull() {
			d.value(f.plan, val, fl, v.Field(f.index))
		}
	}
}

// unknown reports the unknown key k of the mapping at, with the keys it
// may be and the nearest of them.
func (d *Decoder) unknown(p *plan, k node, at string) {
	key := k.value()
	hint := suggest.Nearest(key, p.keys)
	var msg string
	if d.opts.UnknownKey != nil {
		msg = d.opts.UnknownKey(at, key, hint, p.keys)
	} else {
		msg = unknownKey(at, key, hint, p.keys)
	}
	d.errs = append(d.errs, d.errorAt(k, msg))
	d.errAt = append(d.errAt, at)
}

// unknownKey is the default wording of Options.UnknownKey.
func unknownKey(at, key, hint string, keys []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown key %q", key)
	if at != "" {
		b.WriteString(" in " + at)
	}
	b.WriteString(": ")
	if hint != "" {
		fmt.Fprintf(&b, "did you mean %q? ", hint)
	}
	b.WriteString("the keys are " + strings.Join(keys, ", "))
	return b.String()
}

// boolOf returns the value of a !!bool scalar.
func boolOf(n node) (bool, bool) {
	if n.kind() != yaml.ScalarNode || n.tag() != "!!bool" {
		return false, false
	}
	switch n.value() {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	var b bool
	return b, n.yaml().Decode(&b) == nil
}

// intOf returns the value of an !!int scalar. Plain decimals are read
// here; other forms (0x1F, 0o17, 1_000) as YAML reads them.
func intOf(n node) (int64, bool) {
	if n.kind() != yaml.ScalarNode || n.tag() != "!!int" {
		return 0, false
	}
	if v := n.value(); plainDecimal(v) {
		if i, err := strconv.ParseInt(v, 10, 64); err == nil {
			return i, true
		}
	}
	var i int64
	return i, n.yaml().Decode(&i) == nil
}

// floatOf returns the value of an !!int or !!float scalar.
func floatOf(n node) (float64, bool) {
	if n.kind() != yaml.ScalarNode || n.tag() != "!!float" && n.tag() != "!!int" {
		return 0, false
	}
	if v := n.value(); JSONNumber(v) {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f, true
		}
	}
	var f float64
	if n.yaml().Decode(&f) != nil {
		return 0, false
	}
	return f, true
}

// plainDecimal reports whether s is -?(0|[1-9][0-9]*), a whole number
// YAML and strconv read alike (YAML reads 010 as octal).
func plainDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || s[0] == '0' && len(s) > 1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func index(at string, i int) string { return at + "[" + strconv.Itoa(i) + "]" }

// Describe says what a node is, for messages of the form "want X, found
// Y": "a mapping", "the text \"two\"", "the number 1.5", "nothing".
func Describe(n *yaml.Node) string { return describe(yamlNode(n)) }

func describe(n node) string {
	switch n.kind() {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch tag := n.tag(); tag {
	case "!!str":
		return fmt.Sprintf("the text %q", clip(n.value()))
	case "!!int", "!!float":
		return "the number " + clip(n.value())
	case "!!bool":
		return n.value() + " (quote it to use it as text)"
	case "!!null":
		return "nothing"
	default:
		return fmt.Sprintf("a value tagged %s", tag)
	}
}

// clip shortens s to 40 characters for a message.
func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
