package schema

import (
	"slices"
	"strings"
	"testing"
)

// FuzzCheckMeta: CheckMeta never panics, gives the same problems twice
// in the same order, and each problem has a message and a pointer that
// is a JSON Pointer.
func FuzzCheckMeta(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"q":{"type":"strnig"}}}`,
		`{"type":"object","properties":[],"required":"x"}`,
		`{"$ref":"#/$defs/a","$defs":{"b":{}}}`,
		`{"$id":"https://e.com/s","$defs":{"a":{"$id":"a.json","$anchor":"x"}},"$ref":"a.json#x"}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","items":[{"type":"int"}],"id":"#a"}`,
		`{"$ref":"%zz"}`,
		`{"allOf":[{"not":{"items":{"$ref":"#/allOf/0"}}}],"dependencies":{"a":["b"],"c":{"type":"x"}}}`,
		`{"properties":{"a":{"minLength":-1,"multipleOf":0,"$anchor":"1"}}}`,
		nested(70),
		`true`, `[]`, `"x"`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		a, b := CheckMeta(doc), CheckMeta(doc)
		if !slices.Equal(a, b) {
			t.Fatalf("two runs differ:\n%v\n%v", a, b)
		}
		for _, p := range a {
			if p.Msg == "" || p.Pointer != "" && !strings.HasPrefix(p.Pointer, "/") {
				t.Fatalf("bad problem %#v", p)
			}
		}
	})
}
