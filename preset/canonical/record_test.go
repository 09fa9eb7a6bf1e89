package canonical

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// fill sets every field of v that can be set to a value that is not zero,
// from values, taken in turn: lists get two items, pointers a value, JSON
// Schemas a small object.
func fill(v reflect.Value, values []string, n *int) {
	next := func() string { s := values[*n%len(values)]; *n++; return s }
	switch v.Kind() {
	case reflect.String:
		v.SetString(next())
	case reflect.Int:
		v.SetInt(int64(1 + *n%5))
		*n++
	case reflect.Bool:
		v.SetBool(*n%2 == 0)
		*n++
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), values, n)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), values, n)
			}
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			d, _ := json.Marshal(next())
			v.SetBytes([]byte(`{"type":"object","description":` + string(d) + `}`))
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		fill(s.Index(0), values, n)
		fill(s.Index(1), values, n)
		v.Set(s)
	default:
		panic("fill: " + v.Type().String())
	}
}

// TestMarshalRecord checks that the record's spec is written as
// json.Marshal writes it: with every field of every type set, with
// fields empty and absent, with text that needs escaping, and for the
// example specs.
func TestMarshalRecord(t *testing.T) {
	check := func(name string, s *Spec) {
		t.Helper()
		got, err := s.marshalRecord()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n%s\nwant\n%s", name, got, want)
		}
	}
	values := []string{"plain", "", "<b>&amp;</b>", "a \"quote\" and \\", "line\nbreak\ttab\r\b\f\x00\x1f\x7f", "\u2028\u2029 é ☃ \U0001F600", "bad \xff utf-8", "~~~"}
	for start := range values {
		var s Spec
		n := start
		fill(reflect.ValueOf(&s).Elem(), values, &n)
		check("filled", &s)
		// Empty lists and null fields.
		s.SystemPrompt.Rules, s.Task, s.Identity.Traits = nil, nil, []string{}
		s.Task = []TaskAnnotation{}
		check("emptied", &s)
	}
	check("zero", &Spec{})
	// JSON Schemas that encoding/json compacts or escapes.
	for _, raw := range []string{`{ "a" : [1, 2] }`, "{\"a\":\n1}", `{"a":"<tag>"}`, `{"a":"x & y"}`, `{"a":"` + "\u2028" + `"}`, `{"a":"sp ace","b":"\"quoted\" \\"}`} {
		s := Spec{Task: []TaskAnnotation{{Instruction: "x", OutputFormat: &FormatSpec{Type: "json", JSONSchema: json.RawMessage(raw)}}}, Tools: []Tool{{Name: "t", Parameters: json.RawMessage(raw)}}}
		check(raw, &s)
	}
	for _, p := range specFiles(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ParseSpec(p, data)
		if err != nil {
			t.Fatal(err)
		}
		check(p, s)
		w := recordWriter{}
		if w.spec(s); w.slow {
			t.Errorf("%s: written by json.Marshal", p)
		}
	}
}

// specFiles returns the example specs and the assembly fixture's spec.
func specFiles(t testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "canonical", "*.yaml"))
	files = append(files, filepath.Join("testdata", "assembly", "spec.yaml"))
	if len(files) < 3 {
		t.Fatal("no spec files")
	}
	return files
}
