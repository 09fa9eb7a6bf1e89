package output

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// fastNode is a schema written only with the keywords the fast check
// knows. A value the fast check passes is valid under the full
// validator too, so the validator is skipped; a value it does not pass
// goes to the validator, whose messages are the ones reported. The fast
// check never rejects on its own.
type fastNode struct {
	types    uint8 // typeNull | typeBool | ...; 0: any
	props    map[string]*fastNode
	required []string
	closed   bool      // additionalProperties: false
	addl     *fastNode // additionalProperties: a schema
	items    *fastNode
	enum     []string // a string enum; nil: none
	minLen   int      // -1: none
	maxLen   int
	min, max *int64 // integer bounds; nil: none
}

const (
	typeNull uint8 = 1 << iota
	typeBool
	typeInteger
	typeNumber
	typeString
	typeArray
	typeObject
)

var typeBits = map[string]uint8{"null": typeNull, "boolean": typeBool, "integer": typeInteger, "number": typeNumber, "string": typeString, "array": typeArray, "object": typeObject}

// fastOf returns the fast form of schema s, or nil when s uses anything
// the fast check does not know (references, combinators, patterns,
// formats, another draft...).
func fastOf(s *value, depth int) *fastNode {
	if s == nil || s.kind != '{' || depth > maxDepth {
		return nil
	}
	n := &fastNode{minLen: -1, maxLen: -1}
	for _, m := range s.members {
		v := m.val
		switch m.key {
		case "title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly":
		case "$schema":
			if v.kind != '"' || v.text != "https://json-schema.org/draft/2020-12/schema" {
				return nil
			}
		case "type":
			switch v.kind {
			case '"':
				b, ok := typeBits[v.text]
				if !ok {
					return nil
				}
				n.types = b
			case '[':
				for _, e := range v.elems {
					b, ok := typeBits[e.text]
					if e.kind != '"' || !ok {
						return nil
					}
					n.types |= b
				}
			default:
				return nil
			}
		case "properties":
			if v.kind != '{' {
				return nil
			}
			n.props = make(map[string]*fastNode, len(v.members))
			for _, p := range v.members {
				sub := fastOf(p.val, depth+1)
				if sub == nil {
					return nil
				}
				n.props[p.key] = sub
			}
		case "required":
			if v.kind != '[' {
				return nil
			}
			for _, e := range v.elems {
				if e.kind != '"' {
					return nil
				}
				n.required = append(n.required, e.text)
			}
		case "additionalProperties":
			switch v.kind {
			case 'f':
				n.closed = true
			case 't':
			case '{':
				if n.addl = fastOf(v, depth+1); n.addl == nil {
					return nil
				}
			default:
				return nil
			}
		case "items":
			if n.items = fastOf(v, depth+1); n.items == nil {
				return nil
			}
		case "enum":
			if v.kind != '[' {
				return nil
			}
			n.enum = []string{}
			for _, e := range v.elems {
				if e.kind != '"' {
					return nil
				}
				n.enum = append(n.enum, e.text)
			}
		case "minLength", "maxLength":
			i, err := strconv.Atoi(v.text)
			if v.kind != '0' || err != nil || i < 0 {
				return nil
			}
			if m.key == "minLength" {
				n.minLen = i
			} else {
				n.maxLen = i
			}
		case "minimum", "maximum":
			i, err := strconv.ParseInt(v.text, 10, 64)
			if v.kind != '0' || err != nil {
				return nil
			}
			if m.key == "minimum" {
				n.min = &i
			} else {
				n.max = &i
			}
		default:
			return nil
		}
	}
	return n
}

// fastOK reports whether v certainly matches n. False means "not
// known": the full validator decides.
func fastOK(v *value, n *fastNode) bool {
	if n.types != 0 {
		var bit uint8
		switch v.kind {
		case 'n':
			bit = typeNull
		case 't', 'f':
			bit = typeBool
		case '"':
			bit = typeString
		case '[':
			bit = typeArray
		case '{':
			bit = typeObject
		case '0':
			bit = typeNumber
			if !strings.ContainsAny(v.text, ".eE") {
				bit |= typeInteger
			} else if n.types&typeNumber == 0 {
				return false // 1.0 is an integer to the validator: let it say
			}
		}
		if n.types&bit == 0 {
			return false
		}
	}
	if n.enum != nil && (v.kind != '"' || !contains(n.enum, v.text)) {
		return false
	}
	if v.kind == '"' && (n.minLen >= 0 || n.maxLen >= 0) {
		l := utf8.RuneCountInString(v.text)
		if n.minLen >= 0 && l < n.minLen || n.maxLen >= 0 && l > n.maxLen {
			return false
		}
	}
	if v.kind == '0' && (n.min != nil || n.max != nil) {
		i, err := strconv.ParseInt(v.text, 10, 64)
		if err != nil || n.min != nil && i < *n.min || n.max != nil && i > *n.max {
			return false
		}
	}
	switch v.kind {
	case '{':
		for i, m := range v.members {
			for _, prev := range v.members[:i] {
				if prev.key == m.key {
					return false
				}
			}
			sub, ok := n.props[m.key]
			switch {
			case ok:
			case n.closed:
				return false
			default:
				sub = n.addl
			}
			if sub != nil && !fastOK(m.val, sub) {
				return false
			}
		}
		for _, r := range n.required {
			if v.get(r) == nil {
				return false
			}
		}
	case '[':
		if n.items != nil {
			for _, e := range v.elems {
				if !fastOK(e, n.items) {
					return false
				}
			}
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
