package catalog

import (
	"fmt"
	"path"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/tokenizer"
	"github.com/tessera-dev/tessera/tokenizer/hf"
)

// TokenizerConfig is one entry of tessera.yaml's "tokenizers" key, which
// maps model names (or patterns, '*' standing for any run of characters
// but '/') to the tokenizer file of the model, relative to the catalog
// root: a Hugging Face tokenizer.json or a GGUF model file.
//
//	tokenizers:
//	  llama-3.1-8b-instruct: models/llama3/tokenizer.json
//	  qwen3-*: models/qwen3/tokenizer.json
//	  gemini-*: models/gemma3/tokenizer.json   # Gemini through the Gemma 3 vocabulary
//	  my-model:
//	    file: models/my-model.Q4_K_M.gguf
//	    message_overhead: 5   # tokens the chat template adds per message
//	    reply_overhead: 4     # and once, opening the reply
//
// Entries are tried in the order written; the first that matches wins.
type TokenizerConfig struct {
	Pattern string
	File    string
	// MessageOverhead and ReplyOverhead, when not negative, replace the
	// family's chat framing (hf.FamilyOverhead).
	MessageOverhead, ReplyOverhead int
	// Line is the line of the entry, for diagnostics.
	Line int
}

// tokenizersDoc is tessera.yaml's "tokenizers" key.
type tokenizersDoc []TokenizerConfig

type tokenizerEntryDoc struct {
	File            relPath     `yaml:"file"`
	MessageOverhead *tokenCount `yaml:"message_overhead"`
	ReplyOverhead   *tokenCount `yaml:"reply_overhead"`
}

// UnmarshalYAMLNode implements yamldoc.Unmarshaler.
func (l *tokenizersDoc) UnmarshalYAMLNode(d *yamldoc.Decoder, n *yaml.Node, at string) {
	if n.Kind != yaml.MappingNode {
		d.Wrong(n, at, "a mapping of model names (or patterns such as qwen3-*) to tokenizer files")
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" || k.Value == "" {
			d.Errorf(k, at, "a model name must be text, such as llama-3.1-8b-instruct or qwen3-*, found %s", k.Value)
			continue
		}
		key := at + "." + k.Value
		if _, err := path.Match(strings.ToLower(k.Value), ""); err != nil {
			d.Errorf(k, key, "model pattern %q: %v", k.Value, err)
			continue
		}
		e := TokenizerConfig{Pattern: strings.ToLower(k.Value), MessageOverhead: -1, ReplyOverhead: -1, Line: k.Line}
		if v.Kind == yaml.ScalarNode {
			var p relPath
			p.UnmarshalYAMLNode(d, v, key)
			if p == "" {
				continue
			}
			e.File = string(p)
		} else {
			var m tokenizerEntryDoc
			if v.Kind != yaml.MappingNode {
				d.Wrong(v, key, "a tokenizer file path, or a mapping with file, message_overhead and reply_overhead")
				continue
			}
			if !d.Decode(v, key, &m) {
				continue
			}
			if m.File == "" {
				d.Errorf(v, key, "missing key \"file\": name the model's tokenizer.json or GGUF file, relative to the catalog root")
				continue
			}
			e.File = string(m.File)
			if m.MessageOverhead != nil {
				e.MessageOverhead = int(*m.MessageOverhead)
			}
			if m.ReplyOverhead != nil {
				e.ReplyOverhead = int(*m.ReplyOverhead)
			}
		}
		*l = append(*l, e)
	}
}

// hasTokenizer reports whether an entry of tokenizers: matches model.
func (c *Config) hasTokenizer(model string) bool {
	return c.tokenizerEntry(model) != nil
}

// tokenizerEntry returns the first entry of tokenizers: that matches
// model, with or without a provider prefix ("meta-llama/").
func (c *Config) tokenizerEntry(model string) *TokenizerConfig {
	name := strings.ToLower(model)
	short := name
	if i := strings.LastIndexByte(short, '/'); i >= 0 {
		short = short[i+1:]
	}
	for i, e := range c.Tokenizers {
		m1, _ := path.Match(e.Pattern, name)
		m2, _ := path.Match(e.Pattern, short)
		if m1 || m2 {
			return &c.Tokenizers[i]
		}
	}
	return nil
}

// TokenizerFor returns the tokenizer the catalog's tokenizers: key names
// for model, loaded once per catalog (by the file's SHA-256), with the
// entry's chat framing; ok is false when no entry matches. A provider
// prefix ("meta-llama/") is tried with and without.
func (c *Catalog) TokenizerFor(model string) (counter tokenizer.Counter, ok bool, err error) {
	e := c.cfg.tokenizerEntry(model)
	if e == nil {
		return nil, false, nil
	}
	tk, err := c.loadTokenizer(*e)
	if err != nil {
		return nil, true, err
	}
	return tk, true, nil
}

// CounterFor returns the counter for model: its tokenizer file when
// tokenizers: names one, else tokenizer.ForModel's.
func (c *Catalog) CounterFor(model string) (tokenizer.Counter, error) {
	if c != nil {
		if tk, ok, err := c.TokenizerFor(model); ok {
			return tk, err
		}
	}
	return tokenizer.ForModel(model)
}

// TokenizerNamed returns the tokenizer of the catalog's tokenizers: key
// whose counter name is name ("hf:" and a hash of the file, as a record
// names it), loading the files it has not loaded yet.
func (c *Catalog) TokenizerNamed(name string) (tokenizer.Counter, error) {
	var errs []string
	for _, e := range c.cfg.Tokenizers {
		tk, err := c.loadTokenizer(e)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if tk.Name() == name {
			return tk, nil
		}
	}
	fam, _ := hf.FamilyOf(name)
	msg := fmt.Sprintf("counter %s was a %s tokenizer file that no entry of tokenizers: in %s names now: add the file back (the same bytes: the name holds the start of its SHA-256)", name, fam, ConfigFile)
	if len(errs) > 0 {
		msg += "; " + strings.Join(errs, "; ")
	}
	return nil, fmt.Errorf("%s", msg)
}

// loadTokenizer loads an entry's file through the catalog's root.
func (c *Catalog) loadTokenizer(e TokenizerConfig) (*hf.Framed, error) {
	tk, err := c.tokenizers.LoadFS(c.fsys, e.File)
	if err != nil {
		return nil, diag.ErrorfAt(ConfigFile, e.Line, 0, "tokenizers: %s: %v", e.Pattern, err)
	}
	o := hf.FamilyOverhead(tk.Family())
	if e.MessageOverhead >= 0 {
		o.PerMessage = e.MessageOverhead
	}
	if e.ReplyOverhead >= 0 {
		o.Reply = e.ReplyOverhead
	}
	return &hf.Framed{Tokenizer: tk, Overhead: o}, nil
}
