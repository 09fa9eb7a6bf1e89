package schema

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
)

// checkValuePath checks that a schema parsed once gives, through the
// Value methods, what the functions give from its bytes: the same
// violations from CheckStrict, the same bytes from AppendCompact, the
// same bytes and violations from Strictify. It also checks that none of
// them changes the Value, and that the fixed Value, written by its
// AppendCompact, is the JSON that the old path (Strictify's bytes copied
// by the function AppendCompact) puts in a request body: the same bytes
// where the schema has no escapes to keep, the same values in the same
// order where it has.
func checkValuePath(t testing.TB, data []byte) {
	t.Helper()
	vs := CheckStrict(data)
	v, err := Parse(data)
	if err != nil {
		return // the Value path starts from a parsed Value
	}
	before, _ := Parse(data)

	if got := v.CheckStrict(); !slices.Equal(got, vs) {
		t.Fatalf("%.80q: Value.CheckStrict gives\n%swant\n%s", data, violationList(got), violationList(vs))
	}

	prefix := []byte("<")
	want, err := AppendCompact(prefix, data)
	if err != nil {
		t.Fatalf("%.80q: AppendCompact fails on JSON that parses: %v", data, err)
	}
	if got := v.AppendCompact(prefix); !bytes.Equal(got, want) {
		t.Fatalf("Value.AppendCompact gives\n%q\nwant\n%q", got, want)
	}

	out, left, err := Strictify(data)
	if err != nil {
		t.Fatalf("%.80q: Strictify fails on JSON that parses: %v", data, err)
	}
	fixed, left2 := v.Strictify()
	if got := fixed.Append(nil); !bytes.Equal(got, out) {
		t.Fatalf("Value.Strictify then Append gives\n%q\nwant\n%q", got, out)
	}
	if !slices.Equal(left2, left) {
		t.Fatalf("%.80q: Value.Strictify leaves\n%swant\n%s", data, violationList(left2), violationList(left))
	}

	body, err := AppendCompact(nil, out)
	if err != nil {
		t.Fatalf("AppendCompact fails on Strictify's output %q: %v", out, err)
	}
	got := fixed.AppendCompact(nil)
	if bytes.Equal(v.AppendCompact(nil), v.Append(nil)) {
		if !bytes.Equal(got, body) {
			t.Fatalf("the fixed schema's AppendCompact gives\n%q\nthe bytes path gives\n%q", got, body)
		}
	} else if w, err := Parse(got); err != nil || !bytes.Equal(w.Append(nil), out) {
		t.Fatalf("the fixed schema's AppendCompact gives\n%q\n(%v), not the JSON of\n%q", got, err, out)
	}

	again, left3 := fixed.Strictify()
	if !bytes.Equal(again.AppendCompact(nil), got) || !slices.Equal(left3, left) {
		t.Fatalf("Value.Strictify is not idempotent:\n%q\n%q", got, again.AppendCompact(nil))
	}
	if !reflect.DeepEqual(v, before) {
		t.Fatalf("%.80q: the Value changed:\n%q\nwas\n%q", data, v.AppendCompact(nil), before.AppendCompact(nil))
	}
}

// TestValuePathMatchesBytes runs checkValuePath on every schema the
// tests and fuzz seeds hold, and the bundled example schemas.
func TestValuePathMatchesBytes(t *testing.T) {
	var schemas []string
	schemas = append(schemas, fuzzSeeds...)
	for _, c := range checkStrictCases {
		schemas = append(schemas, c.schema)
	}
	for _, c := range strictifyCases {
		schemas = append(schemas, c.in, c.out)
	}
	for _, c := range limitCases() {
		schemas = append(schemas, c.schema)
	}
	schemas = append(schemas, triageSchema)
	files, err := filepath.Glob(filepath.Join("..", "examples", "seed", "schemas", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example schemas: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		schemas = append(schemas, string(b))
	}
	parsed := 0
	for _, s := range schemas {
		checkValuePath(t, []byte(s))
		if _, err := Parse([]byte(s)); err == nil {
			parsed++
		}
	}
	if parsed < len(schemas)*3/4 {
		t.Errorf("only %d of %d schemas parse: the comparison covers too little", parsed, len(schemas))
	}
}

// cloneValue returns a copy of v that shares no slice with it.
func cloneValue(v Value) Value {
	if v.Items != nil {
		v.Items = slices.Clone(v.Items)
		for i := range v.Items {
			v.Items[i] = cloneValue(v.Items[i])
		}
	}
	if v.Members != nil {
		v.Members = slices.Clone(v.Members)
		for i := range v.Members {
			v.Members[i].Value = cloneValue(v.Members[i].Value)
		}
	}
	return v
}

// TestStrictifyLeavesInput checks that Value.Strictify changes nothing
// it is given, not even the spare capacity of slices in a Value built by
// hand, where an append in place would write.
func TestStrictifyLeavesInput(t *testing.T) {
	for _, c := range strictifyCases {
		v, err := Parse([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		before := cloneValue(v)
		if fixed, _ := v.Strictify(); string(fixed.Append(nil)) != c.out {
			t.Errorf("%s: got %s", c.name, fixed.Append(nil))
		}
		if !reflect.DeepEqual(v, before) {
			t.Errorf("%s: Strictify changed its input to %s", c.name, v.Append(nil))
		}
	}

	str := func(s string) Value { return Value{Kind: String, Str: s} }
	spare := func(items ...Value) []Value { return append(make([]Value, 0, len(items)+4), items...) }
	types := spare(str("string"))
	enum := spare(str("a"))
	anyOf := spare(Value{Kind: Object, Members: []Member{{Key: "type", Value: str("integer")}}})
	props := append(make([]Member, 0, 8),
		Member{Key: "t", Value: Value{Kind: Object, Members: []Member{{Key: "type", Value: Value{Kind: Array, Items: types}}, {Key: "enum", Value: Value{Kind: Array, Items: enum}}}}},
		Member{Key: "u", Value: Value{Kind: Object, Members: []Member{{Key: "anyOf", Value: Value{Kind: Array, Items: anyOf}}}}},
	)
	required := spare()
	root := append(make([]Member, 0, 8),
		Member{Key: "type", Value: str("object")},
		Member{Key: "properties", Value: Value{Kind: Object, Members: props}},
		Member{Key: "required", Value: Value{Kind: Array, Items: required}},
	)
	v := Value{Kind: Object, Members: root}
	before := cloneValue(v)
	fixed, left := v.Strictify()
	const want = `{"type":"object","properties":{"t":{"type":["string","null"],"enum":["a",null]},"u":{"anyOf":[{"type":"integer"},{"type":"null"}]}},"required":["t","u"],"additionalProperties":false}`
	if got := fixed.AppendCompact(nil); string(got) != want || len(left) != 0 {
		t.Errorf("Strictify of a built Value = %s, %v\nwant %s", got, left, want)
	}
	if !reflect.DeepEqual(v, before) {
		t.Errorf("Strictify changed the built Value to %s", v.Append(nil))
	}
	for name, s := range map[string][]Value{"type": types, "enum": enum, "anyOf": anyOf, "required": required} {
		if tail := s[len(s):cap(s)]; slices.ContainsFunc(tail, func(x Value) bool { return !reflect.DeepEqual(x, Value{}) }) {
			t.Errorf("Strictify wrote past the end of %s: %v", name, tail)
		}
	}
	if tail := root[len(root):cap(root)]; slices.ContainsFunc(tail, func(m Member) bool { return m.Key != "" }) {
		t.Errorf("Strictify wrote past the end of the root's members: %v", tail)
	}

	// A schema with nothing to fix comes back as it is, shared.
	strict, _ := Parse([]byte(strictifyCases[0].in))
	if same, _ := strict.Strictify(); &same.Members[0] != &strict.Members[0] {
		t.Error("Strictify copied a schema it did not change")
	}
}

// TestAppendCompactKeepsEscapes checks that Value.AppendCompact writes
// strings as they were read, and a string changed since as it now is.
func TestAppendCompactKeepsEscapes(t *testing.T) {
	const in = `{"caf\u00e9": "a\u0062c \"q\" \/", "k": ["\ud83d\ude00", "\ud800", "plain"], "n\n": 1.50}`
	v, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	const read = `{"caf\u00e9":"a\u0062c \"q\" \/","k":["\ud83d\ude00","\ud800","plain"],"n\n":1.50}`
	if got := string(v.AppendCompact(nil)); got != read {
		t.Errorf("AppendCompact:\n got %s\nwant %s", got, read)
	}
	if got, want := string(v.Append(nil)), "{\"café\":\"abc \\\"q\\\" /\",\"k\":[\"😀\",\"\ufffd\",\"plain\"],\"n\\n\":1.50}"; got != want {
		t.Errorf("Append:\n got %s\nwant %s", got, want)
	}

	// A copy with a new key and new texts, one of them as long as the
	// old: what changed is written as Append writes it.
	w := v
	w.Members = slices.Clone(v.Members)
	w.Members[0].Key = "cafe"
	w.Members[0].Value.Str = "abd \"q\" /"
	items := slices.Clone(w.Members[1].Value.Items)
	items[0].Str = "x"
	w.Members[1].Value.Items = items
	const changed = `{"cafe":"abd \"q\" /","k":["x","\ud800","plain"],"n\n":1.50}`
	if got := string(w.AppendCompact(nil)); got != changed {
		t.Errorf("AppendCompact of a changed copy:\n got %s\nwant %s", got, changed)
	}
	if got := string(v.AppendCompact(nil)); got != read {
		t.Errorf("changing a copy changed the original: %s", got)
	}

	for _, c := range []struct {
		lit, s string
		ok     bool
	}{
		{`"a\u0062c"`, "abc", true},
		{`"a\u0062c"`, "abd", false},
		{`"a\u0062c"`, "ab", false},
		{`"a\u0062c"`, "abcd", false},
		{`"\ud83d\ude00"`, "😀", true},
		{`"\ud83d\u0041"`, "\ufffdA", true},
		{`"\ude00\ud83d"`, "\ufffd\ufffd", true},
		{`"\t\b\f\r\n\/\\\""`, "\t\b\f\r\n/\\\"", true},
		{`"\x"`, "x", false},
		{`"\u12"`, "\u0012", false},
		{`"x`, "x", false},
		{``, "", false},
	} {
		if got := decodesTo(c.lit, c.s); got != c.ok {
			t.Errorf("decodesTo(%s, %q) = %v", c.lit, c.s, got)
		}
	}
}

// TestValueSharedAcrossGoroutines uses one parsed Value from several
// goroutines at once; under the race detector it shows that checking,
// fixing and writing a Value only read it.
func TestValueSharedAcrossGoroutines(t *testing.T) {
	v, err := Parse([]byte(triageSchema))
	if err != nil {
		t.Fatal(err)
	}
	fixed, left := v.Strictify()
	want, wantLeft, wantCheck := fixed.AppendCompact(nil), violationList(left), violationList(v.CheckStrict())
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				f, l := v.Strictify()
				if !bytes.Equal(f.AppendCompact(nil), want) || violationList(l) != wantLeft || violationList(v.CheckStrict()) != wantCheck {
					t.Error("a goroutine got another result")
					return
				}
				_ = fixed.Append(nil)
			}
		})
	}
	wg.Wait()
}
