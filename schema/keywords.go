package schema

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// KeywordRules are the JSON Schema keywords a provider refuses in a schema
// it constrains a reply to, such as the keywords Anthropic's structured
// outputs and strict tools do not support. Make them with
// ParseKeywordRules; the zero value refuses nothing.
type KeywordRules struct {
	rules []keywordRule
}

// keywordRule refuses one keyword, or only its numbers above a limit.
type keywordRule struct {
	name     string
	above    float64
	hasAbove bool
}

// ParseKeywordRules reads rules written as keyword names ("minimum",
// "maxLength") or as a name and the largest number the provider accepts
// for it ("minItems>1" refuses minItems above 1 and keeps 0 and 1). Each
// rule must be written once.
func ParseKeywordRules(specs []string) (KeywordRules, error) {
	var r KeywordRules
	for _, s := range specs {
		name, limit, hasLimit := strings.Cut(s, ">")
		if !validKeyword(name) {
			return KeywordRules{}, fmt.Errorf("keyword rule %q: write a JSON Schema keyword such as minimum, or a keyword and the largest number allowed, such as minItems>1", s)
		}
		k := keywordRule{name: name, hasAbove: hasLimit}
		if hasLimit {
			f, err := strconv.ParseFloat(limit, 64)
			if err != nil || !validNumber(limit) {
				return KeywordRules{}, fmt.Errorf("keyword rule %q: %q is not a number: write the largest number allowed, as in minItems>1", s, limit)
			}
			k.above = f
		}
		if slices.ContainsFunc(r.rules, func(o keywordRule) bool { return o.name == name }) {
			return KeywordRules{}, fmt.Errorf("keyword rule %q: %s is listed twice: keep one", s, name)
		}
		r.rules = append(r.rules, k)
	}
	return r, nil
}

// validKeyword reports whether s can be a keyword: 1 to 64 ASCII letters,
// digits, '$' or '_', starting with a letter or '$'.
func validKeyword(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '$'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '_')) {
			return false
		}
	}
	return true
}

// Len returns how many keywords the rules name.
func (r KeywordRules) Len() int { return len(r.rules) }

// String returns the rules as ParseKeywordRules reads them, joined by
// ", ".
func (r KeywordRules) String() string {
	parts := make([]string, len(r.rules))
	for i, k := range r.rules {
		parts[i] = k.name
		if k.hasAbove {
			parts[i] += ">" + strconv.FormatFloat(k.above, 'f', -1, 64)
		}
	}
	return strings.Join(parts, ", ")
}

// refuses reports whether the member key: v of a schema breaks a rule.
func (r KeywordRules) refuses(key string, v *Value) bool {
	for _, k := range r.rules {
		if k.name != key {
			continue
		}
		if !k.hasAbove {
			return true
		}
		if v.Kind != Number {
			return false
		}
		f, err := strconv.ParseFloat(v.Str, 64)
		return err == nil && f > k.above
	}
	return false
}

// KeywordUse is one refused keyword in a schema.
type KeywordUse struct {
	// Pointer is the JSON Pointer of the keyword's member, such as
	// "/properties/age/minimum".
	Pointer string
	// Keyword is the keyword's name.
	Keyword string
}

// String returns the use as `minimum at "/properties/age"`: the keyword
// and the pointer of the schema that holds it.
func (u KeywordUse) String() string {
	return u.Keyword + " " + describePointer(u.Pointer[:len(u.Pointer)-len(escapeToken(u.Keyword))-1])
}

// FindKeywords returns every use in the schema v of a keyword the rules
// refuse, in document order. Keywords are looked for in schemas only: a
// property named "minimum" is not the keyword minimum, and neither is a
// key inside an enum, const, default or example value.
func (v Value) FindKeywords(r KeywordRules) []KeywordUse {
	if r.Len() == 0 {
		return nil
	}
	w := keywordWalker{rules: r, path: make([]string, 0, 16)}
	w.schema(v)
	return w.left
}

// MoveKeywords returns the schema v with each refused keyword it can word
// moved into its schema's description, and the keywords moved and those
// left, each in document order. "minimum": 3 becomes the sentence "Must
// be ≥ 3." at the end of the description (a description is added where
// there is none, in the place of the first keyword moved), so a model
// still reads the constraint that the provider would not enforce. The
// keywords it can word are the numeric bounds (minimum, maximum,
// exclusiveMinimum, exclusiveMaximum, multipleOf), the string bounds
// (minLength, maxLength, pattern, format), the array bounds (minItems,
// maxItems, uniqueItems) and the object bounds (minProperties,
// maxProperties); any other, or one whose value is not what the keyword
// takes, is left, as is every keyword of a schema whose description is
// not a string. v is not changed; the result shares with v every part it
// leaves as it was.
func (v Value) MoveKeywords(r KeywordRules) (fixed Value, moved, left []KeywordUse) {
	if r.Len() == 0 {
		return v, nil, nil
	}
	w := keywordWalker{rules: r, move: true, path: make([]string, 0, 16)}
	fixed, _ = w.schema(v)
	return fixed, w.moved, w.left
}

// keywordWalker finds, and when move is set moves, refused keywords.
type keywordWalker struct {
	rules       KeywordRules
	move        bool
	path        []string
	moved, left []KeywordUse
}

// schemaObjects are the keywords whose value is an object of schemas;
// schemaArrays, an array of schemas; schemaValues, one schema.
var (
	schemaObjects = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaArrays  = []string{"anyOf", "oneOf", "allOf", "prefixItems"}
	schemaValues  = []string{"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems"}
)

// schema walks the schema v with its pointer on w.path, returning it with
// the keywords moved and whether anything changed.
func (w *keywordWalker) schema(v Value) (Value, bool) {
	if v.Kind != Object {
		return v, false
	}
	members, owned := v.Members, false
	own := func() {
		if !owned {
			members = slices.Clone(members)
			owned = true
		}
	}
	// A description that is not a string cannot take the sentences: then
	// every keyword of this schema stays.
	di := memberIndex(v.Members, "description")
	canMove := w.move && (di < 0 || v.Members[di].Value.Kind == String)
	var sentences []string
	var movable []int // indexes of the members to move, in order
	for i := range v.Members {
		m := &v.Members[i]
		w.path = append(w.path, m.Key)
		if w.rules.refuses(m.Key, &m.Value) {
			use := KeywordUse{Pointer: pointer(w.path), Keyword: m.Key}
			s, ok := "", false
			if canMove {
				s, ok = sentence(m.Key, &m.Value)
			}
			if ok {
				movable = append(movable, i)
				if s != "" {
					sentences = append(sentences, s)
				}
				w.moved = append(w.moved, use)
			} else {
				w.left = append(w.left, use)
			}
		}
		if sub, changed := w.sub(m.Key, m.Value); changed {
			own()
			members[i].Value = sub
		}
		w.path = w.path[:len(w.path)-1]
	}
	if len(movable) == 0 {
		v.Members = members
		return v, owned
	}
	own()
	text := strings.Join(sentences, " ")
	out := make([]Member, 0, len(members)+1)
	for i, m := range members {
		switch {
		case i == movable[0] && di < 0:
			if text != "" {
				out = append(out, Member{Key: "description", Value: Value{Kind: String, Str: text}})
			}
		case slices.Contains(movable, i):
		case i == di:
			m.Value = Value{Kind: String, Str: addSentences(m.Value.Str, text)}
			out = append(out, m)
		default:
			out = append(out, m)
		}
	}
	v.Members = out
	return v, true
}

// sub walks the value of the member key of a schema when it holds
// schemas.
func (w *keywordWalker) sub(key string, v Value) (Value, bool) {
	switch {
	case slices.Contains(schemaValues, key):
		if key == "items" && v.Kind == Array {
			return w.list(v)
		}
		return w.schema(v)
	case slices.Contains(schemaArrays, key):
		return w.list(v)
	case slices.Contains(schemaObjects, key):
		if v.Kind != Object {
			return v, false
		}
		var out []Member
		for i := range v.Members {
			w.path = append(w.path, v.Members[i].Key)
			if sub, changed := w.schema(v.Members[i].Value); changed {
				if out == nil {
					out = slices.Clone(v.Members)
				}
				out[i].Value = sub
			}
			w.path = w.path[:len(w.path)-1]
		}
		if out == nil {
			return v, false
		}
		v.Members = out
		return v, true
	}
	return v, false
}

// list walks an array of schemas.
func (w *keywordWalker) list(v Value) (Value, bool) {
	if v.Kind != Array {
		return v, false
	}
	var out []Value
	for i := range v.Items {
		w.path = append(w.path, strconv.Itoa(i))
		if sub, changed := w.schema(v.Items[i]); changed {
			if out == nil {
				out = slices.Clone(v.Items)
			}
			out[i] = sub
		}
		w.path = w.path[:len(w.path)-1]
	}
	if out == nil {
		return v, false
	}
	v.Items = out
	return v, true
}

// sentence words the keyword key with the value v as a sentence for a
// description, and reports whether it can; "" with true means the keyword
// says nothing (uniqueItems: false) and can go without a word.
func sentence(key string, v *Value) (string, bool) {
	num := v.Kind == Number
	count := num && isCount(v.Str)
	switch {
	case key == "minimum" && num:
		return "Must be ≥ " + v.Str + ".", true
	case key == "maximum" && num:
		return "Must be ≤ " + v.Str + ".", true
	case key == "exclusiveMinimum" && num:
		return "Must be > " + v.Str + ".", true
	case key == "exclusiveMaximum" && num:
		return "Must be < " + v.Str + ".", true
	case key == "multipleOf" && num:
		return "Must be a multiple of " + v.Str + ".", true
	case key == "minLength" && count:
		return "Must be at least " + plural(v.Str, "character") + " long.", true
	case key == "maxLength" && count:
		return "Must be at most " + plural(v.Str, "character") + " long.", true
	case key == "pattern" && v.Kind == String:
		return "Must match the regular expression " + v.Str + ".", true
	case key == "format" && v.Kind == String:
		return "Must be in the " + v.Str + " format.", true
	case key == "minItems" && count:
		return "Must have at least " + plural(v.Str, "item") + ".", true
	case key == "maxItems" && count:
		return "Must have at most " + plural(v.Str, "item") + ".", true
	case key == "minProperties" && count:
		return "Must have at least " + plural(v.Str, "property") + ".", true
	case key == "maxProperties" && count:
		return "Must have at most " + plural(v.Str, "property") + ".", true
	case key == "uniqueItems" && v.Kind == Bool:
		if v.Bool {
			return "Items must be unique.", true
		}
		return "", true
	}
	return "", false
}

// isCount reports whether the number literal s is a whole number of
// digits, as counts are written.
func isCount(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// plural returns "n noun", with the noun plural unless n is 1.
func plural(n, noun string) string {
	if n == "1" {
		return n + " " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return n + " " + noun[:len(noun)-1] + "ies"
	}
	return n + " " + noun + "s"
}

// addSentences appends text to the description desc, after a full stop
// when desc does not end a sentence.
func addSentences(desc, text string) string {
	if text == "" {
		return desc
	}
	d := strings.TrimRight(desc, " \t\n")
	if d == "" {
		return text
	}
	switch d[len(d)-1] {
	case '.', '!', '?':
		return d + " " + text
	}
	return d + ". " + text
}
