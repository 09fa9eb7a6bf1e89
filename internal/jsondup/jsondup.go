// Package jsondup finds the keys that are repeated within one object of a
// JSON text. encoding/json keeps the last of two equal keys without a word;
// a file a person edits should say instead that one of them is a mistake.
package jsondup

import (
	"encoding/json"
	"strconv"
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

// Find returns every repeated key of the valid JSON text data, in the order
// the second occurrences appear. Its result for invalid JSON is
// unspecified, but it never panics and always returns.
func Find(data []byte) []Repeat {
	type frame struct {
		object bool
		path   string
		keys   map[string]int
		index  int    // next array element
		key    string // last key read in an object
	}
	var (
		out   []Repeat
		stack []frame
	)
	child := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := &stack[len(stack)-1]
		if f.object {
			if f.path == "" {
				return f.key
			}
			return f.path + "." + f.key
		}
		p := f.path + "[" + strconv.Itoa(f.index) + "]"
		f.index++
		return p
	}
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '{', '[':
			stack = append(stack, frame{object: c == '{', path: child()})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case '"':
			start := i
			end, escaped := stringEnd(data, i)
			i = end
			top := len(stack) - 1
			if top < 0 || !stack[top].object || !followedByColon(data, end+1) {
				if top >= 0 && !stack[top].object {
					child() // a string element of an array
				}
				continue
			}
			key := string(data[start+1 : end])
			if escaped {
				var s string
				if json.Unmarshal(data[start:end+1], &s) == nil {
					key = s
				}
			}
			f := &stack[top]
			f.key = key
			if f.keys == nil {
				f.keys = map[string]int{}
			}
			if first, ok := f.keys[key]; ok {
				out = append(out, Repeat{Key: key, Path: f.path, First: first, Second: start})
			} else {
				f.keys[key] = start
			}
		default:
			// A scalar element of an array: count it once, at its first
			// byte.
			if top := len(stack) - 1; top >= 0 && !stack[top].object && scalarStart(c) && (i == 0 || !scalarByte(data[i-1])) {
				child()
			}
		}
	}
	return out
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
