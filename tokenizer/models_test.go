package tokenizer

import (
	"math"
	"strings"
	"testing"
)

// TestForModel checks which counter each kind of model name gets, the
// estimate for Claude 4.7 and later included.
func TestForModel(t *testing.T) {
	for _, c := range []struct{ model, counter string }{
		{"gpt-4o", O200kBaseName},
		{"openai/gpt-4o-2024-08-06", O200kBaseName},
		{"gpt-5.1", O200kBaseName},
		{"o3-mini", O200kBaseName},
		{"gpt-4", Cl100kBaseName},
		{"gpt-3.5-turbo", Cl100kBaseName},
		{"cl100k_base", Cl100kBaseName},
		{"claude-sonnet-4-6", AnthropicEstimate},
		{"claude-sonnet-4-5-20250929", AnthropicEstimate},
		{"claude-opus-4-6", AnthropicEstimate},
		{"claude-opus-4", AnthropicEstimate},
		{"claude-3-5-sonnet-20241022", AnthropicEstimate},
		{"claude-3-haiku", AnthropicEstimate},
		{"anthropic/claude-haiku-4-5@20251001", AnthropicEstimate},
		{"claude", AnthropicEstimate},
		{"claude-opus-4-7", Anthropic47Estimate},
		{"Claude-Opus-4-7-20260415", Anthropic47Estimate},
		{"claude-opus-4-8", Anthropic47Estimate},
		{"claude-opus-4-10", Anthropic47Estimate},
		{"claude-opus-5", Anthropic47Estimate},
		{"claude-sonnet-5-5", Anthropic47Estimate},
		{"claude-opus-4.7", Anthropic47Estimate},
		{"gemini-2.5-pro", GeminiEstimate},
		{"gemma-3", GeminiEstimate},
		{"ft:gpt-4o-mini-2024-07-18:acme::9abcDEF", O200kBaseName},
		{"FT:gpt-3.5-turbo-0125:acme:support:8xyz", Cl100kBaseName},
	} {
		got, err := ForModel(c.model)
		if err != nil {
			t.Errorf("ForModel(%q): %v", c.model, err)
			continue
		}
		if got.Name() != c.counter {
			t.Errorf("ForModel(%q) counts with %s, want %s", c.model, got.Name(), c.counter)
		}
	}
	for _, bad := range []string{"llama-3", "gpt", "claudex-4-7", "", "ft:", "ft:llama-3:acme::1"} {
		if _, err := ForModel(bad); err == nil || !strings.Contains(err.Error(), "unknown model") {
			t.Errorf("ForModel(%q) = %v, want an unknown-model error", bad, err)
		}
	}
}

// TestEstimates checks that each built-in estimate is found by its name,
// is not exact, and counts o200k_base's count times its factor, rounded
// up.
func TestEstimates(t *testing.T) {
	text := "Tessera assembles prompts: 日本語のテキスト, emoji 😀, and code `x := 1`."
	base := O200kBase().Count(text)
	for name, factor := range map[string]float64{
		AnthropicEstimate:   AnthropicFactor,
		Anthropic47Estimate: Anthropic47Factor,
		GeminiEstimate:      GeminiFactor,
	} {
		c, err := CounterNamed(name)
		if err != nil {
			t.Fatalf("CounterNamed(%q): %v", name, err)
		}
		if c.Name() != name || c.Exact() {
			t.Errorf("CounterNamed(%q) is %s, exact %v", name, c.Name(), c.Exact())
		}
		if got, want := c.Count(text), int(math.Ceil(float64(base)*factor)); got != want {
			t.Errorf("%s counts %d, want %d (%d × %v, rounded up)", name, got, want, base, factor)
		}
	}
	if _, err := CounterNamed("estimate/llama"); err == nil || !strings.Contains(err.Error(), Anthropic47Estimate) {
		t.Errorf("CounterNamed of an unknown name = %v, want an error listing the known counters", err)
	}
}

// TestForModelRefusesUnknownVariants: a model name whose family Tessera
// knows but whose variant it does not ("gpt-4-turbo-x") is refused with
// a suggestion, never counted with the family's tokenizer and labelled
// exact; versions, dates, sizes, variant words and fine-tuned names pass.
func TestForModelRefusesUnknownVariants(t *testing.T) {
	for model, want := range map[string]string{
		"gpt-4-turbo-x":    "did you mean gpt-4-turbo?",
		"gpt-4o-minii":     "did you mean gpt-4o-mini?",
		"claude-sonet-4-6": "",
	} {
		_, err := ForModel(model)
		if err == nil || !strings.Contains(err.Error(), "unknown model") || !strings.Contains(err.Error(), want) {
			t.Errorf("ForModel(%q) = %v, want an unknown model error with %q", model, err, want)
		}
	}
	for _, model := range []string{
		"gpt-4o-mini-2024-07-18", "ft:gpt-4o-mini-2024-07-18:acme::9abc", "claude-3-5-sonnet@20240620",
		"gemini-2.5-pro-preview-05-06", "gpt-3.5-turbo-16k-0613", "o3-deep-research", "gpt-oss-120b",
		"openai/gpt-4o", "gemma-3-27b-it", "claude-opus-4-7", "gpt-5.1-codex-mini", "o200k_base",
	} {
		if _, err := ForModel(model); err != nil {
			t.Errorf("ForModel(%q): %v", model, err)
		}
	}
}
