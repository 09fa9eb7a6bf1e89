// Package httpembed is an embed.Embedder for any OpenAI-compatible
// embeddings endpoint: OpenAI itself, Ollama (http://localhost:11434/v1),
// the llama.cpp server, vLLM and others that serve POST {base}/embeddings
// in OpenAI's wire format:
//
//	request:  {"model": "nomic-embed-text", "input": ["text", ...]}
//	response: {"data": [{"index": 0, "embedding": [0.1, ...]}, ...]}
//
// It uses only the standard library, so the core of Tessera imports no
// provider SDK. One Embed call is one request, whatever the number of
// texts; the caller batches. Every error names the URL, and the HTTP
// status when there is one; the API key never appears in an error.
package httpembed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tessera-dev/tessera/embed"
)

// DefaultTimeout bounds one request when Client.Timeout is 0.
const DefaultTimeout = 60 * time.Second

// DefaultMaxResponseBytes caps a response body when
// Client.MaxResponseBytes is 0: 64 MiB, room for a few thousand vectors
// of 3,072 numbers.
const DefaultMaxResponseBytes = 64 << 20

// Client embeds texts through an OpenAI-compatible embeddings endpoint.
// The zero value is not usable: set BaseURL and Model, or use New. A
// Client is safe for concurrent use once its fields are set.
type Client struct {
	// BaseURL is the API's base, such as "http://localhost:11434/v1" or
	// "https://api.openai.com/v1"; requests go to BaseURL + "/embeddings".
	BaseURL string
	// Model is the embedding model, such as "nomic-embed-text".
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer APIKey".
	APIKey string
	// Dimensions, when above 0, asks for vectors of that length (OpenAI's
	// text-embedding-3 models honour it) and is part of Name.
	Dimensions int
	// ID, when set, is the Name of the vector space in place of the
	// default "openai-compatible/<model>".
	ID string
	// HTTPClient sends the requests; nil means a client of its own
	// (never http.DefaultClient's shared state).
	HTTPClient *http.Client
	// Timeout bounds one request, on top of the context's deadline; 0
	// means DefaultTimeout.
	Timeout time.Duration
	// MaxResponseBytes caps the response body; 0 means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
}

// New returns a client for baseURL and model, after checking that
// baseURL is an http or https URL with a host and model is not empty.
func New(baseURL, model, apiKey string) (*Client, error) {
	c := &Client{BaseURL: baseURL, Model: model, APIKey: apiKey}
	if err := c.Check(); err != nil {
		return nil, err
	}
	return c, nil
}

// Check reports whether the client's BaseURL and Model can be used.
func (c *Client) Check() error {
	if c == nil {
		return errors.New("httpembed: no client (nil)")
	}
	if strings.TrimSpace(c.Model) == "" {
		return errors.New("httpembed: no model: name the embedding model, such as nomic-embed-text")
	}
	_, err := c.endpoint()
	return err
}

// endpoint is the request URL: BaseURL + "/embeddings".
func (c *Client) endpoint() (string, error) {
	u, err := url.Parse(strings.TrimSpace(c.BaseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("httpembed: base URL %q: want http:// or https://, a host, and a path such as /v1, without credentials, query or fragment", c.BaseURL)
	}
	return strings.TrimRight(u.String(), "/") + "/embeddings", nil
}

// Name implements embed.Embedder: ID when set, else
// "openai-compatible/<model>", with "/<dimensions>" when set.
func (c *Client) Name() string {
	if c.ID != "" {
		return c.ID
	}
	if c.Dimensions > 0 {
		return "openai-compatible/" + c.Model + "/" + strconv.Itoa(c.Dimensions)
	}
	return "openai-compatible/" + c.Model
}

type request struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

type response struct {
	Data []struct {
		Index     *int      `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
}

// Error is a failed request: the URL, the HTTP status (0 when no
// response came) and what went wrong.
type Error struct {
	URL    string
	Status int
	Msg    string
	Err    error
}

func (e *Error) Error() string {
	s := "embeddings " + e.URL
	if e.Status != 0 {
		s += ": " + strconv.Itoa(e.Status) + " " + http.StatusText(e.Status)
	}
	return s + ": " + e.Msg
}

// Unwrap returns the cause, such as a context's error.
func (e *Error) Unwrap() error { return e.Err }

// Embed implements embed.Embedder: one POST of every text. An empty text,
// which some servers refuse, is sent as one space. The vectors come back
// in the texts' order, whatever order the response lists them in; a
// response that does not give exactly one vector per text, all of one
// length, is an error.
func (c *Client) Embed(ctx context.Context, texts []string) ([]embed.Vector, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if len(texts) == 0 {
		return nil, ctx.Err()
	}
	u, _ := c.endpoint()
	fail := func(status int, err error, format string, args ...any) error {
		return &Error{URL: u, Status: status, Msg: fmt.Sprintf(format, args...), Err: err}
	}
	in := make([]string, len(texts))
	for i, t := range texts {
		if t == "" {
			t = " "
		}
		in[i] = t
	}
	body, err := json.Marshal(request{Model: c.Model, Input: in, Dimensions: c.Dimensions})
	if err != nil {
		return nil, fail(0, err, "encoding the request: %v", err)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, fail(0, err, "%v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	res, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fail(0, ctx.Err(), "no answer within %v or before the caller gave up (%v): is the server running and the model loaded?", timeout, ctx.Err())
		}
		return nil, fail(0, err, "%v: is the server running at that address?", unwrapURLError(err))
	}
	defer res.Body.Close()
	limit := c.MaxResponseBytes
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return nil, fail(res.StatusCode, err, "reading the response: %v", err)
	}
	if int64(len(data)) > limit {
		return nil, fail(res.StatusCode, nil, "the response is larger than %d bytes: send fewer texts per call", limit)
	}
	if res.StatusCode != http.StatusOK {
		msg := serverMessage(data)
		switch res.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			msg += ": check the API key (the environment variable layered.yaml's embedder names)"
		case http.StatusNotFound:
			msg += fmt.Sprintf(": check the base URL (it should end where /embeddings is served, such as /v1) and that model %q exists", c.Model)
		}
		return nil, fail(res.StatusCode, nil, "%s", msg)
	}
	var r response
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fail(res.StatusCode, err, "the response is not an embeddings response: %v", err)
	}
	if len(r.Data) != len(texts) {
		return nil, fail(res.StatusCode, nil, "%d vectors for %d texts", len(r.Data), len(texts))
	}
	out := make([]embed.Vector, len(texts))
	dim := -1
	for i, d := range r.Data {
		j := i
		if d.Index != nil {
			j = *d.Index
		}
		if j < 0 || j >= len(out) || out[j] != nil {
			return nil, fail(res.StatusCode, nil, "data[%d] has index %d: want each of 0 to %d once", i, j, len(texts)-1)
		}
		if len(d.Embedding) == 0 {
			return nil, fail(res.StatusCode, nil, "data[%d] has no embedding", i)
		}
		if dim >= 0 && len(d.Embedding) != dim {
			return nil, fail(res.StatusCode, nil, "data[%d] has %d numbers, data[0] %d: want vectors of one length", i, len(d.Embedding), dim)
		}
		dim = len(d.Embedding)
		v := make(embed.Vector, len(d.Embedding))
		for k, x := range d.Embedding {
			v[k] = float32(x)
		}
		out[j] = v
	}
	return out, nil
}

// serverMessage is the error a server put in its body: OpenAI's
// {"error": {"message": ...}}, {"error": "..."}, or the start of the
// text.
func serverMessage(data []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &e) == nil && len(e.Error) > 0 {
		var s string
		if json.Unmarshal(e.Error, &s) == nil && s != "" {
			return clip(s)
		}
		var m struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &m) == nil && m.Message != "" {
			return clip(m.Message)
		}
	}
	if s := strings.TrimSpace(string(data)); s != "" {
		return clip(s)
	}
	return "no message"
}

// clip keeps a server's message to one line of at most 200 bytes.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		i := 200
		for i > 0 && s[i]&0xC0 == 0x80 {
			i--
		}
		s = s[:i] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}

// unwrapURLError drops the "Post URL:" prefix net/http adds, as the
// error names the URL already.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

var _ embed.Embedder = (*Client)(nil)
