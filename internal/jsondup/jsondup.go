// Package jsondup finds the keys that are repeated within one object of a
// JSON text. encoding/json keeps the last of two equal keys without a word;
// a file a person edits should say instead that one of them is a mistake.
package jsondup

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Repeat is a key written twice in the same object.
type Repeat struct {
	// Key is the member name, unescaped.
	Key string
	// Path locates the object, such as "nodes[2]" ("" for the top level).
	Path string
	// First and Second are the byte offsets of the two keys' opening
	// quotes.
	First, Second int
}

// frame is an object or array being scanned.
type frame struct {
	object bool
	// name is how the parent reaches this value: the member's key in
	// an object (start and end of its quotes), or the element's index
	// in an array.
	keyStart, keyEnd, index int
	// next is the index the next element of this array gets.
	next int
	// keys is where this object's keys begin in the shared key list;
	// many holds them by name once the object is large.
	keys int
	many map[string]int
	// lastKey is the last key read in this object (its quotes).
	lastStart, lastEnd int
}

// Find returns every repeated key of the valid JSON text data, in the order
// the second occurrences appear. Its result for invalid JSON is
// unspecified, but it never panics and always returns. It allocates only
// to grow its stacks and to report repeats.
func Find(data []byte) []Repeat {
	var (
		out      []Repeat
		stackBuf [16]frame
		keyBuf   [32]keyAt
		stack    = stackBuf[:0]
		keys     = keyBuf[:0] // the keys of the open objects, innermost last
	)
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '{', '[':
			f := frame{object: c == '{', keys: len(keys), keyStart: -1, index: -1, lastStart: -1}
			if n := len(stack); n > 0 {
				p := &stack[n-1]
				if p.object {
					f.keyStart, f.keyEnd = p.lastStart, p.lastEnd
				} else {
					f.index = p.next
					p.next++
				}
			}
			stack = append(stack, f)
		case '}', ']':
			if n := len(stack); n > 0 {
				keys = keys[:stack[n-1].keys]
				stack = stack[:n-1]
			}
		case '"':
			start := i
			end, escaped := stringEnd(data, i)
			i = end
			top := len(stack) - 1
			if top < 0 {
				continue
			}
			f := &stack[top]
			if !f.object || !followedByColon(data, end+1) {
				if !f.object {
					f.next++ // a string element of an array
				}
				continue
			}
			f.lastStart, f.lastEnd = start, end
			// A key with an escape, or with bytes that are not UTF-8 (which
			// a decoder reads as U+FFFD), is compared by its decoded name.
			escaped = escaped || !utf8.Valid(data[start+1:end])
			k := keyAt{at: start, end: end, escaped: escaped}
			if escaped {
				k.s = unescape(data[start : end+1])
			}
			first, found := -1, false
			if f.many != nil {
				first, found = f.many[k.name(data)]
				if !found {
					f.many[k.name(data)] = start
				}
			} else {
				for _, o := range keys[f.keys:] {
					if o.same(data, k) {
						first, found = o.at, true
						break
					}
				}
				if !found {
					keys = append(keys, k)
					if len(keys)-f.keys > smallObject {
						f.many = make(map[string]int, 2*smallObject)
						for _, o := range keys[f.keys:] {
							f.many[o.name(data)] = o.at
						}
						keys = keys[:f.keys]
					}
				}
			}
			if found {
				out = append(out, Repeat{Key: k.name(data), Path: path(data, stack[:top+1]), First: first, Second: start})
			}
		default:
			// A scalar element of an array: count it once, at its first
			// byte.
			if top := len(stack) - 1; top >= 0 && !stack[top].object && scalarStart(c) && (i == 0 || !scalarByte(data[i-1])) {
				stack[top].next++
			}
		}
	}
	return out
}

// path names the innermost of the open values in stack, as
// "nodes[2].includes".
func path(data []byte, stack []frame) string {
	var b strings.Builder
	for _, f := range stack[1:] {
		switch {
		case f.keyStart >= 0 && f.keyEnd > f.keyStart:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(keyAt{at: f.keyStart, end: f.keyEnd, escaped: needsDecoding(data[f.keyStart:f.keyEnd]), s: unescapeIf(data[f.keyStart : f.keyEnd+1])}.name(data))
		case f.index >= 0:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(f.index))
			b.WriteByte(']')
		}
	}
	return b.String()
}

func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

func needsDecoding(b []byte) bool { return hasEscape(b) || !utf8.Valid(b) }

func unescapeIf(quoted []byte) string {
	if needsDecoding(quoted) {
		return unescape(quoted)
	}
	return ""
}

// unescape decodes a quoted JSON string; an invalid one is returned as it
// is written, without its quotes.
func unescape(quoted []byte) string {
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		if len(quoted) < 2 {
			return string(quoted)
		}
		return string(quoted[1 : len(quoted)-1])
	}
	return s
}

// smallObject is how many keys an object holds before they are kept in a
// map rather than compared one by one.
const smallObject = 16

// keyAt is a key of an object: its opening quote's offset, its closing
// quote's, and its unescaped text when it holds an escape.
type keyAt struct {
	at, end int
	s       string
	escaped bool
}

// same reports whether k and o name the same key.
func (k keyAt) same(data []byte, o keyAt) bool {
	if !k.escaped && !o.escaped {
		return string(data[k.at+1:k.end]) == string(data[o.at+1:o.end])
	}
	return k.name(data) == o.name(data)
}

// name returns k's unescaped text.
func (k keyAt) name(data []byte) string {
	if k.escaped {
		return k.s
	}
	return string(data[k.at+1 : k.end])
}

// stringEnd returns the offset of the closing quote of the string opening
// at data[i], and whether the string holds an escape.
func stringEnd(data []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j, escaped
		}
	}
	return len(data), escaped
}

func followedByColon(data []byte, i int) bool {
	for ; i < len(data); i++ {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
		case ':':
			return true
		default:
			return false
		}
	}
	return false
}

func scalarStart(c byte) bool {
	return c == '-' || c >= '0' && c <= '9' || c == 't' || c == 'f' || c == 'n'
}

func scalarByte(c byte) bool {
	return scalarStart(c) || c >= 'a' && c <= 'z' || c == '.' || c == '+' || c == 'E'
}
