package schema

import (
	"encoding/json"
	"strconv"
)

// Kind is the type of a JSON value.
type Kind uint8

const (
	// Null is the JSON null.
	Null Kind = iota
	// Bool is true or false.
	Bool
	// Number is a JSON number, kept as written.
	Number
	// String is a JSON string.
	String
	// Array is a JSON array.
	Array
	// Object is a JSON object, its members in the order written.
	Object
)

var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

// String returns the JSON name of the kind: "null", "boolean", "number",
// "string", "array" or "object".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid(" + strconv.Itoa(int(k)) + ")"
}

// Value is a JSON value that keeps the members of its objects in the order
// they were written. The zero Value is null.
//
// A Value is immutable once built. Parse builds a new one; nothing in this
// package changes a Value it is given, and Value.Strictify returns a new
// Value that shares with its input every part it leaves as it was. So a
// schema can be parsed once and then checked, fixed and written as often
// as needed, from any number of goroutines, without being read again.
// Code outside the package must keep to the same rule: the fields are
// exported to be read, and a different Value is built anew rather than
// changed in place, since a change to a shared part would show in every
// Value that holds it.
type Value struct {
	// Kind is the value's type; it says which other field holds the value.
	Kind Kind
	// Bool is a Bool's value.
	Bool bool
	// Str is a String's text, unescaped, or a Number's literal exactly as
	// written (so 1.0 stays 1.0).
	Str string
	// Items are an Array's elements.
	Items []Value
	// Members are an Object's members, in order, each key once.
	Members []Member
	// lit is the literal Parse read for a String written with escapes,
	// quotes included, or nil. AppendCompact writes it again only while
	// it decodes to Str, so a copy whose Str was changed is written as
	// it now is.
	lit *string
}

// Member is one key and value of a JSON object.
type Member struct {
	// Key is the member's name, unescaped.
	Key string
	// Value is the member's value.
	Value Value
	// lit is the literal Parse read for Key, if written with escapes, as
	// Value.lit is for a String.
	lit *string
}

// Get returns the value of the object member named key, or nil when v is
// not an object or has no such member. The pointer is into v's members
// and is for reading: a Value is immutable once built.
func (v *Value) Get(key string) *Value {
	if v.Kind != Object {
		return nil
	}
	for i := range v.Members {
		if v.Members[i].Key == key {
			return &v.Members[i].Value
		}
	}
	return nil
}

// Raw returns the compact JSON of the value at the path of object keys
// below v (v itself for no keys), or nil when there is none.
func (v *Value) Raw(keys ...string) json.RawMessage {
	for _, k := range keys {
		if v = v.Get(k); v == nil {
			return nil
		}
	}
	return v.Append(nil)
}
