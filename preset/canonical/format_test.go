package canonical

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// indentCases are JSON values appendIndent must write as json.Indent
// does: compact and spaced, nested, empty, with escapes and brackets in
// strings, and scalars at the top.
var indentCases = []string{
	`{}`,
	`[]`,
	`{"a":1}`,
	`{"type":"object","properties":{"reply":{"type":"string","description":"The message."},"tickets":{"type":"array","items":{"type":"string"}}},"required":["reply","escalate"],"additionalProperties":false}`,
	` { "a" : [ 1 , 2.5e-3 , -0 , true , false , null ] , "b" : { } , "c" : [ ] } `,
	"{\n\t\"a\": {\"b\": [[], [{}], [[1]]]}\r\n}",
	`{"q\"{[,:]}\\":"\\\"","u":"\u00e9\u2028 ~~~ }","":""}`,
	`[{"a":[]},{"b":{}},[],{}]`,
	`"text"`,
	`12`,
}

// TestAppendIndent checks appendIndent against json.Indent, with the
// margin writeSchema uses and with none.
func TestAppendIndent(t *testing.T) {
	for _, c := range indentCases {
		for _, prefix := range []string{"    ", ""} {
			checkIndent(t, []byte(c), prefix)
		}
	}
	for _, c := range []string{`{`, `{"a":"b`, `}`, `{"a":[1]}}`, `[[]`} {
		if _, ok := appendIndent(nil, []byte(c), ""); ok {
			t.Errorf("%s: ok, want a bracket or string left open or closed twice", c)
		}
	}
}

// checkIndent checks that appendIndent writes raw, valid JSON, as
// json.Indent does.
func checkIndent(t *testing.T, raw []byte, prefix string) {
	t.Helper()
	var want bytes.Buffer
	if err := json.Indent(&want, bytes.TrimRight(raw, " \t\r\n"), prefix, "  "); err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	got, ok := appendIndent([]byte("x"), bytes.TrimRight(raw, " \t\r\n"), prefix)
	if !ok || string(got[1:]) != want.String() || got[0] != 'x' {
		t.Fatalf("%q with prefix %q:\n%s (ok %v)\nwant\n%s", raw, prefix, got, ok, want.String())
	}
}

// FuzzAppendIndent checks appendIndent against json.Indent on every
// valid JSON value: the same bytes. (Trailing white space, which
// json.Indent keeps, is cut first: writeSchema indents only a schema
// that ends with its '}'.)
func FuzzAppendIndent(f *testing.F) {
	for _, c := range indentCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			appendIndent(nil, raw, "  ") // must not panic
			return
		}
		checkIndent(t, raw, "    ")
	})
}

// TestBulletList checks that bulletList writes what labelled writes of
// the values joinLine joins, and nothing when none has text.
func TestBulletList(t *testing.T) {
	for _, values := range [][]string{
		nil,
		{""},
		{" ", "\n"},
		{"a"},
		{" a ", "", "b\nc", "  ", "d"},
		{"", "x\r\ny"},
	} {
		var got, want strings.Builder
		bulletList(&got, "Traits", values, "; ")
		if v := joinLine(values, "; "); v != "" {
			labelled(&want, "Traits", v)
		}
		if got.String() != want.String() {
			t.Errorf("%q: %q, want %q", values, got.String(), want.String())
		}
	}
}
