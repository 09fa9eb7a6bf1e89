package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	``,
	`null`,
	`{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}},"required":["b"]}`,
	`{"a":{"b":[1,2.5e-3,-0,true,false,null,"x\u00e9\ud83d\ude00\n"]}}`,
	`{"a":1,"a":2}`,
	`{"a/b~c":{"type":"object","properties":{"x~1":{}}}}`,
	`[[[[[]]]]]`,
	`"\ud800"`,
	`{"type":"object","anyOf":[{"$ref":"#/$defs/x"}],"$defs":{"x":{"enum":["a",null]}}}`,
	`{"type":"object","properties":{"c":{"const":"k"},"e":{"type":"string","enum":["x"]}}}`,
	"{\"a\":\"\xff\"}",
	` 1 `,
	`{"type":"object","properties":{"m":{"type":"object"}},"additionalProperties":true}`,
	`{"type":"object","properties":{"caf\u00e9":{"type":"string","description":"say \"hi\" \/ \ud83d\ude00 \ude00\t"},"r\u0000":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"object","properties":{"k\\":{"enum":["\u0041",1]}}}}}`,
}

// tokens returns the token stream encoding/json reads from data, which
// captures member order as well as values.
func tokens(t *testing.T, data []byte) []json.Token {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var out []json.Token
	for {
		tok, err := d.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("encoding/json cannot read %q: %v", data, err)
			}
			return out
		}
		if n, ok := tok.(json.Number); ok {
			f, _ := n.Float64()
			tok = f // "1.0" and "1" are the same number
		}
		out = append(out, tok)
	}
}

// FuzzParse checks Parse against encoding/json: what Parse accepts is
// valid JSON with the same values in the same order, written back as
// compact JSON that parses to itself; what it rejects is invalid JSON,
// invalid UTF-8, a repeated key or too deep a nesting.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SyntaxError", err)
			}
			if se.Offset < 0 || se.Offset > len(data) {
				t.Fatalf("offset %d outside the input of %d bytes", se.Offset, len(data))
			}
			if se.Pointer != "" && se.Pointer[0] != '/' {
				t.Fatalf("pointer %q does not start with '/'", se.Pointer)
			}
			if json.Valid(data) && utf8.Valid(data) &&
				!strings.Contains(se.Msg, "more than once") && !strings.Contains(se.Msg, "deeper than") {
				t.Fatalf("rejected valid JSON %q: %v", data, err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		out := v.Append(nil)
		if !json.Valid(out) {
			t.Fatalf("Append wrote invalid JSON %q", out)
		}
		if !reflect.DeepEqual(tokens(t, data), tokens(t, out)) {
			t.Fatalf("values or order differ:\n in %q\nout %q", data, out)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, out); err != nil || !bytes.Equal(compact.Bytes(), out) {
			t.Fatalf("output is not compact: %q", out)
		}
		v2, err := Parse(out)
		if err != nil {
			t.Fatalf("output does not parse: %v", err)
		}
		if !bytes.Equal(v2.Append(nil), out) {
			t.Fatalf("Parse(Append(v)) is not v: %q", out)
		}
	})
}

// FuzzAppendCompact checks AppendCompact against encoding/json's Compact:
// the same bytes for every document both accept, and an error, with
// Parse's message, for the rest.
func FuzzAppendCompact(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		prefix := []byte("prefix:")
		out, err := AppendCompact(prefix, data)
		if !bytes.HasPrefix(out, prefix) {
			t.Fatalf("dst was not kept: %q", out)
		}
		var want bytes.Buffer
		jerr := json.Compact(&want, data)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SyntaxError", err)
			}
			if len(out) != len(prefix) {
				t.Fatalf("failed, yet appended %q", out[len(prefix):])
			}
			if jerr == nil && utf8.Valid(data) && !strings.Contains(se.Msg, "deeper than") {
				t.Fatalf("rejected valid JSON %q: %v", data, err)
			}
			return
		}
		if jerr != nil {
			t.Fatalf("accepted invalid JSON %q (encoding/json: %v)", data, jerr)
		}
		if !bytes.Equal(out[len(prefix):], want.Bytes()) {
			t.Fatalf("AppendCompact(%q)\n = %q\nwant %q", data, out[len(prefix):], want.Bytes())
		}
	})
}

// resolve follows a JSON Pointer into v, unescaping each token.
func resolve(v *Value, ptr string) (*Value, bool) {
	if ptr == "" {
		return v, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch v.Kind {
		case Object:
			if v = v.Get(tok); v == nil {
				return nil, false
			}
		case Array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v.Items) {
				return nil, false
			}
			v = &v.Items[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// FuzzCheckStrict checks that CheckStrict never fails on any input, that
// every violation's pointer leads to a value in the schema, and that
// Strictify keeps property order, is idempotent, and reports exactly
// what CheckStrict finds in its result.
func FuzzCheckStrict(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		vs := CheckStrict(data)
		v, err := Parse(data)
		if err != nil {
			if len(vs) != 1 {
				t.Fatalf("unparsable input gave %d violations, want 1", len(vs))
			}
			return
		}
		for _, x := range vs {
			if _, ok := resolve(&v, x.Pointer); !ok {
				t.Fatalf("violation %v points at nothing in %q", x, data)
			}
		}
		out, left, err := Strictify(data)
		if err != nil {
			t.Fatalf("Strictify failed on JSON that parses: %v", err)
		}
		if got := CheckStrict(out); violationList(got) != violationList(left) {
			t.Fatalf("Strictify reported\n%sbut CheckStrict of its output finds\n%s", violationList(left), violationList(got))
		}
		again, left2, err := Strictify(out)
		if err != nil || !bytes.Equal(again, out) || violationList(left2) != violationList(left) {
			t.Fatalf("Strictify is not idempotent:\n%q\n%q", out, again)
		}
		if len(left) > len(vs) {
			t.Fatalf("Strictify left %d violations of %d:\n%s", len(left), len(vs), violationList(left))
		}
		if v.Kind == Object {
			w, _ := Parse(out)
			if p, q := v.Get("properties"), w.Get("properties"); p != nil && p.Kind == Object {
				if q == nil || len(q.Members) != len(p.Members) {
					t.Fatalf("properties lost: %q", out)
				}
				for i := range p.Members {
					if p.Members[i].Key != q.Members[i].Key {
						t.Fatalf("property order changed: %q", out)
					}
				}
			}
		}
	})
}

// FuzzValuePath checks that a schema parsed once and then checked, fixed
// and written through Value's methods gives what the functions give from
// its bytes, and that none of the methods changes the Value
// (checkValuePath says exactly what is compared).
func FuzzValuePath(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	for _, c := range checkStrictCases {
		f.Add([]byte(c.schema))
	}
	for _, c := range strictifyCases {
		f.Add([]byte(c.in))
	}
	f.Add([]byte(triageSchema))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkValuePath(t, data)
	})
}
