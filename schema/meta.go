package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/tessera-dev/tessera/internal/suggest"
)

// MaxNesting is how deeply schemas may nest inside one another (a
// property's schema in an object's, an item's in an array's, and so on)
// in a schema CheckMeta accepts. Real tool and output schemas stay far
// below it; the limit keeps the metaschema check fast, since its cost
// grows much faster than the nesting (a schema 1,600 levels deep took
// the validator 51 seconds).
const MaxNesting = 64

// Problem is one way a document is not a valid JSON Schema.
type Problem struct {
	// Pointer is the JSON Pointer (RFC 6901) of the offending keyword's
	// value, or of the schema at fault ("" for the whole document).
	Pointer string
	// Msg says what is wrong and what to do.
	Msg string
}

// String is "pointer: message", or "the schema: message" at the root.
// A pointer of more than 16 tokens is shortened to its first and last 6,
// with "/…" between them.
func (p Problem) String() string {
	if p.Pointer == "" {
		return "the schema: " + p.Msg
	}
	return shortPointer(p.Pointer) + ": " + p.Msg
}

func shortPointer(p string) string {
	const keep = 6
	if strings.Count(p, "/") <= 16 {
		return p
	}
	head := 0
	for range keep {
		head += 1 + strings.IndexByte(p[head+1:], '/')
	}
	tail := len(p)
	for range keep {
		tail = strings.LastIndexByte(p[:tail], '/')
	}
	return p[:head] + "/…" + p[tail:]
}

// CheckMeta parses doc and returns every way it is not a valid JSON
// Schema, as Value.CheckMeta does; a document that is not JSON is one
// Problem at the place Parse stopped.
func CheckMeta(doc []byte) []Problem {
	v, err := Parse(doc)
	if err != nil {
		var se *SyntaxError
		switch {
		case errors.As(err, &se) && se.Msg == tooDeep:
			return []Problem{{Pointer: se.Pointer, Msg: nestingMsg}}
		case errors.As(err, &se):
			return []Problem{{Pointer: se.Pointer, Msg: "not valid JSON: " + se.Msg}}
		}
		return []Problem{{Msg: "not valid JSON: " + err.Error()}}
	}
	return v.CheckMeta()
}

// CheckMeta returns every way v is not a valid JSON Schema, each at its
// JSON Pointer, in the order of their pointers; none when it is valid.
//
// v is checked against the metaschema of the draft its "$schema" names
// (2020-12 when it names none; 2019-09, 7, 6 and 4 are the others
// supported), and every "$ref" must resolve within v: to a JSON Pointer
// or an anchor of v, or of a subschema v gives an "$id". Common mistakes
// get their own messages: a misspelt type, "properties" that is not an
// object, "required" that is not a list of names, a dangling reference.
// Schemas nested more than MaxNesting deep are one Problem, and are not
// checked further.
func (v Value) CheckMeta() []Problem {
	w := metaWalker{draft: 2020, resources: map[string]*Value{}, anchors: map[string]bool{}}
	if s := v.Get("$schema"); s != nil {
		w.path = append(w.path, "$schema")
		if s.Kind != String {
			w.report("want the URL of a JSON Schema draft, found %s", describeValue(s))
		} else if d, ok := draftOf(s.Str); ok {
			w.draft = d
		} else {
			w.report("%q is not a JSON Schema draft Tessera checks: use %q (or draft 2019-09, 7, 6 or 4), or leave \"$schema\" out", s.Str, "https://json-schema.org/draft/2020-12/schema")
		}
		w.path = w.path[:0]
	}
	switch {
	case v.Kind == Object:
	case v.Kind == Bool && w.draft != 4:
	default:
		w.report("want a JSON Schema object, found %s", describeValue(&v))
		return w.problems
	}
	w.schema(&v, 0, rootBase)
	if w.tooDeep {
		return w.problems
	}
	w.resolve()
	if w.unsure || w.draft != 2020 || len(w.problems) > 0 {
		// The walk checks what real schemas use, as the metaschema of
		// draft 2020-12 does; the validator, 50 times slower, checks the
		// rest, and finds every problem there is once there is one.
		w.meta(&v)
	}
	slices.SortStableFunc(w.problems, func(a, b Problem) int { return strings.Compare(a.Pointer, b.Pointer) })
	return w.problems
}

// nestingMsg is the problem of a schema nested too deep.
var nestingMsg = fmt.Sprintf("schemas nest more than %d deep here: Tessera checks up to %d levels; flatten the schema, or move parts under \"$defs\" and refer to them with \"$ref\"", MaxNesting, MaxNesting)

// rootBase is the base URI of a schema with no "$id" of its own.
const rootBase = "tessera:///schema.json"

// drafts are the metaschema URLs CheckMeta knows, by draft.
var drafts = []struct {
	draft int
	d     *jsonschema.Draft
}{
	{2020, jsonschema.Draft2020}, {2019, jsonschema.Draft2019},
	{7, jsonschema.Draft7}, {6, jsonschema.Draft6}, {4, jsonschema.Draft4},
}

// draftOf returns the draft a "$schema" URL names; http and https, and a
// trailing '#', are the same.
func draftOf(s string) (int, bool) {
	s = strings.TrimSuffix(s, "#")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://")
	for _, d := range drafts {
		u := d.d.String()
		if s == u[strings.Index(u, "://")+3:] {
			return d.draft, true
		}
	}
	return 0, false
}

// metaSchemas compiles each draft's metaschema once per process, when
// first needed.
var metaSchemas = func() map[int]func() (*jsonschema.Schema, error) {
	m := make(map[int]func() (*jsonschema.Schema, error), len(drafts))
	for _, d := range drafts {
		m[d.draft] = sync.OnceValues(func() (*jsonschema.Schema, error) {
			return jsonschema.NewCompiler().Compile(d.d.String())
		})
	}
	return m
}()

// refUse is a "$ref" (or "$dynamicRef") met in the walk.
type refUse struct {
	at, base, ref string
}

// metaWalker walks a schema's subschemas, reporting the common mistakes
// in words of its own and collecting what references need.
type metaWalker struct {
	draft     int
	path      []string
	problems  []Problem
	tooDeep   bool
	unsure    bool              // a keyword only the metaschema can check is used
	resources map[string]*Value // base URI (no fragment) -> its schema
	anchors   map[string]bool   // base URI#anchor
	refs      []refUse
}

func (w *metaWalker) report(format string, args ...any) {
	w.problems = append(w.problems, Problem{Pointer: pointer(w.path), Msg: fmt.Sprintf(format, args...)})
}

func (w *metaWalker) reportAt(tok string, format string, args ...any) {
	w.path = append(w.path, tok)
	w.report(format, args...)
	w.path = w.path[:len(w.path)-1]
}

// Keywords whose value is one schema, a map of names to schemas, or a
// list of schemas.
var (
	oneSchema = []string{"additionalProperties", "additionalItems", "not", "contains", "propertyNames",
		"if", "then", "else", "unevaluatedProperties", "unevaluatedItems", "contentSchema"}
	schemaMaps  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaLists = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
)

// schemaTypes are the names "type" takes, in the order messages list them.
var schemaTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// typeAliases are names from programming languages written for a type.
var typeAliases = map[string]string{
	"int": "integer", "float": "number", "double": "number", "bool": "boolean",
	"str": "string", "list": "array", "dict": "object", "map": "object",
}

// schema walks the schema v at the walker's path, depth schemas deep,
// whose base URI is base.
func (w *metaWalker) schema(v *Value, depth int, base string) {
	if depth > MaxNesting {
		w.tooDeep = true
		w.report("%s", nestingMsg)
		return
	}
	if v.Kind != Object {
		if v.Kind != Bool || w.draft == 4 {
			w.report("want a schema (an object%s), found %s", map[bool]string{true: "", false: ", or true or false"}[w.draft == 4], describeValue(v))
		}
		return
	}
	if depth == 0 {
		w.resources[base] = v
	}
	base = w.identify(v, base)
	for i := range v.Members {
		m := &v.Members[i]
		w.path = append(w.path, m.Key)
		w.member(v, m, depth, base)
		w.path = w.path[:len(w.path)-1]
		if w.tooDeep {
			return
		}
	}
}

// identify registers v's "$id" and anchors and returns its base URI.
func (w *metaWalker) identify(v *Value, base string) string {
	idKey := "$id"
	if w.draft == 4 {
		idKey = "id"
	}
	if id := v.Get(idKey); id != nil && id.Kind == String {
		if u, err := resolveURI(base, id.Str); err == nil {
			abs, frag, _ := strings.Cut(u, "#")
			switch {
			case abs != base || frag == "":
				base = abs
				if _, ok := w.resources[abs]; !ok {
					w.resources[abs] = v
				}
				if frag != "" && w.draft <= 7 {
					w.anchors[abs+"#"+frag] = true
				}
			case w.draft <= 7:
				w.anchors[base+"#"+frag] = true
			}
		}
	}
	for _, k := range []string{"$anchor", "$dynamicAnchor"} {
		if a := v.Get(k); a != nil && a.Kind == String {
			w.anchors[base+"#"+a.Str] = true
		}
	}
	return base
}

func (w *metaWalker) member(parent *Value, m *Member, depth int, base string) {
	v := &m.Value
	switch key := m.Key; {
	case key == "type":
		w.checkType(v)
	case key == "required":
		w.checkRequired(v)
	case key == "$ref" || key == "$dynamicRef" || key == "$recursiveRef":
		if v.Kind != String {
			w.report("want a reference (a string such as \"#/$defs/name\"), found %s", describeValue(v))
			return
		}
		w.refs = append(w.refs, refUse{at: pointer(w.path), base: base, ref: v.Str})
	case key == "items":
		switch {
		case v.Kind == Array && w.draft == 2020:
			w.report("in draft 2020-12 \"items\" is one schema, for every item: for a tuple, write its schemas under \"prefixItems\"")
		case v.Kind == Array:
			w.list(v, depth, base)
		default:
			w.schema(v, depth+1, base)
		}
	case key == "dependencies":
		if v.Kind != Object {
			w.report("want an object that maps each property name to a schema or a list of names, found %s", describeValue(v))
			return
		}
		for i := range v.Members {
			if d := &v.Members[i]; d.Value.Kind != Array {
				w.path = append(w.path, d.Key)
				w.schema(&d.Value, depth+1, base)
				w.path = w.path[:len(w.path)-1]
			}
		}
	case slices.Contains(oneSchema, key):
		w.schema(v, depth+1, base)
	case slices.Contains(schemaMaps, key):
		if v.Kind != Object {
			w.report("%q must be an object that maps each name to its schema, found %s%s", key, describeValue(v), mapHint(key, v))
			return
		}
		for i := range v.Members {
			d := &v.Members[i]
			w.path = append(w.path, d.Key)
			w.schema(&d.Value, depth+1, base)
			w.path = w.path[:len(w.path)-1]
			if w.tooDeep {
				return
			}
		}
	case slices.Contains(schemaLists, key):
		if v.Kind != Array || len(v.Items) == 0 {
			w.report("%q must be a non-empty list of schemas, found %s", key, describeValue(v))
			return
		}
		w.list(v, depth, base)
	case !plainKeyword(key, v):
		w.unsure = true
	}
}

// Keywords of draft 2020-12 whose values plainKeyword checks as its
// metaschema does.
var (
	textKeywords   = []string{"$comment", "title", "description", "format", "contentEncoding", "contentMediaType", "pattern", "$schema"}
	numberKeywords = []string{"maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"}
	countKeywords  = []string{"maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains", "maxProperties", "minProperties"}
	flagKeywords   = []string{"uniqueItems", "deprecated", "readOnly", "writeOnly"}
	// otherKeywords are the rest of the metaschema's, which only the
	// metaschema checks.
	otherKeywords = []string{"$id", "$anchor", "$dynamicAnchor", "$vocabulary", "$recursiveAnchor", "$recursiveRef", "multipleOf", "dependentRequired"}
)

// plainKeyword reports whether the keyword key, with the value v, is
// valid by the metaschema of draft 2020-12 without asking it: a keyword
// it does not define (any value is valid), or one whose value is simple
// to check and is right. The walk checks the keywords that hold schemas,
// "type", "required" and references itself.
func plainKeyword(key string, v *Value) bool {
	switch {
	case slices.Contains(textKeywords, key):
		return v.Kind == String
	case slices.Contains(numberKeywords, key):
		return v.Kind == Number
	case slices.Contains(countKeywords, key):
		return v.Kind == Number && v.Str != "" && strings.Trim(v.Str, "0123456789") == ""
	case slices.Contains(flagKeywords, key):
		return v.Kind == Bool
	case key == "enum" || key == "examples":
		return v.Kind == Array
	case key == "const" || key == "default":
		return true
	}
	return !slices.Contains(otherKeywords, key)
}

// mapHint says how to write a list given where a map of schemas belongs.
func mapHint(key string, v *Value) string {
	if key == "properties" && v.Kind == Array {
		return ": write {\"name\": {\"type\": \"string\"}, ...}, one member per property, and list the required ones under \"required\""
	}
	return ""
}

func (w *metaWalker) list(v *Value, depth int, base string) {
	for i := range v.Items {
		w.path = append(w.path, strconv.Itoa(i))
		w.schema(&v.Items[i], depth+1, base)
		w.path = w.path[:len(w.path)-1]
		if w.tooDeep {
			return
		}
	}
}

func (w *metaWalker) checkType(t *Value) {
	switch t.Kind {
	case String:
		w.checkTypeName(t.Str)
	case Array:
		if len(t.Items) == 0 {
			w.report("an empty list of types allows no value: name at least one of %s", strings.Join(schemaTypes, ", "))
		}
		for i := range t.Items {
			it := &t.Items[i]
			w.path = append(w.path, strconv.Itoa(i))
			switch {
			case it.Kind != String:
				w.report("want a type name (one of %s), found %s", strings.Join(schemaTypes, ", "), describeValue(it))
			case slices.ContainsFunc(t.Items[:i], func(u Value) bool { return u.Kind == String && u.Str == it.Str }):
				w.report("the type %q is listed twice: list each once", it.Str)
			default:
				w.checkTypeName(it.Str)
			}
			w.path = w.path[:len(w.path)-1]
		}
	default:
		w.report("want a type name (a string such as \"object\") or a list of them, found %s", describeValue(t))
	}
}

func (w *metaWalker) checkTypeName(s string) {
	if slices.Contains(schemaTypes, s) {
		return
	}
	hint := ""
	if alt, ok := typeAliases[strings.ToLower(s)]; ok {
		hint = fmt.Sprintf(": did you mean %q?", alt)
	} else if alt := suggest.Nearest(s, schemaTypes); alt != "" {
		hint = fmt.Sprintf(": did you mean %q?", alt)
	} else if s == "any" {
		hint = ": to allow any value, leave \"type\" out"
	}
	w.report("%q is not a JSON Schema type (one of %s)%s", s, strings.Join(schemaTypes, ", "), hint)
}

func (w *metaWalker) checkRequired(r *Value) {
	switch r.Kind {
	case Array:
		for i := range r.Items {
			it := &r.Items[i]
			switch {
			case it.Kind != String:
				w.reportAt(strconv.Itoa(i), "want a property name (a string), found %s", describeValue(it))
			case slices.ContainsFunc(r.Items[:i], func(u Value) bool { return u.Kind == String && u.Str == it.Str }):
				w.reportAt(strconv.Itoa(i), "%q is listed twice: list each required property once", it.Str)
			}
		}
	case String:
		w.report("\"required\" must be a list of property names, found a string: write [%s]", strconv.Quote(r.Str))
	case Bool:
		name := "the property"
		if n := len(w.path); n >= 3 && w.path[n-3] == "properties" {
			name = strconv.Quote(w.path[n-2])
		}
		w.report("\"required\" is a list on the object, not a flag on a property: remove it here and list %s in the object's \"required\"", name)
	default:
		w.report("\"required\" must be a list of property names, found %s", describeValue(r))
	}
}

// resolveURI resolves ref against base.
func resolveURI(base, ref string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	return b.ResolveReference(r).String(), nil
}

// resolve reports every reference that does not resolve within the
// document.
func (w *metaWalker) resolve() {
	for _, r := range w.refs {
		w.path = append(w.path[:0], splitPointer(r.at)...)
		w.resolveOne(r)
	}
	w.path = w.path[:0]
}

func (w *metaWalker) resolveOne(r refUse) {
	b, err := url.Parse(r.base)
	if err != nil {
		return // not reached: bases are resolved URIs
	}
	u, err := url.Parse(r.ref)
	if err != nil {
		w.report("%q is not a valid URI reference: write a JSON Pointer such as \"#/$defs/name\"", r.ref)
		return
	}
	abs := b.ResolveReference(u)
	frag := abs.Fragment
	abs.Fragment, abs.RawFragment = "", ""
	res, ok := w.resources[abs.String()]
	if !ok {
		w.report("%q refers to a schema outside this one: Tessera resolves references within the document only; copy the definition under \"$defs\" and refer to it as \"#/$defs/<name>\"", r.ref)
		return
	}
	switch {
	case frag == "":
	case strings.HasPrefix(frag, "/"):
		if ok, near := lookup(res, frag); !ok {
			msg := fmt.Sprintf("%q points at nothing in this schema", r.ref)
			if near != "" {
				msg += fmt.Sprintf(": did you mean %q?", "#"+near)
			} else {
				msg += ": define it there (under \"$defs\"), or fix the reference"
			}
			w.report("%s", msg)
		}
	default:
		if !w.anchors[abs.String()+"#"+frag] {
			w.report("%q names no anchor of this schema: give the target \"$anchor\": %q, or refer to it by its JSON Pointer (\"#/$defs/<name>\")", r.ref, frag)
		}
	}
}

// splitPointer splits a JSON Pointer into its unescaped tokens.
func splitPointer(p string) []string {
	if p == "" {
		return nil
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		if strings.Contains(t, "~") {
			toks[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
		}
	}
	return toks
}

// lookup finds the JSON Pointer p in v; when it is not there, near is a
// pointer to a sibling whose name is close to the missing token, if any.
func lookup(v *Value, p string) (ok bool, near string) {
	toks := splitPointer(p)
	for i, t := range toks {
		var next *Value
		switch v.Kind {
		case Object:
			next = v.Get(t)
			if next == nil {
				keys := make([]string, len(v.Members))
				for j, m := range v.Members {
					keys[j] = m.Key
				}
				if alt := suggest.Nearest(t, keys); alt != "" {
					return false, pointer(append(slices.Clone(toks[:i]), alt))
				}
			}
		case Array:
			if n, err := strconv.Atoi(t); err == nil && n >= 0 && n < len(v.Items) && strconv.Itoa(n) == t {
				next = &v.Items[n]
			}
		}
		if next == nil {
			return false, ""
		}
		v = next
	}
	return true, ""
}

// meta checks v against its draft's metaschema and reports what the
// walk did not report already, in words of its own where it can.
func (w *metaWalker) meta(v *Value) {
	m, err := metaSchemas[w.draft]()
	if err != nil {
		w.problems = append(w.problems, Problem{Msg: fmt.Sprintf("the metaschema of draft %d did not compile: %v", w.draft, err)})
		return
	}
	err = m.Validate(toAny(v))
	var ve *jsonschema.ValidationError
	if err == nil || !errors.As(err, &ve) {
		if err != nil {
			w.problems = append(w.problems, Problem{Msg: err.Error()})
		}
		return
	}
	var leaves []*jsonschema.ValidationError
	collectLeaves(ve, &leaves)
	reported := make([]string, len(w.problems))
	for i, p := range w.problems {
		reported[i] = p.Pointer
	}
	msgs := map[string][]string{}
	var order []string
	p := message.NewPrinter(language.English)
	for _, l := range leaves {
		at := pointer(l.InstanceLocation)
		if slices.ContainsFunc(reported, func(r string) bool { return related(r, at) }) {
			continue
		}
		msg := leafMessage(l, p)
		if _, ok := msgs[at]; !ok {
			order = append(order, at)
		}
		if !slices.Contains(msgs[at], msg) {
			msgs[at] = append(msgs[at], msg)
		}
	}
	for _, at := range order {
		// The validator walks some objects in map order: sort, so that
		// the words are the same from one run to the next.
		slices.Sort(msgs[at])
		w.problems = append(w.problems, Problem{Pointer: at, Msg: strings.Join(msgs[at], "; or ")})
	}
}

// related reports whether one pointer is the other or below it.
func related(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

func collectLeaves(e *jsonschema.ValidationError, out *[]*jsonschema.ValidationError) {
	if len(e.Causes) == 0 {
		*out = append(*out, e)
		return
	}
	for _, c := range e.Causes {
		collectLeaves(c, out)
	}
}

// leafMessage words one failure of the metaschema.
func leafMessage(l *jsonschema.ValidationError, p *message.Printer) string {
	switch k := l.ErrorKind.(type) {
	case *kind.Type:
		return fmt.Sprintf("want %s, found %s", orWords(k.Want), article(k.Got))
	case *kind.Minimum:
		return fmt.Sprintf("want at least %s, found %s", k.Want.RatString(), k.Got.RatString())
	case *kind.MinItems:
		return fmt.Sprintf("want at least %d items, found %d", k.Want, k.Got)
	case *kind.UniqueItems:
		return fmt.Sprintf("items %d and %d are the same: list each once", k.Duplicates[0]+1, k.Duplicates[1]+1)
	case *kind.AdditionalProperties:
		return fmt.Sprintf("unknown keyword %s: remove it", strings.Join(quoteAll(k.Properties), ", "))
	case *kind.FalseSchema:
		return "not allowed here: remove it"
	}
	return "does not match the JSON Schema metaschema: " + l.ErrorKind.LocalizedString(p)
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strconv.Quote(x)
	}
	return out
}

func article(t string) string {
	switch t {
	case "array", "object", "integer":
		return "an " + t
	case "null":
		return "null"
	}
	return "a " + t
}

func orWords(ws []string) string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = article(w)
	}
	if len(out) <= 1 {
		return strings.Join(out, "")
	}
	return strings.Join(out[:len(out)-1], ", ") + " or " + out[len(out)-1]
}

// toAny converts v to the values the validator reads: maps, slices,
// json.Number, strings, booleans and nil.
func toAny(v *Value) any {
	switch v.Kind {
	case Bool:
		return v.Bool
	case Number:
		return json.Number(v.Str)
	case String:
		return v.Str
	case Array:
		out := make([]any, len(v.Items))
		for i := range v.Items {
			out[i] = toAny(&v.Items[i])
		}
		return out
	case Object:
		out := make(map[string]any, len(v.Members))
		for i := range v.Members {
			out[v.Members[i].Key] = toAny(&v.Members[i].Value)
		}
		return out
	}
	return nil
}
