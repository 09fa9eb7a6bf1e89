package catalog

import (
	"context"
	"github.com/tessera-dev/tessera/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/tokenizer"
)

// TestTokenizers maps models to a tokenizer file and checks that the
// budget model, TokenizerFor and TokenizerNamed find it, and that a
// missing entry is a clear error.
func TestTokenizers(t *testing.T) {
	dir := writeTree(t, with(base(), "tessera.yaml", "tasks: tasks\nworkflows: workflows\nbudget:\n  model: deepseek-v3\n  context: 1000\ntokenizers:\n  deepseek-*:\n    file: tok/tokenizer.json\n    message_overhead: 7\n"))
	data := golden.ReadGzip(t, "../tokenizer/hf/testdata/deepseek_v3.tokenizer.json.gz")
	if err := os.MkdirAll(filepath.Join(dir, "tok"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tok", "tokenizer.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	counter, b, err := c.ConfiguredBudget(2)
	if err != nil {
		t.Fatal(err)
	}
	if !counter.Exact() || !strings.HasPrefix(counter.Name(), "hf:") || !strings.HasSuffix(counter.Name(), "/deepseek-v3") {
		t.Errorf("counter %s (exact %v), want an exact hf: counter", counter.Name(), counter.Exact())
	}
	if want := 7*2 + 2; b.Overhead != want {
		t.Errorf("overhead %d, want %d", b.Overhead, want)
	}
	if n := counter.Count("Hello, world"); n != 3 {
		t.Errorf("Count = %d, want 3", n)
	}
	again, err := c.TokenizerNamed(counter.Name())
	if err != nil || again.Name() != counter.Name() {
		t.Errorf("TokenizerNamed: %v, %v", again, err)
	}
	if _, err := c.TokenizerNamed("hf:0000000000000000/llama3"); err == nil || !strings.Contains(err.Error(), "no entry of tokenizers:") {
		t.Errorf("TokenizerNamed of an unknown file: %v", err)
	}
	if c2, err := c.CounterFor("gpt-4o"); err != nil || c2.Name() != tokenizer.O200kBaseName {
		t.Errorf("CounterFor(gpt-4o) = %v, %v", c2, err)
	}
}

// TestTokenizersErrors checks tokenizers: entries that are refused.
func TestTokenizersErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"tokenizers: x\n", "tokenizers: want a mapping"},
		{"tokenizers:\n  llama:\n    message_overhead: 3\n", `missing key "file"`},
		{"tokenizers:\n  llama: ../out.json\n", "tokenizers.llama"},
		{"budget:\n  model: llama-3\n  context: 10\n", `budget.model: unknown model "llama-3"`},
	} {
		_, err := ParseConfig(ConfigFile, []byte("tasks: t\nworkflows: w\n"+tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.yaml, err, tc.want)
		}
	}
	if _, err := ParseConfig(ConfigFile, []byte("tasks: t\nworkflows: w\nbudget:\n  model: llama-3\n  context: 10\ntokenizers:\n  llama-*: t.json\n")); err != nil {
		t.Errorf("a budget model with a tokenizer file: %v", err)
	}
}
