package provider

import (
	"strings"
	"testing"
)

// TestBuiltinModels parses the embedded table and checks what every row
// must hold beyond what ParseModels checks: a note wherever a row says a
// model cannot do something a sibling can, and a check date.
func TestBuiltinModels(t *testing.T) {
	tab, err := ParseModels(builtinData, "built-in")
	if err != nil {
		t.Fatal(err)
	}
	rows := tab.Rows()
	if len(rows) < 30 {
		t.Fatalf("%d rows: the table covers the current families of three providers", len(rows))
	}
	for _, m := range rows {
		if m.Provider == "anthropic" && m.StructuredOutput && m.Keywords().Len() == 0 {
			t.Errorf("%s: Anthropic structured outputs refuse some keywords; list them", m.Match[0])
		}
		if m.Provider == "gemini" && m.StrictTools {
			t.Errorf("%s: Gemini has no strict flag", m.Match[0])
		}
		if !m.StructuredOutput && m.ToolsWithJSONOutput || !m.Tools && (m.ToolsWithJSONOutput || m.StrictTools) {
			t.Errorf("%s: tools with JSON output, or strict tools, without JSON output or tools", m.Match[0])
		}
	}
	if BuiltinModels() == nil {
		t.Fatal("BuiltinModels is nil")
	}
}

// TestLookup checks which row each name gets: model × the row's first
// pattern, or "" for none.
func TestLookup(t *testing.T) {
	tests := []struct{ model, want string }{
		// OpenAI: snapshots and variants share their family's row.
		{"gpt-4o", "gpt-4o"},
		{"gpt-4o-2024-08-06", "gpt-4o"},
		{"gpt-4o-mini", "gpt-4o"},
		{"gpt-4o-2024-05-13", "gpt-4o-2024-05-13"},
		{"openai/gpt-4o", "gpt-4o"},
		{"GPT-4o", "gpt-4o"},
		{"gpt-4", "gpt-4"},
		{"gpt-4-0613", "gpt-4"},
		{"gpt-4-turbo-2024-04-09", "gpt-4-turbo"},
		{"gpt-4.1-mini", "gpt-4.1"},
		{"gpt-5", "gpt-5"},
		{"gpt-5-mini-2025-08-07", "gpt-5"},
		{"gpt-5-pro", "gpt-5-pro"},
		{"gpt-5-chat-latest", "gpt-5*-chat"},
		{"gpt-5.1-chat-latest", "gpt-5*-chat"},
		{"gpt-5.4", "gpt-5.*"},
		{"o1", "o1"},
		{"o1-2024-12-17", "o1"},
		{"o1-mini", "o1-mini"},
		{"o3-mini-2025-01-31", "o3-mini"},
		{"o3-pro", "o3"},
		{"gpt-3.5-turbo-0125", "gpt-3.5-turbo"},
		// Fine-tuned models have their base model's row.
		{"ft:gpt-4o-mini-2024-07-18:acme::9abcDEF", "gpt-4o"},
		{"ft:gpt-4.1-2025-04-14:acme:support:8xyz", "gpt-4.1"},
		{"ft:gpt-3.5-turbo-0125:acme::1", "gpt-3.5-turbo"},
		// Anthropic: a version is never taken for a snapshot.
		{"claude-sonnet-4-5", "claude-sonnet-4-5"},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"anthropic/claude-haiku-4-5", "claude-haiku-4-5"},
		{"claude-haiku-4-5@20251001", "claude-haiku-4-5"},
		{"claude-opus-4-20250514", "claude-opus-4"},
		{"claude-opus-4-0", "claude-opus-4"},
		{"claude-opus-4-1-20250805", "claude-opus-4-1"},
		{"claude-opus-4-9", ""},
		{"claude-opus-5", "claude-opus-5"},
		{"claude-opus-5-5", "claude-opus-5-5"},
		{"claude-opus-5-7", ""},
		{"claude-3-5-sonnet-20241022", "claude-3-5-sonnet"},
		{"claude-3-haiku-20240307", "claude-3-haiku"},
		// Gemini.
		{"gemini-2.5-pro", "gemini-2.5"},
		{"models/gemini-2.5-flash-lite", "gemini-2.5"},
		{"gemini-3-flash-preview", "gemini-3"},
		{"gemini-3.5-flash", "gemini-3"},
		{"gemini-1.5-pro-002", "gemini-1.5"},
		{"gemini-2", ""},
		// Unknown.
		{"llama-3.1-70b", ""},
		{"", ""},
		{"gpt", ""},
		{"gpt-4x", ""},
	}
	tab := BuiltinModels()
	for _, tt := range tests {
		m, _, ok := tab.Lookup(tt.model)
		got := ""
		if ok {
			got = m.Match[0]
		}
		if got != tt.want {
			t.Errorf("Lookup(%q) = %q, want %q", tt.model, got, tt.want)
		}
	}
}

func TestSuffixAndGlob(t *testing.T) {
	for rest, want := range map[string]bool{
		"": true, "@20251001": true, ":thinking": true, "-2024-08-06": true, "-mini": true,
		"-001": true, "-5": false, "-12": false, "-1-20250805": false, "-32k": true, ".1": false, "x": false, "-": true,
	} {
		if got := suffixOK(rest); got != want {
			t.Errorf("suffixOK(%q) = %v", rest, got)
		}
	}
	for _, c := range []struct {
		p, s string
		want bool
	}{
		{"a*c", "abc", true}, {"a*c", "ac", true}, {"a*c", "abcd", false}, {"a*b*c", "aXbYc", true},
		{"gpt-5*-chat", "gpt-5.1-chat", true}, {"gpt-5.*", "gpt-5.1", true}, {"gpt-5.*", "gpt-5", false},
	} {
		if got := glob(c.p, c.s); got != c.want {
			t.Errorf("glob(%q, %q) = %v", c.p, c.s, got)
		}
	}
}

// TestParseModelsErrors checks that a table with a mistake is refused
// with a message naming the row and the fix.
func TestParseModelsErrors(t *testing.T) {
	row := func(fields string) string {
		return `{"models": [{"match": ["m-1"], "provider": "openai", "tools": true, "structured_output": true, "strict_tools": true, "tools_with_json_output": true, "unsupported_keywords": [], "min_cache_tokens": 0, "context_window": 100, "max_output_tokens": 10, "docs": ["https://example.com"], "checked": "2026-11-23", "note": ""` + fields + `}]}`
	}
	if _, err := ParseModels([]byte(row("")), "x"); err != nil {
		t.Fatalf("valid table: %v", err)
	}
	tests := []struct{ data, want string }{
		{row(`, "extra": 1`), `unknown field "extra"`},
		{row(`, "note": "again"`), `key "note" is written twice in models[0]`},
		{`{"models": [{"match": ["m-1"]}]}`, `models[0] (m-1): missing provider, tools, structured_output, strict_tools`},
		{strings.Replace(row(""), `"openai"`, `"azure"`, 1), `models[0] (m-1): provider "azure": use one of openai, anthropic, gemini`},
		{strings.Replace(row(""), `"m-1"`, `"M-1"`, 1), `model pattern "M-1": use lower-case letters`},
		{strings.Replace(row(""), `"2026-11-23"`, `"23/11/2026"`, 1), `checked: "23/11/2026" is not a date`},
		{strings.Replace(row(""), `"https://example.com"`, `"example.com"`, 1), `docs: "example.com" is not an https URL`},
		{strings.Replace(row(""), `"unsupported_keywords": []`, `"unsupported_keywords": ["minItems>x"]`, 1), `unsupported_keywords: keyword rule "minItems>x"`},
		{strings.Replace(row(""), `"max_output_tokens": 10`, `"max_output_tokens": 1000`, 1), `max_output_tokens 1000 is more than the context window 100`},
		{strings.Replace(row(""), `"max_output_tokens": 10`, `"max_output_tokens": -1`, 1), `max_output_tokens is -1`},
		{`{"models": []}`, `no rows`},
		{`[]`, `not a capability table`},
		{row("") + `{}`, `more than one JSON value`},
		{strings.Replace(row(""), `}]}`, `}, {"match": ["m-1"], "provider": "openai", "tools": true, "structured_output": true, "strict_tools": true, "tools_with_json_output": true, "unsupported_keywords": [], "min_cache_tokens": 0, "context_window": 100, "max_output_tokens": 10, "docs": ["https://example.com"], "checked": "2026-11-23", "note": ""}]}`, 1), `model pattern "m-1" is in two rows (models[0] and models[1])`},
	}
	for _, tt := range tests {
		_, err := ParseModels([]byte(tt.data), "x")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseModels(%s)\n got %v\nwant %q", tt.data, err, tt.want)
		}
	}
}

// TestWith checks overrides: a correction starts from the row it
// corrects and wins over it; a new model needs a provider; a repeated
// built-in pattern is taken over.
func TestWith(t *testing.T) {
	base := BuiltinModels()
	n := 8192
	no := false
	anthropic := "anthropic"
	tab, err := base.With(
		ModelOverride{Name: "gpt-4o-2099-01-01", Source: "tessera.yaml:3", MaxOutputTokens: &n},
		ModelOverride{Name: "gemini-2.5", Source: "tessera.yaml:5", ToolsWithJSONOutput: &no, StructuredOutput: &no},
		ModelOverride{Name: "my-claude", Source: "tessera.yaml:7", Provider: &anthropic},
	)
	if err != nil {
		t.Fatal(err)
	}
	m, pat, ok := tab.Lookup("gpt-4o-2099-01-01")
	if !ok || pat != "gpt-4o-2099-01-01" || m.MaxOutputTokens != 8192 || !m.StructuredOutput || m.ContextWindow != 128000 || m.Source != "tessera.yaml:3" {
		t.Errorf("correction: %q %+v", pat, m)
	}
	if m, _, _ := tab.Lookup("gpt-4o"); m.MaxOutputTokens != 16384 {
		t.Errorf("the corrected row changed for other names: %+v", m)
	}
	if m, _, _ := tab.Lookup("gemini-2.5-pro"); m.StructuredOutput || m.Source != "tessera.yaml:5" {
		t.Errorf("a repeated built-in pattern was not taken over: %+v", m)
	}
	if m, _, ok := tab.Lookup("my-claude-v2"); !ok || m.Provider != "anthropic" || m.StructuredOutput || m.Docs != nil {
		t.Errorf("new model: %+v", m)
	}
	if m, _, _ := base.Lookup("gemini-2.5-pro"); !m.StructuredOutput {
		t.Error("With changed the table it was called on")
	}
	bad := []struct {
		o    ModelOverride
		want string
	}{
		{ModelOverride{Name: "mystery", Source: "tessera.yaml:9"}, `tessera.yaml:9: model "mystery" is not in Tessera's table: give its provider`},
		{ModelOverride{Name: "Bad Name", Source: "tessera.yaml:9"}, `tessera.yaml:9: model pattern "Bad Name"`},
		{ModelOverride{Name: "gpt-4o", Source: "tessera.yaml:9", UnsupportedKeywords: &[]string{"min imum"}}, `tessera.yaml:9: gpt-4o: unsupported_keywords`},
	}
	for _, b := range bad {
		if _, err := base.With(b.o); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("With(%+v): %v, want %q", b.o, err, b.want)
		}
	}
	if _, err := base.With(ModelOverride{Name: "x-1", Source: "a", Provider: &anthropic}, ModelOverride{Name: "x-1", Source: "b", Provider: &anthropic}); err == nil || !strings.Contains(err.Error(), `"x-1" is in two rows (a and b)`) {
		t.Errorf("a name given twice: %v", err)
	}
}

func TestProviderOf(t *testing.T) {
	for f, want := range map[Format]string{OpenAIChat: "openai", OpenAIResponses: "openai", Anthropic: "anthropic", Gemini: "gemini"} {
		if got := ProviderOf(f); got != want {
			t.Errorf("ProviderOf(%s) = %s", f, got)
		}
	}
}

// BenchmarkLookup is the table lookup a delivery makes once per request.
// Target: under 1 µs and no allocation for a name already in lower case.
func BenchmarkLookup(b *testing.B) {
	tab := BuiltinModels()
	for _, name := range []string{"gpt-4o-2024-08-06", "claude-sonnet-4-5", "gemini-3.5-flash", "unknown-model"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tab.Lookup(name)
			}
		})
	}
}
