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

// FuzzSpecParse checks the reply reader, strict and tolerant, on
// arbitrary replies: no panic; a value returned is valid JSON that
// matches the schema and has no key the schema does not declare; a reply
// that reads strictly reads the same tolerantly, with no repairs; every
// repair is at a place in the reply; errors keep the reply.
func FuzzSpecParse(f *testing.F) {
	s, err := Compile("f", []byte(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"array","items":{"type":"object","properties":{"c":{"type":"string"}}}}},"required":["a"]}`))
	if err != nil {
		f.Fatal(err)
	}
	for _, r := range []string{
		`{"a": 1}`, "```json\n{\"a\": 2, \"b\": [{\"c\": \"x\"}]}\n```", `[{"a": 1}]`, `{"items": [{"a": 1}], "x": 2}`,
		"{a: 1, 'b': [{c: 'x',},], // note\n}", `{"a": 1, "b": [{"c": "x`, "{\"a\": True /* t */}", `{"a": None}`,
		`{"a": 1, "a": 2}`, `{"a": "\ud83d\ude00\u00e9"}`, `if x { y } {"a": 3}`, `[[[[[[`, "{\"a\":1,\"z\":{\"q\":[1,2,{\"r\":null}]}}",
	} {
		f.Add([]byte(r), true, false, false)
		f.Add([]byte(r), false, true, true)
	}
	f.Fuzz(func(t *testing.T, reply []byte, tolerant, ignore, array bool) {
		sp := Spec{Name: "f", Schema: s, Tolerant: tolerant}
		if ignore {
			sp.Extra = Ignore
		}
		if array {
			sp.Container = Array
		}
		res, err := sp.Parse(reply)
		if err != nil {
			if e, ok := err.(*Error); !ok || e.Reply != string(reply) {
				t.Fatalf("error %T %v does not keep the reply", err, err)
			}
			return
		}
		if !json.Valid(res.Value) {
			t.Fatalf("not valid JSON: %s", res.Value)
		}
		for _, r := range res.Repairs {
			if r.Offset < 0 || r.Offset > len(reply) || r.Line < 1 || r.Col < 1 {
				t.Fatalf("repair %+v is not in the reply", r)
			}
		}
		if !array {
			if probs := s.Check(res.Value); len(probs) > 0 {
				t.Fatalf("%s does not match: %v", res.Value, probs)
			}
			var top map[string]json.RawMessage
			if err := json.Unmarshal(res.Value, &top); err != nil {
				t.Fatal(err)
			}
			for k := range top {
				if k != "a" && k != "b" {
					t.Fatalf("undeclared key %q kept: %s", k, res.Value)
				}
			}
		}
		if tolerant {
			strict := sp
			strict.Tolerant = false
			if sres, err := strict.Parse(reply); err == nil {
				if string(sres.Value) != string(res.Value) || len(res.Repairs) != 0 {
					t.Fatalf("strict %s, tolerant %s with %d repairs", sres.Value, res.Value, len(res.Repairs))
				}
			}
		}
	})
}
