package schema

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestParseKeepsOrderAndLiterals(t *testing.T) {
	in := ` { "z" : 1.0 , "a" : [ true , false , null , -0.5e+3 ] ,
	"m" : { "y" : "\u00e9\n\"q\"\\\/" , "b" : {} , "c" : [] } } `
	v, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"z":1.0,"a":[true,false,null,-0.5e+3],"m":{"y":"é\n\"q\"\\/","b":{},"c":[]}}`
	if got := string(v.Append(nil)); got != want {
		t.Errorf("Append:\n got %s\nwant %s", got, want)
	}
	var keys []string
	for _, m := range v.Members {
		keys = append(keys, m.Key)
	}
	if strings.Join(keys, ",") != "z,a,m" {
		t.Errorf("member order %v, want z,a,m", keys)
	}
	if y := v.Get("m").Get("y"); y == nil || y.Str != "é\n\"q\"\\/" {
		t.Errorf("m.y = %+v", y)
	}
	if v.Get("missing") != nil || v.Get("z").Get("x") != nil {
		t.Error("Get found a member that is not there")
	}
}

func TestParseSurrogates(t *testing.T) {
	for in, want := range map[string]string{
		`"\ud83d\ude00"`: "😀",
		`"\ud83d"`:       "\ufffd",
		`"\ud83dx"`:      "\ufffdx",
		`"\ude00\ud83d"`: "\ufffd\ufffd",
		`"\ud83d\u0041"`: "\ufffdA",
	} {
		v, err := Parse([]byte(in))
		if err != nil || v.Str != want {
			t.Errorf("Parse(%s) = %q, %v; want %q", in, v.Str, err, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	for _, c := range []struct {
		in, pointer, msg string
		offset           int
	}{
		{``, "", "unexpected end of input", 0},
		{`{"a":1,"b":{"c":2,"c":3}}`, "/b/c", `member "c" appears more than once`, 18},
		{`{"a/b":{"x~y":[1,{"k":1,"k":2}]}}`, "/a~1b/x~0y/1/k", "appears more than once", 24},
		{`{"a":[1,2,}`, "/a/2", "unexpected '}', want a value", 10},
		{`{"a" 1}`, "", `after member name "a", want ':'`, 5},
		{`{"a":1 "b":2}`, "", "want ',' or '}'", 7},
		{`[1 2]`, "", "want ',' or ']'", 3},
		{`{"a":"x` + "\xff" + `"}`, "/a", "invalid UTF-8", 7},
		{`{"a":"x` + "\n" + `"}`, "/a", "control character 0x0a", 7},
		{`"\x"`, "", `invalid escape '\x'`, 1},
		{`"\u12"`, "", "four hex digits", 3},
		{`"abc`, "", "unterminated string", 4},
		{`01`, "", "unexpected '1' after the document", 1},
		{`-`, "", "want a digit", 1},
		{`1.`, "", "after '.'", 2},
		{`1e`, "", "exponent", 2},
		{`tru`, "", "want true", 0},
		{`nul`, "", "want null", 0},
		{`{"a":1} x`, "", "after the document", 8},
		{`{1:2}`, "", "want a member name", 1},
		{deep, "/0/0/0", "nested deeper than 1000 levels", MaxDepth},
	} {
		_, err := Parse([]byte(c.in))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%.40q) error %v, want a *SyntaxError", c.in, err)
			continue
		}
		if !strings.HasPrefix(se.Pointer, c.pointer) || (c.pointer == "" && se.Pointer != "" && c.in != deep) {
			t.Errorf("Parse(%.40q) pointer %q, want %q", c.in, se.Pointer, c.pointer)
		}
		if !strings.Contains(se.Msg, c.msg) || se.Offset != c.offset {
			t.Errorf("Parse(%.40q) = %v (offset %d), want %q at offset %d", c.in, err, se.Offset, c.msg, c.offset)
		}
	}
}

func TestSyntaxErrorText(t *testing.T) {
	_, err := Parse([]byte(`{"p":{"q":1,"q":2}}`))
	want := `JSON at byte 12 (at "/p/q"): member "q" appears more than once: keep one`
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
	_, err = Parse([]byte(`]`))
	if err == nil || !strings.Contains(err.Error(), "(at the root)") {
		t.Errorf("error %v, want it to say the root", err)
	}
}

func TestManyMembersRepeatedKey(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 40 {
		b.WriteString(`"k` + strconv.Itoa(i) + `":1,`)
	}
	b.WriteString(`"k2":2}`)
	_, err := Parse([]byte(b.String()))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Pointer != "/k2" {
		t.Errorf("error %v, want a repeated key at /k2", err)
	}
}

func TestAppendString(t *testing.T) {
	for in, want := range map[string]string{
		"plain":           `"plain"`,
		"<b>&amp;</b>":    `"<b>&amp;</b>"`,
		"q\"b\\s/":        `"q\"b\\s/"`,
		"\n\r\t\b\f\x00":  `"\n\r\t\b\f\u0000"`,
		"\x1f\x7f":        "\"\\u001f\x7f\"",
		"bad \xff byte":   "\"bad \ufffd byte\"",
		"日本 😀":            `"日本 😀"`,
		"\u2028\u2029":    `"\u2028\u2029"`,
		"end\xe6\x97":     "\"end\ufffd\ufffd\"",
		"":                `""`,
		"mixed\x01\xc3(x": "\"mixed\\u0001\ufffd(x\"",
	} {
		if got := string(AppendString(nil, in)); got != want {
			t.Errorf("AppendString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestAppendBuiltValues(t *testing.T) {
	v := Value{Kind: Array, Items: []Value{
		{},
		{Kind: Number, Str: "12"},
		{Kind: Number, Str: "1e"}, // not a number: written as 0
		{Kind: Number},
		{Kind: Bool, Bool: true},
		{Kind: Kind(9)},
	}}
	if got := string(v.Append(nil)); got != `[null,12,0,0,true,null]` {
		t.Errorf("Append = %s", got)
	}
	b, err := v.MarshalJSON()
	if err != nil || string(b) != `[null,12,0,0,true,null]` {
		t.Errorf("MarshalJSON = %s, %v", b, err)
	}
	if Object.String() != "object" || Kind(9).String() != "invalid(9)" {
		t.Errorf("Kind names: %s %s", Object, Kind(9))
	}
}

func TestEscapeToken(t *testing.T) {
	for in, want := range map[string]string{"a": "a", "a/b": "a~1b", "~": "~0", "~1/": "~01~1", "": ""} {
		if got := escapeToken(in); got != want {
			t.Errorf("escapeToken(%q) = %q, want %q", in, got, want)
		}
	}
	if got := pointer([]string{"properties", "a/b", "", "~"}); got != "/properties/a~1b//~0" {
		t.Errorf("pointer = %q", got)
	}
}

func TestAppendCompact(t *testing.T) {
	in := " {\n  \"b\" : [ 1.50 , \"x\\u00e9 \\n\" , { } ],\n  \"a\" : null } \n"
	out, err := AppendCompact([]byte("<"), []byte(in))
	if err != nil || string(out) != `<{"b":[1.50,"x\u00e9 \n",{}],"a":null}` {
		t.Errorf("AppendCompact = %s, %v", out, err)
	}
	for _, c := range []struct{ in, msg string }{
		{`{"a":1,}`, `JSON at byte 7 (at the root): unexpected '}', want a member name`},
		{`{"a":"` + "\xc3" + `"}`, `JSON at byte 6 (at "/a"): invalid UTF-8 in string`},
		{`{"a":1} {}`, "after the document"},
		{strings.Repeat("[", MaxDepth+1), "deeper than"},
	} {
		out, err := AppendCompact([]byte("keep"), []byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.msg) || string(out) != "keep" {
			t.Errorf("AppendCompact(%.30q) = %q, %v; want the input back and %q", c.in, out, err, c.msg)
		}
	}
	// Repeated keys are Parse's business, not the compactor's.
	if out, err := AppendCompact(nil, []byte(`{"a":1,"a":2}`)); err != nil || string(out) != `{"a":1,"a":2}` {
		t.Errorf("repeated keys: %s, %v", out, err)
	}
}
