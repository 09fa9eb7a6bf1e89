package provider

import (
	"encoding/json"
	"testing"
)

// FuzzParseModels checks that ParseModels never panics and that a table
// it accepts looks every one of its own patterns up to a row (the same
// row, or one with a longer pattern), and can take overrides of them.
//
// Its seeds are small: the fuzzer minimizes each new input it finds
// interesting by trying to remove every run of its bytes, so the 30 KB
// built-in table as a seed (3 ms an exec) kept it minimizing for its whole
// run, at a few execs a minute. Two rows of the table stand for it; the
// table itself is read by TestBuiltinModels and the other tests.
func FuzzParseModels(f *testing.F) {
	var table struct {
		Models []json.RawMessage `json:"models"`
	}
	if err := json.Unmarshal(builtinData, &table); err != nil || len(table.Models) < 2 {
		f.Fatalf("the built-in table: %v", err)
	}
	two, err := json.Marshal(map[string]any{"models": table.Models[:2]})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(two)
	f.Add([]byte(`{"models": [{"match": ["m-1", "m-*x"], "provider": "openai", "tools": true, "structured_output": true, "strict_tools": true, "tools_with_json_output": true, "unsupported_keywords": ["minItems>1"], "min_cache_tokens": 0, "context_window": 100, "max_output_tokens": 10, "docs": ["https://example.com"], "checked": "2026-11-23", "note": ""}]}`))
	f.Add([]byte(`{"models": [{"match": ["a"], "match": ["b"]}]}`))
	f.Add([]byte(`{"models": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := ParseModels(data, "fuzz")
		if err != nil {
			return
		}
		for _, m := range tab.Rows() {
			for _, p := range m.Match {
				if _, _, ok := tab.Lookup(p); !ok && !hasStar(p) {
					t.Fatalf("pattern %q finds no row", p)
				}
				n := 1
				if _, err := tab.With(ModelOverride{Name: p, Source: "y", MaxOutputTokens: &n}); err != nil && !hasStar(p) {
					t.Fatalf("override of %q: %v", p, err)
				}
			}
		}
	})
}

func hasStar(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] == '*' {
			return true
		}
	}
	return false
}
