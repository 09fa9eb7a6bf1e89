package main

import (
	"bytes"
	"context"
	"github.com/tessera-dev/tessera/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gunzipTo writes the decompressed gzip file src to dst.
func gunzipTo(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.WriteFile(dst, golden.ReadGzip(t, src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTokensTokenizerFile counts with a tokenizer file given by
// --tokenizer (DeepSeek V3's), and by tessera.yaml's tokenizers: in a
// catalog (the examples' tiny one: loading DeepSeek V3's takes some
// 0.8 s of CPU under the race detector, and the catalog's four commands
// would load it four times), and assembles a budget with it.
func TestTokensTokenizerFile(t *testing.T) {
	dir := t.TempDir()
	tok := filepath.Join(dir, "tokenizer.json")
	gunzipTo(t, filepath.Join("..", "..", "tokenizer", "hf", "testdata", "deepseek_v3.tokenizer.json.gz"), tok)
	text := filepath.Join(dir, "hello.txt")
	if err := os.WriteFile(text, []byte("Hello, world"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"tokens", "--raw", "--tokenizer", tok, text}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got := stdout.String(); !strings.HasPrefix(got, "3 tokens (hf:") || !strings.HasSuffix(got, "/deepseek-v3, exact)\n") {
		t.Errorf("stdout = %q", got)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"tokens", "--tokenizer", filepath.Join(dir, "missing.json"), text}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "missing.json") {
		t.Errorf("a missing file: exit %d, %q", code, stderr.String())
	}

	// In a catalog: tokenizers: maps the model, for tokens and a budget.
	cat := t.TempDir()
	for name, body := range map[string]string{
		"tessera.yaml":       "tasks: tasks\nworkflows: workflows\ntokenizers:\n  tiny-*: tok/tokenizer.json\n",
		"tasks/hello.txt":    "Hello, world\n",
		"workflows/w.json":   `{"workflow_id": "w", "nodes": [{"node_id": "a", "task_ref": "hello"}]}`,
		"tok/tokenizer.json": "",
	} {
		p := filepath.Join(cat, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tiny, err := os.ReadFile(filepath.Join("..", "..", "examples", "tokenizers", "tiny", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cat, "tok", "tokenizer.json"), tiny, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(cat)
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"tokens", "--model", "tiny-1", "tasks/hello.txt"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "/llama3, exact)") {
		t.Errorf("stdout = %q", stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"assemble", "--workflow", "w", "--node", "a", "--model", "tiny-1", "--budget", "100", "--explain"}, &stdout, &stderr); code != 0 {
		t.Fatalf("assemble exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "/llama3 (exact)") {
		t.Errorf("--explain does not name the counter: %q", stderr.String())
	}

	// A record counted with the file replays through tokenizers:, and
	// says what is missing once the entry is gone.
	log := filepath.Join(t.TempDir(), "log.jsonl")
	for _, args := range [][]string{
		{"assemble", "--workflow", "w", "--node", "a", "--model", "tiny-1", "--budget", "100", "--log", log, "--correlation-id", "r1"},
		{"replay", "--log", log, "--id", "r1"},
	} {
		stdout.Reset()
		stderr.Reset()
		if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
	}
	if err := os.WriteFile(filepath.Join(cat, "tessera.yaml"), []byte("tasks: tasks\nworkflows: workflows\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"replay", "--log", log, "--id", "r1"}, &stdout, &stderr); code != 1 || !strings.Contains(stdout.String()+stderr.String(), "no entry of tokenizers:") {
		t.Errorf("replay without the entry: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	t.Logf("replay without the entry: %s%s", stdout.String(), stderr.String())
}
