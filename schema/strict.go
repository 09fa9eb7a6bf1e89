package schema

import (
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The size limits of OpenAI's strict mode, from the "Supported schemas"
// section of its Structured Outputs guide; docs/PROVIDERS.md cites them.
const (
	maxProperties    = 5000    // object properties in the whole schema
	maxObjectDepth   = 10      // levels of nested objects
	maxStringChars   = 120_000 // property, definition, enum and const names
	maxEnumValues    = 1000    // enum values in the whole schema
	largeEnumValues  = 250     // a string enum longer than this ...
	maxLargeEnumText = 15_000  // ... may total this many characters
)

// unsupported are keywords strict mode rejects, each with the reason given
// in the violation. The composition keywords are documented as unsupported
// for every model; the others are documented as unsupported for fine-tuned
// models and are absent from the list of keywords supported for the rest,
// so a strict schema cannot rely on them.
var unsupported = map[string]string{
	"allOf":                 "composition keyword",
	"not":                   "composition keyword",
	"dependentRequired":     "composition keyword",
	"dependentSchemas":      "composition keyword",
	"if":                    "composition keyword",
	"then":                  "composition keyword",
	"else":                  "composition keyword",
	"minLength":             "string keyword",
	"maxLength":             "string keyword",
	"patternProperties":     "object keyword",
	"unevaluatedProperties": "object keyword",
	"propertyNames":         "object keyword",
	"minProperties":         "object keyword",
	"maxProperties":         "object keyword",
	"unevaluatedItems":      "array keyword",
	"contains":              "array keyword",
	"minContains":           "array keyword",
	"maxContains":           "array keyword",
	"uniqueItems":           "array keyword",
}

// formats are the values of "format" strict mode supports.
var formats = []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}

// types are the values of "type" a schema may use.
var types = []string{"string", "number", "integer", "boolean", "object", "array", "null"}

// Violation is one way a schema breaks a rule of strict mode.
type Violation struct {
	// Pointer is the JSON Pointer (RFC 6901) of the offending value in
	// the schema, with '~' and '/' in names escaped as "~0" and "~1";
	// the empty pointer is the whole schema.
	Pointer string
	// Msg says what is wrong and what to do about it.
	Msg string
}

// String returns the violation as `at "/pointer": message`.
func (v Violation) String() string { return describePointer(v.Pointer) + ": " + v.Msg }

// CheckStrict reports every way schema breaks the rules of OpenAI's
// Structured Outputs strict mode, as Value.CheckStrict does, after
// reading it with Parse. A schema that is not valid JSON gives one
// violation saying why and where. No violations means the schema passes.
func CheckStrict(schema []byte) []Violation {
	v, err := Parse(schema)
	if err != nil {
		return []Violation{parseViolation(err)}
	}
	return v.CheckStrict()
}

// CheckStrict reports every way the schema v breaks the rules of OpenAI's
// Structured Outputs strict mode, in document order: objects that are not
// closed with "additionalProperties": false, properties missing from
// "required", unsupported keywords and formats, a root that is not an
// object, and the size limits. No violations means the schema passes.
func (v Value) CheckStrict() []Violation {
	c := checker{path: make([]string, 0, 16)}
	c.root(&v)
	return c.out
}

func parseViolation(err error) Violation {
	if se, ok := err.(*SyntaxError); ok {
		return Violation{Pointer: se.Pointer, Msg: fmt.Sprintf("not valid JSON at byte %d: %s", se.Offset, se.Msg)}
	}
	return Violation{Msg: err.Error()}
}

type checker struct {
	path       []string
	out        []Violation
	properties int
	chars      int
	enums      int
}

func (c *checker) report(format string, args ...any) {
	c.out = append(c.out, Violation{Pointer: pointer(c.path), Msg: fmt.Sprintf(format, args...)})
}

// reportAt reports a violation at the child tok of the current path.
func (c *checker) reportAt(tok string, format string, args ...any) {
	c.path = append(c.path, tok)
	c.report(format, args...)
	c.path = c.path[:len(c.path)-1]
}

func (c *checker) root(v *Value) {
	if v.Kind != Object {
		c.report("the schema is a JSON %s; strict mode needs an object schema with \"type\": \"object\"", v.Kind)
		return
	}
	if t := v.Get("type"); t == nil || t.Kind != String || t.Str != "object" {
		c.report("the root schema must have \"type\": \"object\" (not a union or another type): wrap other values in an object property")
	}
	if v.Get("anyOf") != nil {
		c.report("the root schema may not use \"anyOf\": put the union in a property of a root object")
	}
	c.schema(v, 0)
	if c.properties > maxProperties {
		c.out = append(c.out, Violation{Msg: fmt.Sprintf("the schema has %d object properties; strict mode allows at most %d", c.properties, maxProperties)})
	}
	if c.chars > maxStringChars {
		c.out = append(c.out, Violation{Msg: fmt.Sprintf("property names, definition names, enum values and const values total %d characters; strict mode allows at most %d", c.chars, maxStringChars)})
	}
	if c.enums > maxEnumValues {
		c.out = append(c.out, Violation{Msg: fmt.Sprintf("the schema has %d enum values; strict mode allows at most %d", c.enums, maxEnumValues)})
	}
}

// isObjectSchema reports whether v describes objects: its type is or
// includes "object", or it has no type and lists properties.
func isObjectSchema(v *Value) bool {
	t := v.Get("type")
	if t == nil {
		return v.Get("properties") != nil
	}
	if t.Kind == String {
		return t.Str == "object"
	}
	if t.Kind == Array {
		for _, it := range t.Items {
			if it.Kind == String && it.Str == "object" {
				return true
			}
		}
	}
	return false
}

// schema checks one schema; depth counts the objects enclosing it.
func (c *checker) schema(v *Value, depth int) {
	if v.Kind != Object {
		c.report("a schema here must be an object, not a JSON %s", v.Kind)
		return
	}
	isObj := isObjectSchema(v)
	if isObj {
		depth++
		if depth == maxObjectDepth+1 {
			c.report("objects nest %d levels deep here; strict mode allows at most %d", depth, maxObjectDepth)
		}
	}
	for i := range v.Members {
		m := &v.Members[i]
		c.path = append(c.path, m.Key)
		c.member(v, m, isObj, depth)
		c.path = c.path[:len(c.path)-1]
	}
	if isObj && v.Get("additionalProperties") == nil {
		if v.Get("properties") == nil {
			c.report("an object without \"properties\" must still set \"additionalProperties\": false, which allows only {}: declare its properties")
		} else {
			c.report("the object does not set \"additionalProperties\": false, which strict mode requires")
		}
	}
}

// member checks one member m of the schema v, with m's key on the path.
func (c *checker) member(v *Value, m *Member, isObj bool, depth int) {
	if why, bad := unsupported[m.Key]; bad {
		c.report("%q (%s) is not supported in strict mode: remove it", m.Key, why)
		return
	}
	switch m.Key {
	case "type":
		c.checkType(&m.Value)
	case "format":
		if m.Value.Kind == String && !slices.Contains(formats, m.Value.Str) {
			c.report("format %q is not supported in strict mode (supported: %v)", m.Value.Str, formats)
		}
	case "enum":
		c.checkEnum(&m.Value)
	case "const":
		if m.Value.Kind == String {
			c.chars += utf8.RuneCountInString(m.Value.Str)
		}
	case "properties":
		c.checkProperties(v, &m.Value, depth)
	case "required":
		c.checkRequired(v, &m.Value)
	case "additionalProperties":
		if isObj && !(m.Value.Kind == Bool && !m.Value.Bool) {
			c.report("\"additionalProperties\" must be false in strict mode: list every allowed property under \"properties\"")
		}
	case "items":
		c.schema(&m.Value, depth)
	case "anyOf", "oneOf", "prefixItems":
		c.schemaList(&m.Value, depth)
	case "$defs", "definitions":
		c.definitions(&m.Value)
	}
}

func (c *checker) checkType(t *Value) {
	const msg = "%s is not a JSON Schema type (one of %v)"
	if t.Kind != Array {
		if t.Kind != String || !slices.Contains(types, t.Str) {
			c.report(msg, describeValue(t), types)
		}
		return
	}
	for i := range t.Items {
		if n := &t.Items[i]; n.Kind != String || !slices.Contains(types, n.Str) {
			c.reportAt(strconv.Itoa(i), msg, describeValue(n), types)
		}
	}
}

func describeValue(v *Value) string {
	if v.Kind == String {
		return strconv.Quote(v.Str)
	}
	return "a JSON " + v.Kind.String()
}

func (c *checker) checkEnum(e *Value) {
	if e.Kind != Array {
		c.report("\"enum\" must be an array")
		return
	}
	c.enums += len(e.Items)
	strs, chars := 0, 0
	for _, it := range e.Items {
		if it.Kind == String {
			strs++
			chars += utf8.RuneCountInString(it.Str)
		}
	}
	c.chars += chars
	if strs > largeEnumValues && chars > maxLargeEnumText {
		c.report("this enum has %d string values totalling %d characters; strict mode allows at most %d characters in an enum of more than %d strings", strs, chars, maxLargeEnumText, largeEnumValues)
	}
}

func (c *checker) checkProperties(obj, props *Value, depth int) {
	if props.Kind != Object {
		c.report("\"properties\" must be an object")
		return
	}
	c.properties += len(props.Members)
	req := requiredSet(obj.Get("required"))
	for i := range props.Members {
		m := &props.Members[i]
		c.chars += utf8.RuneCountInString(m.Key)
		c.path = append(c.path, m.Key)
		if !req.has(m.Key) {
			c.report("property %q is not in \"required\": strict mode needs every property required; make an optional one nullable, as in \"type\": [\"string\", \"null\"]", m.Key)
		}
		c.schema(&m.Value, depth)
		c.path = c.path[:len(c.path)-1]
	}
}

// nameSet is the names a "required" array lists, or the keys of a
// "properties" object, for asking of each property whether it is listed:
// a scan for short lists, a map for long ones, so that checking an object
// of thousands of properties stays linear.
type nameSet struct {
	list *Value // an Array of names or an Object of keys; nil for none
	m    map[string]struct{}
}

// mapFrom is the length from which a nameSet builds a map.
const mapFrom = 16

// requiredSet returns the names the "required" value req lists.
func requiredSet(req *Value) nameSet {
	if req == nil || req.Kind != Array {
		return nameSet{}
	}
	s := nameSet{list: req}
	if len(req.Items) >= mapFrom {
		s.m = make(map[string]struct{}, len(req.Items))
		for _, it := range req.Items {
			if it.Kind == String {
				s.m[it.Str] = struct{}{}
			}
		}
	}
	return s
}

// propertySet returns the keys of the "properties" value props.
func propertySet(props *Value) nameSet {
	if props == nil || props.Kind != Object {
		return nameSet{}
	}
	s := nameSet{list: props}
	if len(props.Members) >= mapFrom {
		s.m = make(map[string]struct{}, len(props.Members))
		for _, m := range props.Members {
			s.m[m.Key] = struct{}{}
		}
	}
	return s
}

// has reports whether name is in the set.
func (s nameSet) has(name string) bool {
	switch {
	case s.m != nil:
		_, ok := s.m[name]
		return ok
	case s.list == nil:
		return false
	case s.list.Kind == Object:
		return s.list.Get(name) != nil
	}
	for _, it := range s.list.Items {
		if it.Kind == String && it.Str == name {
			return true
		}
	}
	return false
}

func (c *checker) checkRequired(obj, req *Value) {
	if req.Kind != Array {
		c.report("\"required\" must be an array of property names")
		return
	}
	props := propertySet(obj.Get("properties"))
	for i := range req.Items {
		it := &req.Items[i]
		if it.Kind != String {
			c.reportAt(strconv.Itoa(i), "\"required\" lists %s; it must list property names", describeValue(it))
			continue
		}
		if !props.has(it.Str) {
			c.reportAt(strconv.Itoa(i), "\"required\" names %q, which is not under \"properties\"", it.Str)
		}
	}
}

func (c *checker) schemaList(list *Value, depth int) {
	if list.Kind != Array {
		c.report("must be an array of schemas")
		return
	}
	for i := range list.Items {
		c.path = append(c.path, strconv.Itoa(i))
		c.schema(&list.Items[i], depth)
		c.path = c.path[:len(c.path)-1]
	}
}

// definitions checks "$defs": each definition is measured from depth 0,
// since where it lands depends on the "$ref" that uses it.
func (c *checker) definitions(defs *Value) {
	if defs.Kind != Object {
		c.report("must be an object of named schemas")
		return
	}
	for i := range defs.Members {
		m := &defs.Members[i]
		c.chars += utf8.RuneCountInString(m.Key)
		c.path = append(c.path, m.Key)
		c.schema(&m.Value, 0)
		c.path = c.path[:len(c.path)-1]
	}
}
