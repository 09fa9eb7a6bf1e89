package yamldoc

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/jsondup"
	"github.com/tessera-dev/tessera/prompt"
)

// FuzzJSON reads random text with the JSON front end: it must never
// panic; it must accept exactly the valid JSON (as encoding/json judges
// it) without repeated keys; every problem must be a diagnostic at a line
// and column the text has; and a list decoded item by item must give
// what decoding the whole tree gives.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`[{"name": "ann", "count": 3, "tags": ["a", "b"], "items": [{"id": "x", "priority": 2}]}]`,
		`{"a": {"b": 1, "b": 2}}`,
		"[\n  {\"name\": \"\\u00e9\\ud83d\\ude00\\n\", \"ratio\": -0.5e-3},\n  null, true, false, [], {}\n]",
		`[1, 2,]`,
		`{"a" 1}`,
		`["\u12"]`,
		`[01, 1., -, 1e]`,
		"\ufeff[\"bom\"]\r\n",
		`[` + strings.Repeat(`[`, 50) + strings.Repeat(`]`, 50) + `]`,
		`{"schema": {"type": "object", "properties": {"z": {}, "a": [1, 18446744073709551616, null]}}}`,
		`"text" "more"`,
		"# comment\n[]",
		`[{"pairs": ["a=1", {"key": "b", "value": "c"}], "size": "3KB", "owner": {"big": 300}}]`,
	} {
		f.Add([]byte(s))
	}
	schema := NewSchema[[]testDoc](Options{Columns: true})
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := prompt.Normalize(data)
		if err != nil {
			return
		}
		lines := strings.Count(text, "\n") + 1
		top, err := Parser{Columns: true}.ParseJSONText("f.json", text)
		valid := json.Valid([]byte(text)) && len(jsondup.Find([]byte(text))) == 0 && !tooDeep(text)
		if strings.Trim(text, " \t\n\r") == "" {
			valid = true
		}
		if (err == nil) != valid {
			t.Fatalf("%q: accepted %v, valid JSON without repeated keys %v: %v", text, err == nil, valid, err)
		}
		if err != nil {
			list, ok := err.(diag.List)
			if !ok || len(list) == 0 {
				t.Fatalf("error %v is not a diag.List", err)
			}
			for _, e := range list {
				if e.Path != "f.json" || e.Line < 1 || e.Line > lines || e.Col < 1 || e.Msg == "" {
					t.Fatalf("bad diagnostic %+v for %d lines", e, lines)
				}
			}
			return
		}
		var whole, items []testDoc
		dw := schema.Decode("f.json", top, &whole)
		_, di, err := schema.DecodeJSON(Parser{Columns: true}, "f.json", text, &items)
		if err != nil {
			t.Fatalf("DecodeJSON refuses what ParseJSONText reads: %v", err)
		}
		if !reflect.DeepEqual(whole, items) || dw.Errors().Error() != di.Errors().Error() {
			t.Fatalf("%q: item by item %+v %v, whole %+v %v", text, items, di.Errors(), whole, dw.Errors())
		}
		for _, e := range di.Errors() {
			if e.Line < 1 || e.Line > lines || e.Col < 1 {
				t.Fatalf("bad diagnostic %+v for %d lines", e, lines)
			}
		}
	})
}

// tooDeep reports whether the valid JSON text nests more than
// MaxJSONDepth deep.
func tooDeep(text string) bool {
	depth := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			if depth++; depth > MaxJSONDepth {
				return true
			}
		case ']', '}':
			depth--
		}
	}
	return false
}
