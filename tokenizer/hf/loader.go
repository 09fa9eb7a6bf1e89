package hf

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Loader loads tokenizer files and keeps each one, once parsed, by the
// SHA-256 of its contents, so that a file named twice (or under two
// names) is read once. It is the only state the package keeps: the
// caller makes a Loader and owns it. A Loader is safe for concurrent
// use; the zero value is ready to use.
type Loader struct {
	mu     sync.Mutex
	bySum  map[[sha256.Size]byte]*Tokenizer
	byName map[string]*Tokenizer
}

// Load reads a tokenizer file: a GGUF model file (by its magic number)
// or a Hugging Face tokenizer.json. For a tokenizer.json, a
// tokenizer_config.json in the same directory, if there is one, gives the
// chat template and the BOS and EOS tokens; it is read with the first
// load of those tokenizer.json bytes, which later loads of the same bytes
// share.
func (l *Loader) Load(path string) (*Tokenizer, error) {
	tk, err := l.LoadFS(os.DirFS(filepath.Dir(path)), filepath.Base(path))
	if err != nil {
		return nil, fmt.Errorf("tokenizer file %s: %w", filepath.Dir(path), err)
	}
	return tk, nil
}

// loadJSON parses a tokenizer.json (and its tokenizer_config.json, if
// cfg is not empty) unless the Loader has one with the same bytes.
func (l *Loader) loadJSON(name string, data, cfg []byte) (*Tokenizer, error) {
	sum := sha256.Sum256(data)
	l.mu.Lock()
	tk := l.bySum[sum]
	l.mu.Unlock()
	if tk != nil {
		return tk, nil
	}
	tk, err := Parse(data)
	if err == nil && len(cfg) > 0 {
		err = tk.SetConfig(cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return l.keep(tk), nil
}

// keep stores tk by its hash, or returns the one already stored.
func (l *Loader) keep(tk *Tokenizer) *Tokenizer {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bySum == nil {
		l.bySum = map[[sha256.Size]byte]*Tokenizer{}
		l.byName = map[string]*Tokenizer{}
	}
	if old := l.bySum[tk.sum]; old != nil {
		return old
	}
	l.bySum[tk.sum] = tk
	l.byName[tk.name] = tk
	return tk
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// pathDir returns the directory part of a slash-separated path, with its
// trailing slash, or "".
func pathDir(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i+1]
	}
	return ""
}

// Named returns a tokenizer this Loader has loaded, by its Name.
func (l *Loader) Named(name string) (*Tokenizer, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tk, ok := l.byName[name]
	return tk, ok
}

// SetConfig reads a tokenizer_config.json: its chat_template (a string,
// or the entry named "default" of a list) and its bos_token and
// eos_token (strings, or objects with a content).
func (tk *Tokenizer) SetConfig(data []byte) error {
	var cfg struct {
		ChatTemplate json.RawMessage `json:"chat_template"`
		BOS          json.RawMessage `json:"bos_token"`
		EOS          json.RawMessage `json:"eos_token"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return fmt.Errorf("tokenizer_config.json: %w", err)
	}
	if len(cfg.ChatTemplate) > 0 {
		var s string
		if json.Unmarshal(cfg.ChatTemplate, &s) == nil {
			tk.chatTemplate = s
		} else {
			var list []struct{ Name, Template string }
			if err := json.Unmarshal(cfg.ChatTemplate, &list); err != nil {
				return fmt.Errorf("tokenizer_config.json: chat_template: neither a string nor a list of {name, template}")
			}
			for _, t := range list {
				if t.Name == "default" {
					tk.chatTemplate = t.Template
				}
			}
		}
	}
	tk.bosToken = tokenText(cfg.BOS)
	tk.eosToken = tokenText(cfg.EOS)
	return nil
}

func tokenText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct{ Content string }
	if json.Unmarshal(raw, &o) == nil {
		return o.Content
	}
	return ""
}

// FamilyOf returns the family part of a counter name made by a
// Tokenizer ("hf:0123456789abcdef/llama3" gives "llama3"), and whether
// the name is one.
func FamilyOf(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "hf:")
	if !ok {
		return "", false
	}
	_, fam, ok := strings.Cut(rest, "/")
	return fam, ok
}
