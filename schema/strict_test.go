package schema

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// violationList renders violations one per line, for comparison.
func violationList(vs []Violation) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(v.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// expect is a violation expected by pointer and a fragment of its message.
type expect struct{ pointer, msg string }

func checkViolations(t *testing.T, name string, got []Violation, want []expect) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = got[i].Pointer == want[i].pointer && strings.Contains(got[i].Msg, want[i].msg)
	}
	if !ok {
		t.Errorf("%s: got violations\n%swant %v", name, violationList(got), want)
	}
}

const closed = `"additionalProperties":false`

// checkStrictCases are schemas and the violations CheckStrict finds.
var checkStrictCases = []struct {
	name   string
	schema string
	want   []expect
}{
	{"passes", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":["integer","null"]}},"required":["a","b"],` + closed + `}`, nil},
	{"empty object with no properties is closed", `{"type":"object",` + closed + `}`, nil},
	{"not JSON", `{"type":}`, []expect{{"/type", "not valid JSON at byte 8"}}},
	{"repeated key", `{"type":"object","properties":{"a":{},"a":{}}}`, []expect{{"/properties/a", "appears more than once"}}},
	{"root not object", `[1]`, []expect{{"", "the schema is a JSON array"}}},
	{"root type not object", `{"type":"string"}`, []expect{{"", `must have "type": "object"`}}},
	{"root nullable", `{"type":["object","null"],"properties":{},` + closed + `}`, []expect{{"", `must have "type": "object"`}}},
	{"root anyOf", `{"type":"object","anyOf":[{"type":"object","properties":{},` + closed + `}],"properties":{},` + closed + `}`, []expect{{"", `may not use "anyOf"`}}},
	{"open object", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, []expect{{"", `does not set "additionalProperties": false`}}},
	{"additionalProperties true", `{"type":"object","properties":{},"additionalProperties":true}`, []expect{{"/additionalProperties", "must be false"}}},
	{"additionalProperties schema", `{"type":"object","properties":{},"additionalProperties":{"type":"string"}}`, []expect{{"/additionalProperties", "must be false"}}},
	{"free-form object", `{"type":"object","properties":{"m":{"type":"object"}},"required":["m"],` + closed + `}`, []expect{{"/properties/m", `without "properties"`}}},
	{"optional property", `{"type":"object","properties":{"a":{"type":"string"},"b/c~d":{"type":"string"}},"required":["a"],` + closed + `}`,
		[]expect{{"/properties/b~1c~0d", `property "b/c~d" is not in "required"`}}},
	{"required unknown", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","zz",3],` + closed + `}`,
		[]expect{{"/required/1", `names "zz", which is not under "properties"`}, {"/required/2", "lists a JSON number"}}},
	{"required not array", `{"type":"object","properties":{},"required":"a",` + closed + `}`, []expect{{"/required", "must be an array"}}},
	{"properties not object", `{"type":"object","properties":[],` + closed + `}`, []expect{{"/properties", "must be an object"}}},
	{"unsupported keywords", `{"type":"object","properties":{"s":{"type":"string","minLength":1,"maxLength":3},"n":{"allOf":[{"type":"string"}]}},"required":["s","n"],` + closed + `,"minProperties":1}`,
		[]expect{
			{"/properties/s/minLength", `"minLength" (string keyword) is not supported`},
			{"/properties/s/maxLength", `"maxLength"`},
			{"/properties/n/allOf", `"allOf" (composition keyword)`},
			{"/minProperties", `"minProperties" (object keyword)`},
		}},
	{"supported keywords pass", `{"type":"object","properties":{"s":{"type":"string","pattern":"^a$","format":"date-time"},"n":{"type":"number","minimum":0,"exclusiveMaximum":9,"multipleOf":0.5},"l":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string"}}},"required":["s","n","l"],` + closed + `}`, nil},
	{"format", `{"type":"object","properties":{"s":{"type":"string","format":"uri"}},"required":["s"],` + closed + `}`, []expect{{"/properties/s/format", `format "uri" is not supported`}}},
	{"bad type names", `{"type":"object","properties":{"s":{"type":["string","text",1]},"t":{"type":"float"}},"required":["s","t"],` + closed + `}`,
		[]expect{{"/properties/s/type/1", `"text" is not a JSON Schema type`}, {"/properties/s/type/2", "a JSON number is not"}, {"/properties/t/type", `"float" is not`}}},
	{"schema not object", `{"type":"object","properties":{"a":true},"required":["a"],` + closed + `}`, []expect{{"/properties/a", "must be an object, not a JSON boolean"}}},
	{"nested in items, anyOf and defs", `{"type":"object","properties":{
			"l":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string"}}}},
			"u":{"anyOf":[{"type":"object","properties":{},"additionalProperties":true},{"$ref":"#/$defs/d"}]}},
			"required":["l","u"],` + closed + `,
			"$defs":{"d":{"type":"object","properties":{"y":{"type":"string"}},` + closed + `}}}`,
		[]expect{
			{"/properties/l/items/properties/x", `"x" is not in "required"`},
			{"/properties/l/items", `does not set "additionalProperties"`},
			{"/properties/u/anyOf/0/additionalProperties", "must be false"},
			{"/$defs/d/properties/y", `"y" is not in "required"`},
		}},
	{"anyOf not array", `{"type":"object","properties":{"u":{"anyOf":{}}},"required":["u"],` + closed + `}`, []expect{{"/properties/u/anyOf", "must be an array of schemas"}}},
	{"defs not object", `{"type":"object","properties":{},` + closed + `,"$defs":[]}`, []expect{{"/$defs", "must be an object of named schemas"}}},
	{"enum not array", `{"type":"object","properties":{"e":{"enum":"a"}},"required":["e"],` + closed + `}`, []expect{{"/properties/e/enum", `"enum" must be an array`}}},
}

func TestCheckStrict(t *testing.T) {
	for _, c := range checkStrictCases {
		checkViolations(t, c.name, CheckStrict([]byte(c.schema)), c.want)
	}
}

// nest returns a schema whose objects nest levels deep.
func nest(levels int) string {
	s := `{"type":"object","properties":{},` + closed + `}`
	for range levels - 1 {
		s = `{"type":"object","properties":{"n":` + s + `},"required":["n"],` + closed + `}`
	}
	return s
}

// limitCase is a schema at or just past one of strict mode's size limits
// and the violations CheckStrict finds in it.
type limitCase struct {
	name, schema string
	want         []expect
}

// limitCases returns the schemas that test the size limits.
func limitCases() []limitCase {
	props := func(n int, name func(int) string) string {
		var b strings.Builder
		b.WriteString(`{"type":"object","properties":{`)
		var req []string
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q:{\"type\":\"string\"}", name(i))
			req = append(req, strconv.Quote(name(i)))
		}
		b.WriteString(`},"required":[` + strings.Join(req, ",") + `],` + closed + `}`)
		return b.String()
	}
	short := func(i int) string { return "p" + strconv.Itoa(i) }
	long := func(i int) string { return fmt.Sprintf("%030d", i) } // 30 characters each
	enum := func(n, width int) string {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = strconv.Quote(fmt.Sprintf("%0*d", width, i))
		}
		return `{"type":"string","enum":[` + strings.Join(vals, ",") + `]}`
	}
	obj := func(fields ...string) string {
		var ps, req []string
		for i, f := range fields {
			ps = append(ps, fmt.Sprintf(`"e%d":%s`, i, f))
			req = append(req, fmt.Sprintf(`"e%d"`, i))
		}
		return `{"type":"object","properties":{` + strings.Join(ps, ",") + `},"required":[` + strings.Join(req, ",") + `],` + closed + `}`
	}
	return []limitCase{
		{"10 levels", nest(10), nil},
		{"11 levels", nest(11),
			[]expect{{"/properties/n/properties/n/properties/n/properties/n/properties/n/properties/n/properties/n/properties/n/properties/n/properties/n", "nest 11 levels deep"}}},
		{"5000 properties", props(5000, short), nil},
		{"5001 properties", props(5001, short), []expect{{"", "5001 object properties; strict mode allows at most 5000"}}},
		{"120000 characters", props(4000, long), nil},
		{"120030 characters", props(4001, long), []expect{{"", "total 120030 characters; strict mode allows at most 120000"}}},
		{"1000 enum values", obj(enum(500, 3), enum(500, 3)), nil},
		{"1001 enum values", obj(enum(500, 3), enum(501, 3)), []expect{{"", "1001 enum values; strict mode allows at most 1000"}}},
		{"250 long values", obj(enum(250, 100)), nil},
		{"251 values, 15000 characters", obj(enum(251, 59)), nil},
		{"251 values, 15060 characters", obj(enum(251, 60)),
			[]expect{{"/properties/e0/enum", "251 string values totalling 15060 characters"}}},
	}
}

func TestCheckStrictLimits(t *testing.T) {
	for _, c := range limitCases() {
		checkViolations(t, c.name, CheckStrict([]byte(c.schema)), c.want)
	}
}

// strictifyCases are schemas, what Strictify makes of them and the
// violations it leaves.
var strictifyCases = []struct {
	name, in, out string
	left          []expect
}{
	{"already strict", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],` + closed + `}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],` + closed + `}`, nil},
	{"close and require, order kept",
		`{"type":"object","description":"d","properties":{"z":{"type":"string"},"a":{"type":"integer"},"m":{"type":["number"]}},"required":["a"]}`,
		`{"type":"object","description":"d","properties":{"z":{"type":["string","null"]},"a":{"type":"integer"},"m":{"type":["number","null"]}},"required":["a","z","m"],` + closed + `}`, nil},
	{"required created after properties",
		`{"properties":{"b":{"type":"boolean"}},"title":"t"}`,
		`{"properties":{"b":{"type":["boolean","null"]}},"required":["b"],"title":"t",` + closed + `}`,
		[]expect{{"", `must have "type": "object"`}}},
	{"enum, const, ref, anyOf, already nullable",
		`{"type":"object","properties":{
				"e":{"type":"string","enum":["x","y"]},
				"o":{"enum":["x"]},
				"c":{"type":"string","const":"k"},
				"r":{"$ref":"#/$defs/d","description":"see d"},
				"u":{"anyOf":[{"type":"string"},{"type":"integer"}]},
				"n":{"type":["string","null"]},
				"v":{"anyOf":[{"type":"string"},{"type":"null"}]},
				"w":{"type":"null"}},
			"$defs":{"d":{"type":"object","properties":{"q":{"type":"string"}}}}}`,
		`{"type":"object","properties":{` +
			`"e":{"type":["string","null"],"enum":["x","y",null]},` +
			`"o":{"enum":["x",null]},` +
			`"c":{"anyOf":[{"type":"string","const":"k"},{"type":"null"}]},` +
			`"r":{"anyOf":[{"$ref":"#/$defs/d","description":"see d"},{"type":"null"}]},` +
			`"u":{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"null"}]},` +
			`"n":{"type":["string","null"]},` +
			`"v":{"anyOf":[{"type":"string"},{"type":"null"}]},` +
			`"w":{"type":"null"}},` +
			`"required":["e","o","c","r","u","n","v","w"],` +
			`"$defs":{"d":{"type":"object","properties":{"q":{"type":["string","null"]}},"required":["q"],` + closed + `}},` + closed + `}`,
		nil},
	{"nested in items and anyOf",
		`{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","properties":{"x":{"type":"object","properties":{"y":{"type":"string"}}}}}}},"required":["l"],` + closed + `}`,
		`{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","properties":{"x":{"type":["object","null"],"properties":{"y":{"type":["string","null"]}},"required":["y"],` + closed + `}},"required":["x"],` + closed + `}}},"required":["l"],` + closed + `}`,
		nil},
	{"what cannot be fixed is reported",
		`{"type":"object","properties":{"m":{"type":"object"},"s":{"type":"string","maxLength":3},"x":{"type":"object","properties":{},"additionalProperties":true}}}`,
		`{"type":"object","properties":{"m":{"type":["object","null"]},"s":{"type":["string","null"],"maxLength":3},"x":{"type":["object","null"],"properties":{},"additionalProperties":true}},"required":["m","s","x"],` + closed + `}`,
		[]expect{
			{"/properties/m", `without "properties"`},
			{"/properties/s/maxLength", "not supported"},
			{"/properties/x/additionalProperties", "must be false"},
		}},
	{"enum without type wrapped when a ref is present",
		`{"type":"object","properties":{"a":{"$ref":"#/x","enum":[1]}},` + closed + `}`,
		`{"type":"object","properties":{"a":{"anyOf":[{"$ref":"#/x","enum":[1]},{"type":"null"}]}},"required":["a"],` + closed + `}`, nil},
}

func TestStrictify(t *testing.T) {
	for _, c := range strictifyCases {
		got, left, err := Strictify([]byte(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if string(got) != c.out {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.out)
		}
		checkViolations(t, c.name, left, c.left)
		again, left2, _ := Strictify(got)
		if string(again) != string(got) || violationList(left2) != violationList(left) {
			t.Errorf("%s: Strictify is not idempotent:\n%s\n%s", c.name, again, got)
		}
	}
	if _, _, err := Strictify([]byte(`{"a":`)); err == nil || !strings.Contains(err.Error(), "strictify: JSON at byte 5") {
		t.Errorf("Strictify of bad JSON: %v", err)
	}
}

// TestStrictifyExample fixes the bundled example output schema: one
// optional property, made nullable and required, nothing else touched.
func TestStrictifyExample(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "examples", "seed", "schemas", "clarification_question_set.v2.json"))
	if err != nil {
		t.Fatal(err)
	}
	checkViolations(t, "example", CheckStrict(src), []expect{{"/properties/questions/items/properties/blocking", `"blocking" is not in "required"`}})
	out, left, err := Strictify(src)
	if err != nil || len(left) != 0 {
		t.Fatalf("Strictify: %v %v", err, left)
	}
	for _, frag := range []string{`"required":["id","question","why_it_matters","blocking"]`, `"blocking":{"type":["boolean","null"],"default":false}`} {
		if !strings.Contains(string(out), frag) {
			t.Errorf("strictified example lacks %s:\n%s", frag, out)
		}
	}
}
