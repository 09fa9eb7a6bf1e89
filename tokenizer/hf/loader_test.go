package hf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// TestLoader loads tokenizer files through a Loader: the same bytes give
// the same Tokenizer, a GGUF file is read up to its metadata, and a
// tokenizer_config.json beside a tokenizer.json gives the chat template.
func TestLoader(t *testing.T) {
	gguf := append(smallGGUF(), make([]byte, 1<<16)...) // tensors after the metadata
	fsys := fstest.MapFS{
		"a/tokenizer.json":        {Data: tinyJSON()},
		"a/tokenizer_config.json": {Data: []byte(`{"chat_template": "{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}", "bos_token": {"content": "<s>"}}`)},
		"b/same.json":             {Data: tinyJSON()},
		"m.gguf":                  {Data: gguf},
		"bad.json":                {Data: []byte(`{"model": {"type": "WordPiece"}}`)},
	}
	var l Loader
	a, err := l.LoadFS(fsys, "a/tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := a.RenderChat([]Message{{"user", "hi"}}, false, nil); err != nil || out != "<s>hi" {
		t.Errorf("RenderChat = %q, %v", out, err)
	}
	b, err := l.LoadFS(fsys, "b/same.json")
	if err != nil {
		t.Fatal(err)
	}
	if b.Name() != a.Name() {
		t.Errorf("the same bytes: names %s and %s", a.Name(), b.Name())
	}
	if got, ok := l.Named(a.Name()); !ok || got != a {
		t.Errorf("Named(%s) = %v, %v", a.Name(), got, ok)
	}
	g, err := l.LoadFS(fsys, "m.gguf")
	if err != nil {
		t.Fatal(err)
	}
	if g.Count("ab") != 1 || !strings.HasPrefix(g.Name(), "hf:") || !strings.HasSuffix(g.Name(), "/byte-level-bpe") {
		t.Errorf("GGUF: %s counts ab as %d", g.Name(), g.Count("ab"))
	}
	if _, err := l.LoadFS(fsys, "bad.json"); err == nil || !strings.Contains(err.Error(), "bad.json") || !strings.Contains(err.Error(), "model.type") {
		t.Errorf("bad.json: %v", err)
	}
	// Load reads a path on disk.
	dir := t.TempDir()
	p := filepath.Join(dir, "tokenizer.json")
	if err := os.WriteFile(p, tinyJSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := l.Load(p); err != nil || d != a {
		t.Errorf("Load(%s) = %v, %v: want the Tokenizer already loaded", p, d, err)
	}
	if _, err := l.Load(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("a missing file: %v", err)
	}
}
