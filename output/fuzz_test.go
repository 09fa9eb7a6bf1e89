package output

import (
	"encoding/json"
	"testing"
)

// FuzzExtract checks that what Extract finds is where it says,
// opens as asked, and is balanced.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{"{}", "x {\"a\": [1]} y", "```json\n[1]\n```", "~~~\n{\"a\": \"}\"}\n~~~", "{\"a\": \"\\\"}\"}", "[{]}"} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, object bool) {
		open := byte('[')
		if object {
			open = '{'
		}
		got, off, ok := Extract(data, open)
		if !ok {
			return
		}
		if off < 0 || off+len(got) > len(data) || string(data[off:off+len(got)]) != string(got) {
			t.Fatalf("offset %d does not locate %q", off, got)
		}
		if len(got) == 0 || got[0] != open {
			t.Fatalf("%q does not open with %c", got, open)
		}
	})
}

// FuzzParse checks that Parse never panics, that what it returns is
// compact valid JSON that matches the schema, and that its errors keep
// the reply.
func FuzzParse(f *testing.F) {
	s, err := Compile("f", []byte(`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`))
	if err != nil {
		f.Fatal(err)
	}
	for _, r := range []string{`{"a": 1}`, "```json\n{\"a\": 2}\n```", `{"a": "x"}`, `nothing`, `{"a": 1,}`, `[{"a": 1}]`} {
		f.Add([]byte(r))
	}
	f.Fuzz(func(t *testing.T, reply []byte) {
		got, err := Parse("f", reply, '{', s)
		if err != nil {
			if e, ok := err.(*Error); !ok || e.Reply != string(reply) {
				t.Fatalf("error %T %v does not keep the reply", err, err)
			}
			return
		}
		if !json.Valid(got) || len(s.Check(got)) != 0 {
			t.Fatalf("Parse returned %q, which is not valid or does not match", got)
		}
	})
}
