package yamldoc

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
)

// sameTree reports where the trees a and b differ: kind, tag, style,
// value, line, column or number of children; "" when they do not.
func sameTree(a, b *yaml.Node, at string) string {
	if a == nil || b == nil {
		if a != b {
			return at + ": one tree is empty"
		}
		return ""
	}
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Style != b.Style || a.Value != b.Value || a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content) {
		return fmt.Sprintf("%s: %v %s %v %q %d:%d (%d) vs %v %s %v %q %d:%d (%d)", at,
			a.Kind, a.Tag, a.Style, a.Value, a.Line, a.Column, len(a.Content),
			b.Kind, b.Tag, b.Style, b.Value, b.Line, b.Column, len(b.Content))
	}
	for i := range a.Content {
		if d := sameTree(a.Content[i], b.Content[i], at+"/"+strconv.Itoa(i)); d != "" {
			return d
		}
	}
	return ""
}

// randJSON writes a random JSON value of at most depth levels, with
// random white space, keys unique within each object.
func randJSON(r *rand.Rand, b *strings.Builder, depth int) {
	ws := func() {
		for range r.IntN(3) {
			b.WriteString([]string{" ", "\n", "\t", "  ", "\r\n"}[r.IntN(5)])
		}
	}
	ws()
	k := r.IntN(10)
	if depth <= 0 && k >= 7 {
		k = r.IntN(7)
	}
	switch k {
	case 0:
		b.WriteString([]string{"true", "false", "null"}[r.IntN(3)])
	case 1, 2:
		b.WriteString([]string{"0", "-0", "7", "-12", "1.5", "-0.25", "1e3", "2E-2", "6.02e+23",
			"9223372036854775807", "-9223372036854775808", "18446744073709551615", "18446744073709551616", "123456789012345678901234567890"}[r.IntN(14)])
	case 3, 4, 5, 6:
		b.Write(randString(r))
	case 7, 8:
		b.WriteByte('[')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			randJSON(r, b, depth-1)
		}
		ws()
		b.WriteByte(']')
	default:
		b.WriteByte('{')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			ws()
			key := randString(r)
			b.WriteString(string(key[:len(key)-1]) + "#" + strconv.Itoa(i) + `"`) // unique
			ws()
			b.WriteByte(':')
			randJSON(r, b, depth-1)
		}
		ws()
		b.WriteByte('}')
	}
	ws()
}

// randString returns a random JSON string: plain text, text YAML would
// read as another type unquoted, escapes, surrogate pairs and non-ASCII
// characters.
func randString(r *rand.Rand) []byte {
	parts := []string{"a", "name", " ", "true", "1", "~", "null", "0x1F", "é", "日本", "😀", `\n`, `\t`, `\"`, `\\`, `\/`, `\u00e9`, `\u0001`, `#`, `: `, `- `, `{`, `]`}
	var b []byte
	b = append(b, '"')
	for range r.IntN(5) {
		b = append(b, parts[r.IntN(len(parts))]...)
	}
	return append(b, '"')
}

// TestJSONMatchesYAML: on valid JSON documents, the JSON front end gives
// the tree the YAML parser gives (kinds, tags, styles, values, lines and
// columns, in bytes and in characters), and a schema decodes both alike.
func TestJSONMatchesYAML(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var compared, refused int
	for i := range 3000 {
		var b strings.Builder
		randJSON(r, &b, 4)
		text := strings.ReplaceAll(b.String(), "\r\n", "\n")
		if !json.Valid([]byte(text)) {
			t.Fatalf("generated invalid JSON: %s", text)
		}
		for _, p := range []Parser{{}, {Columns: true}} {
			got, err := p.ParseJSONText("f.json", text)
			if err != nil {
				t.Fatalf("JSON cannot read %q: %v", text, err)
			}
			want, err := p.ParseText("f.json", text)
			if err != nil {
				// Valid JSON that YAML refuses, such as a tab where YAML
				// wants indentation.
				refused++
				continue
			}
			compared++
			if d := sameTree(got, want, ""); d != "" {
				t.Fatalf("document %d %q (columns %v): JSON and YAML trees differ at %s", i, text, p.Columns, d)
			}
		}
	}
	if compared < 4*refused {
		t.Errorf("YAML refused %d readings and %d were compared: the generator is off", refused, compared)
	}
}

// TestDecodeJSONMatchesDecode: a schema decodes a JSON list item by item
// as it decodes the YAML reading of the same text: the same values, the
// same problems, the same places.
func TestDecodeJSONMatchesDecode(t *testing.T) {
	docs := []string{
		`[{"name": "ann", "count": 3, "tags": ["a", "b"], "items": [{"id": "x", "priority": 2}]},
		  {"name": 7, "ratio": "high", "tags": "a", "colour": 1},
		  "text", null, [], {"owner": {"handle": "h", "big": 300}, "schema": {"type": "object", "a": [1, 2.5, null]}},
		  {"size": "3KB", "pairs": ["a=1", {"key": "b", "value": "c"}]}]`,
		`[]`,
		`{"name": "a mapping, not a list"}`,
		"[\n  {\"name\": \"é\", \"plain\": \"\\u00e9\"},\n  {\"count\": 1.5}\n]",
	}
	schema := NewSchema[[]testDoc](Options{Columns: true})
	for _, text := range docs {
		for _, p := range []Parser{{}, {Columns: true}} {
			var want, got []testDoc
			top, err := p.ParseText("f.json", text)
			if err != nil {
				t.Fatal(err)
			}
			dw := schema.Decode("f.json", top, &want)
			jtop, dg, err := schema.DecodeJSON(p, "f.json", text, &got)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: values differ:\n%+v\n%+v", text, got, want)
			}
			if g, w := dg.Errors().Error(), dw.Errors().Error(); g != w {
				t.Errorf("%s: problems differ:\n%s\n%s", text, g, w)
			}
			if !reflect.DeepEqual(dg.Lines(), dw.Lines()) {
				t.Errorf("%s: lines differ:\n%v\n%v", text, dg.Lines(), dw.Lines())
			}
			if jtop.Kind != top.Kind || len(jtop.Content) != len(top.Content) || jtop.Line != top.Line || jtop.Column != top.Column {
				t.Errorf("%s: top nodes differ", text)
			}
			for i, c := range jtop.Content {
				if c.Kind != top.Content[i].Kind || c.Line != top.Content[i].Line || c.Column != top.Content[i].Column {
					t.Errorf("%s: item %d stub differs", text, i)
				}
			}
		}
	}
}

// TestJSONErrors: each problem is at its line and column (in bytes),
// says what is wrong and what to do, and a JSON error leaves the value
// being decoded as it was.
func TestJSONErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"[\n  {\"a\": 1},\n  {\"b\": [1, 2,, 3]}\n]", `f.json:3:15: not valid JSON: found "," where a value should be`},
		{"{\"a\": 1,}", `f.json:1:8: not valid JSON: a "," before "}": remove the trailing comma`},
		{"[1, 2", `f.json:1:6: not valid JSON: the text ends inside the list opened at line 1, column 1: close it with ']'`},
		{"{\"a\" 1}", `f.json:1:6: not valid JSON: found "1" after the key "a": write ":" and the key's value`},
		{"{a: 1}", `f.json:1:2: not valid JSON: found "a" where a key should be: write the key in double quotes`},
		{"[\"abc]", `f.json:1:2: not valid JSON: the text ends inside this string: close it with '"'`},
		{"[\"ab\nc\"]", `f.json:1:5: not valid JSON: the string goes past the end of its line`},
		{"[\"a\\qb\"]", `f.json:1:4: not valid JSON: the escape \q is not JSON`},
		{"[\"\\u12\"]", `f.json:1:3: not valid JSON: \u needs four hex digits`},
		{"[01]", `f.json:1:2: not valid JSON: the number "01" is not written as JSON writes numbers`},
		{"[1.]", `f.json:1:2: not valid JSON: the number "1." is not written`},
		{"[tru]", `f.json:1:2: not valid JSON: found "tru" where a value should be`},
		{"[1] [2]", `f.json:1:5: not valid JSON: found "[" after the JSON value: a JSON file holds one value`},
		{"# note\n[1]", `f.json:1:1: not valid JSON: found "#" (JSON has no comments`},
		{"['a']", `f.json:1:2: not valid JSON: found "'" (JSON strings are in double quotes)`},
		{"{\"é\": [1 2]}", `f.json:1:11: not valid JSON: found "2" after a value in a list: separate its values with ",", or close it with ']'`},
		{"[\n  {\"id\": \"a\", \"tags\": [\"x\"], \"id\": \"b\"}\n]", `f.json:2:30: key "[0].id" is repeated (first at line 2): keep one`},
		{"{\"a\": {\"b\": 1,\n \"b\": 2}, \"c\": {\"b\": 3}}", `f.json:2:2: key "a.b" is repeated (first at line 1): keep one`},
		{strings.Repeat("[", MaxJSONDepth+1), fmt.Sprintf("f.json:1:%d: not valid JSON: arrays and objects are nested more than %d deep here: flatten the data", MaxJSONDepth+1, MaxJSONDepth)},
	} {
		_, err := Parser{Columns: true}.ParseJSONText("f.json", c.text)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s...", c.text, err, c.want)
		}
		var list diag.List
		if ok := asList(err, &list); !ok || len(list) == 0 {
			t.Errorf("%q: error %T is not a diag.List", c.text, err)
		}
		v := []testDoc{{Name: "kept"}}
		if _, _, err := NewSchema[[]testDoc](Options{}).DecodeJSON(Parser{Columns: true}, "f.json", c.text, &v); err == nil || len(v) != 1 || v[0].Name != "kept" {
			t.Errorf("%q: DecodeJSON gave %v and changed the value to %+v", c.text, err, v)
		}
	}
}

func asList(err error, l *diag.List) bool {
	x, ok := err.(diag.List)
	*l = x
	return ok
}

// TestJSONDeepBadValue: a value of the wrong type deep in a large file is
// reported at its own line and column.
func TestJSONDeepBadValue(t *testing.T) {
	var b strings.Builder
	b.WriteString("[\n")
	for i := range 500 {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "  {\"name\": \"n%d\", \"items\": [{\"id\": \"x\", \"priority\": %d}]}", i, i%5)
	}
	b.WriteString(",\n  {\"name\": \"last\", \"items\": [{\"id\": \"x\", \"priority\": \"high\"}]}\n]\n")
	var docs []testDoc
	_, d, err := NewSchema[[]testDoc](Options{Columns: true}).DecodeJSON(Parser{Columns: true}, "big.json", b.String(), &docs)
	if err != nil {
		t.Fatal(err)
	}
	const want = "big.json:502:54: [500].items[0].priority: want a whole number, found the text \"high\""
	if got := d.Errors().Error(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestIsJSON: the extension decides, and without one that says, the
// first byte that is not white space.
func TestIsJSON(t *testing.T) {
	for _, c := range []struct {
		path, data string
		want       bool
	}{
		{"m.json", "a: 1", true},
		{"m.JSON", "", true},
		{"m.yaml", "[1]", false},
		{"m.yml", "{}", false},
		{"standard input", "  \n\t[1]", true},
		{"standard input", "\ufeff{\"a\": 1}", true},
		{"notes", "- a", false},
		{"notes.txt", "{}", true},
		{"standard input", "", false},
	} {
		if got := IsJSON(c.path, []byte(c.data)); got != c.want {
			t.Errorf("IsJSON(%q, %q) = %v", c.path, c.data, got)
		}
	}
}

// TestParseFile: JSON by extension or first byte, YAML otherwise, and a
// document taken for JSON by its first byte that is YAML read as YAML.
func TestParseFile(t *testing.T) {
	p := Parser{Columns: true}
	n, err := p.ParseFile("standard input", []byte("{a: 1, b: [x]}"))
	if err != nil || n.Kind != yaml.MappingNode || len(n.Content) != 4 {
		t.Fatalf("flow YAML on standard input: %v %+v", err, n)
	}
	if _, err := p.ParseFile("m.json", []byte("{a: 1}")); err == nil || !strings.Contains(err.Error(), "m.json:1:2: not valid JSON") {
		t.Fatalf("a .json file is JSON: %v", err)
	}
	if _, err := p.ParseFile("standard input", []byte("{\"a\": 1,, }")); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("neither JSON nor YAML: the JSON error, got %v", err)
	}
	if _, err := p.ParseFile("standard input", []byte("{\"a\": 1, \"a\": 2}")); err == nil || !strings.Contains(err.Error(), "repeated") {
		t.Fatalf("repeated keys: %v", err)
	}
	if _, err := p.ParseFile("x.json", []byte("[\"\xff\"]")); err == nil || !strings.Contains(err.Error(), "x.json:1:3") {
		t.Fatalf("bad UTF-8: %v", err)
	}
}
