package layered

import (
	"net/http"
	"os"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/embed"
	"github.com/tessera-dev/tessera/embed/httpembed"
	"github.com/tessera-dev/tessera/internal/yamldoc"
)

// The embedder types layered.yaml's embedder may name.
const (
	// embedderLexical is the built-in lexical embedder, embed.Hash.
	embedderLexical = "lexical"
	// embedderOpenAI is an OpenAI-compatible embeddings endpoint (OpenAI,
	// Ollama, the llama.cpp server, vLLM), through httpembed.Client.
	embedderOpenAI = "openai-compatible"
)

// EmbedderConfig is layered.yaml's embedder: the built-in lexical one
// (the default), or an OpenAI-compatible embeddings endpoint:
//
//	embedder:
//	  type: openai-compatible       # or lexical
//	  base_url: http://localhost:11434/v1
//	  model: nomic-embed-text
//	  api_key_env: OPENAI_API_KEY   # optional: the NAME of the variable
//	  dimensions: 256               # optional
//	  timeout: 30s                  # optional; default 60s
//	  id: ollama/nomic              # optional: the vector space's name
//
// `embedder: lexical` is short for the first.
type EmbedderConfig struct {
	// Type is embedderLexical or embedderOpenAI.
	Type string
	// BaseURL, Model, APIKeyEnv, Dimensions, Timeout and ID configure an
	// endpoint (see httpembed.Client); for the lexical embedder,
	// Dimensions is its number of buckets (0: 256).
	BaseURL    string
	Model      string
	APIKeyEnv  string
	Dimensions int
	Timeout    time.Duration
	ID         string

	path      string
	line, col int
}

type embedderDoc struct {
	Type       string `yaml:"type"`
	BaseURL    string `yaml:"base_url"`
	Model      string `yaml:"model"`
	APIKeyEnv  string `yaml:"api_key_env"`
	Dimensions int    `yaml:"dimensions"`
	Timeout    string `yaml:"timeout"`
	ID         string `yaml:"id"`
}

var embedderSchema = yamldoc.NewSchema[embedderDoc](yamldoc.Options{Doc: "layered.yaml", Columns: true})

// parseEmbedder reads layered.yaml's embedder node (nil: the lexical
// default).
func parseEmbedder(path string, n *yaml.Node) (EmbedderConfig, diag.List) {
	cfg := EmbedderConfig{Type: embedderLexical, path: path}
	if n == nil {
		return cfg, nil
	}
	cfg.line, cfg.col = n.Line, n.Column
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		if n.Value != embedderLexical {
			return cfg, diag.List{diag.ErrorfAt(path, n.Line, n.Column, "embedder: %q: write lexical, or a mapping with type: %s, base_url, model and api_key_env", n.Value, embedderOpenAI)}
		}
		return cfg, nil
	}
	if n.Kind != yaml.MappingNode {
		return cfg, diag.List{diag.ErrorfAt(path, n.Line, n.Column, "embedder: want lexical, or a mapping with type: %s, base_url, model and api_key_env", embedderOpenAI)}
	}
	var doc embedderDoc
	d := embedderSchema.Decode(path, n, &doc)
	errs := d.Errors()
	at := func(key, format string, args ...any) {
		line, col := d.Pos(key)
		if line == 0 {
			line, col = n.Line, n.Column
		}
		errs = append(errs, diag.ErrorfAt(path, line, col, format, args...))
	}
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv, cfg.Dimensions, cfg.ID = doc.BaseURL, doc.Model, doc.APIKeyEnv, doc.Dimensions, doc.ID
	switch doc.Type {
	case "", embedderLexical:
		cfg.Type = embedderLexical
		for _, k := range []struct{ key, v string }{{"base_url", doc.BaseURL}, {"model", doc.Model}, {"api_key_env", doc.APIKeyEnv}, {"timeout", doc.Timeout}, {"id", doc.ID}} {
			if k.v != "" {
				at(k.key, "embedder.%s: the lexical embedder takes none: set type: %s for an endpoint", k.key, embedderOpenAI)
			}
		}
	case embedderOpenAI, "openai":
		cfg.Type = embedderOpenAI
		c := httpembed.Client{BaseURL: doc.BaseURL, Model: doc.Model}
		if strings.TrimSpace(doc.Model) == "" {
			at("type", "embedder: no model: name the embedding model, such as model: nomic-embed-text")
		}
		if doc.BaseURL == "" {
			at("type", "embedder: no base_url: give the API's base, such as http://localhost:11434/v1 (Ollama) or https://api.openai.com/v1")
		} else if c.Model = "m"; c.Check() != nil {
			at("base_url", "embedder.base_url %q: want http:// or https://, a host and the path /embeddings is served under, such as http://localhost:11434/v1", doc.BaseURL)
		}
		if doc.APIKeyEnv != "" && !envName(doc.APIKeyEnv) {
			at("api_key_env", "embedder.api_key_env %q: want the NAME of an environment variable, such as OPENAI_API_KEY, not the key", doc.APIKeyEnv)
		}
		if doc.Timeout != "" {
			t, err := time.ParseDuration(doc.Timeout)
			if err != nil || t <= 0 {
				at("timeout", "embedder.timeout %q: want a duration such as 30s", doc.Timeout)
			}
			cfg.Timeout = t
		}
	default:
		at("type", "embedder.type %q: use %s or %s", doc.Type, embedderLexical, embedderOpenAI)
	}
	if doc.Dimensions < 0 || doc.Dimensions > 1<<16 {
		at("dimensions", "embedder.dimensions %d: want 1 to 65536, or leave it out", doc.Dimensions)
	}
	return cfg, errs
}

func envName(s string) bool {
	for i, c := range s {
		if !(c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}

// NewEmbedder returns the embedder the setup's layered.yaml names: the
// lexical embed.Hash when it names none. getenv reads the API key's
// variable (nil means os.Getenv); hc sends an endpoint's requests (nil:
// a client of its own). A variable named but not set is an error at the
// api_key_env key.
func (s *Setup) NewEmbedder(getenv func(string) string, hc *http.Client) (embed.Embedder, error) {
	if s == nil {
		return nil, errNilSetup
	}
	c := s.Embedder
	if c.Type != embedderOpenAI {
		return embed.Hash{Dim: c.Dimensions}, nil
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	cl := &httpembed.Client{BaseURL: c.BaseURL, Model: c.Model, Dimensions: c.Dimensions, Timeout: c.Timeout, ID: c.ID, HTTPClient: hc}
	if c.APIKeyEnv != "" {
		cl.APIKey = strings.TrimSpace(getenv(c.APIKeyEnv))
		if cl.APIKey == "" {
			return nil, diag.ErrorfAt(c.path, c.line, c.col, "embedder: the environment variable %s holds no API key: export %s=... or remove api_key_env (a local server such as Ollama needs none)", c.APIKeyEnv, c.APIKeyEnv)
		}
	}
	if err := cl.Check(); err != nil {
		return nil, diag.ErrorfAt(c.path, c.line, c.col, "embedder: %v", err)
	}
	return cl, nil
}
