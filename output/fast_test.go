package output

import (
	"testing"
)

var fastSchemas = []string{
	`{"type":"object","properties":{"file":{"type":"string","minLength":1,"maxLength":8},"line":{"type":"integer","minimum":1,"maximum":100},"severity":{"enum":["blocking","nit"]},"tags":{"type":"array","items":{"type":"string"}}},"required":["file","line"],"additionalProperties":false}`,
	`{"type":["object","null"],"properties":{"n":{"type":"number"},"b":{"type":"boolean"}},"additionalProperties":{"type":"integer"}}`,
	`{"type":"array","items":{"type":["string","integer"],"maximum":3}}`,
	`{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"t","description":"d","type":"integer"}`,
	`{}`,
}

// TestFastKnows: the fast check knows the schemas it should, and leaves
// the others to the validator.
func TestFastKnows(t *testing.T) {
	for _, s := range fastSchemas {
		if mustCompile(t, s).fast == nil {
			t.Errorf("%s: not known to the fast check", s)
		}
	}
	for _, s := range []string{`{"$ref":"#/$defs/a","$defs":{"a":{}}}`, `{"anyOf":[{}]}`, `{"pattern":"a"}`, `{"format":"email"}`, `{"$schema":"http://json-schema.org/draft-07/schema#"}`, `{"minimum":1.5}`, `{"enum":[1]}`} {
		if mustCompile(t, s).fast != nil {
			t.Errorf("%s: known to the fast check", s)
		}
	}
}

// FuzzFastCheck: a value the fast check passes, the validator passes.
func FuzzFastCheck(f *testing.F) {
	for i := range fastSchemas {
		for _, v := range []string{`{"file":"a","line":3}`, `{"file":"","line":0,"x":1}`, `{"n":1.5,"b":true,"z":2}`, `[1,"a",4]`, `1.0`, `1e2`, `null`, `{"file":"a","line":3,"file":"b"}`, `{"file":"ééééééééé","line":100,"severity":"nit","tags":["x"]}`} {
			f.Add(uint8(i), []byte(v))
		}
	}
	schemas := make([]*Schema, len(fastSchemas))
	for i, s := range fastSchemas {
		c, err := Compile("f", []byte(s))
		if err != nil {
			f.Fatal(err)
		}
		schemas[i] = c
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		s := schemas[int(which)%len(schemas)]
		r := reader{src: data}
		v := r.read(0)
		if v == nil {
			return
		}
		r.ws()
		if r.i != len(data) || !fastOK(v, s.fast) {
			return
		}
		if err := s.s.Validate(toAny(v)); err != nil {
			t.Fatalf("the fast check passed %s, the validator says %v", data, err)
		}
	})
}
