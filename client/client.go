package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultTTL is how long a fetched prompt is served without asking the
// server again, as in Langfuse's clients.
const DefaultTTL = 60 * time.Second

// DefaultTimeout bounds each request to the server, as in Langfuse's
// clients.
const DefaultTimeout = 5 * time.Second

// retryBackoff is the shortest wait before a failed refresh is tried
// again (at most the TTL).
const retryBackoff = 5 * time.Second

// maxBody caps a response body.
const maxBody = 32 << 20

var (
	// ErrNotFound is wrapped by the error of a fetch the server answered
	// with 404: no such prompt, label, version or hash.
	ErrNotFound = errors.New("prompt not found")
	// ErrClosed is returned by calls on a closed Client.
	ErrClosed = errors.New("client is closed")
)

// Options configure a Client.
type Options struct {
	// BaseURL is the server, such as "http://localhost:3000"; the API's
	// paths are added to it.
	BaseURL string
	// PublicKey and SecretKey are the key pair sent with HTTP Basic
	// authentication.
	PublicKey, SecretKey string
	// TTL is how long a prompt is served from the cache before it is
	// refreshed: DefaultTTL when 0; a negative TTL turns caching off
	// (every Get asks the server; ByHash still caches).
	TTL time.Duration
	// Timeout bounds each request: DefaultTimeout when 0.
	Timeout time.Duration
	// Fallback, if set, is the compiled catalog (tessera compile's
	// output directory, with manifest.json at its root), usually
	// embedded with go:embed. A Get by label of a prompt that is not
	// cached, while the server cannot be reached, returns the prompt
	// from it, flagged Fallback. The prompt's name is its path in the
	// manifest without ".txt" ("pm_discovery.v1/pgc").
	Fallback fs.FS
	// HTTPClient sends the requests; a client of its own when nil.
	HTTPClient *http.Client
	// Now is the clock; time.Now when nil. Tests set it.
	Now func() time.Time
	// OnRefreshError, if set, is told of each background refresh that
	// failed (the stale copy stays in service).
	OnRefreshError func(name string, err error)
}

// Client fetches and caches prompts. Its methods are safe for concurrent
// use. Close it when done.
type Client struct {
	opts     Options
	base     *url.URL
	http     *http.Client
	ownHTTP  bool
	now      func() time.Time
	fallback *fallback

	ctx    context.Context // ended by Close; background refreshes run under it
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	entries  map[key]*entry
	inflight map[key]*call
	byHash   map[string]*Prompt

	// afterRefresh, if set, is called when a background refresh ends.
	afterRefresh func(name string)
}

// key is what a prompt is cached under.
type key struct {
	name    string
	label   string
	version int
}

// entry is a cached prompt.
type entry struct {
	p           *Prompt
	freshUntil  time.Time // served as fresh until then
	nextTry     time.Time // no refresh before then
	refreshing  bool
	lastFailure error
}

// call is a fetch in flight that callers of the same key wait for.
type call struct {
	done chan struct{}
	p    *Prompt
	err  error
}

// New returns a Client for the server opts names.
func New(opts Options) (*Client, error) {
	base, err := url.Parse(strings.TrimRight(opts.BaseURL, "/"))
	if err != nil || base.Scheme != "http" && base.Scheme != "https" || base.Host == "" {
		return nil, fmt.Errorf("client: base URL %q: give the server's http:// or https:// address, such as http://localhost:3000", opts.BaseURL)
	}
	c := &Client{opts: opts, base: base, http: opts.HTTPClient, now: opts.Now,
		entries: map[key]*entry{}, inflight: map[key]*call{}, byHash: map[string]*Prompt{}}
	if c.http == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		c.http, c.ownHTTP = &http.Client{Transport: t}, true
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.opts.TTL == 0 {
		c.opts.TTL = DefaultTTL
	}
	if c.opts.Timeout <= 0 {
		c.opts.Timeout = DefaultTimeout
	}
	if opts.Fallback != nil {
		if c.fallback, err = loadFallback(opts.Fallback); err != nil {
			return nil, err
		}
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

// Close stops the background refreshes, waits for them to end, and
// closes the client's idle connections. Calls after Close fail with
// ErrClosed.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
	if c.ownHTTP {
		c.http.CloseIdleConnections()
	}
	return nil
}

// GetOptions select the prompt Get fetches.
type GetOptions struct {
	// Label selects the version the label points at; "production" (the
	// server's default) when neither Label nor Version is set.
	Label string
	// Version selects a version by number, from 1.
	Version int
	// TTL overrides the client's TTL for this prompt when not 0; a
	// negative TTL skips the cache and asks the server.
	TTL time.Duration
}

// Get returns the prompt name by label or version (see the package
// documentation for the cache). An error wraps ErrNotFound when the
// server has no such prompt, label or version.
func (c *Client) Get(ctx context.Context, name string, opts GetOptions) (*Prompt, error) {
	if name == "" {
		return nil, errors.New("client: Get needs a prompt name")
	}
	if opts.Label != "" && opts.Version != 0 {
		return nil, fmt.Errorf("client: prompt %s: give a label or a version, not both", name)
	}
	if opts.Version < 0 {
		return nil, fmt.Errorf("client: prompt %s: version %d is not a version number (from 1)", name, opts.Version)
	}
	if opts.Label == "" && opts.Version == 0 {
		opts.Label = "production"
	}
	ttl := c.opts.TTL
	if opts.TTL != 0 {
		ttl = opts.TTL
	}
	k := key{name: name, label: opts.Label, version: opts.Version}
	now := c.now()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	if e := c.entries[k]; e != nil && ttl > 0 {
		p := e.p.clone()
		if now.Before(e.freshUntil) {
			c.mu.Unlock()
			return p, nil
		}
		p.Stale = true
		if !e.refreshing && !now.Before(e.nextTry) {
			e.refreshing = true
			c.wg.Add(1)
			go c.refresh(k, e.p.Hash, ttl)
		}
		c.mu.Unlock()
		return p, nil
	}
	c.mu.Unlock()
	p, err := c.fetchShared(ctx, k)
	if err != nil {
		if fb := c.fallbackFor(k, err); fb != nil {
			return fb, nil
		}
		return nil, err
	}
	if ttl > 0 {
		c.store(k, p, ttl)
	}
	return p.clone(), nil
}

// fetchShared fetches k, sharing one request among the callers that ask
// for k at the same time. The request runs under the client's context,
// not a caller's, so that a caller who gives up does not fail the others;
// each caller waits as long as its own ctx allows.
func (c *Client) fetchShared(ctx context.Context, k key) (*Prompt, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	cl := c.inflight[k]
	if cl == nil {
		cl = &call{done: make(chan struct{})}
		c.inflight[k] = cl
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			cl.p, _, cl.err = c.fetch(c.ctx, k, "")
			c.mu.Lock()
			delete(c.inflight, k)
			c.mu.Unlock()
			close(cl.done)
		}()
	}
	c.mu.Unlock()
	select {
	case <-cl.done:
		return cl.p, cl.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// store caches p under k for ttl.
func (c *Client) store(k key, p *Prompt, ttl time.Duration) {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.entries[k] = &entry{p: p, freshUntil: now.Add(ttl), nextTry: now.Add(ttl)}
}

// refresh fetches k again in the background, sending hash as
// If-None-Match, and updates or evicts its entry.
func (c *Client) refresh(k key, hash string, ttl time.Duration) {
	defer c.wg.Done()
	p, notModified, err := c.fetch(c.ctx, k, hash)
	now := c.now()
	c.mu.Lock()
	e := c.entries[k]
	switch {
	case e == nil:
	case err == nil && notModified:
		e.freshUntil, e.nextTry, e.refreshing, e.lastFailure = now.Add(ttl), now.Add(ttl), false, nil
	case err == nil:
		c.entries[k] = &entry{p: p, freshUntil: now.Add(ttl), nextTry: now.Add(ttl)}
	case errors.Is(err, ErrNotFound):
		// The label was removed or the prompt is gone: never serve it
		// again without asking.
		delete(c.entries, k)
	default:
		e.refreshing, e.lastFailure = false, err
		e.nextTry = now.Add(min(retryBackoff, ttl))
	}
	hook, onErr := c.afterRefresh, c.opts.OnRefreshError
	c.mu.Unlock()
	if err != nil && onErr != nil && c.ctx.Err() == nil {
		onErr(k.name, err)
	}
	if hook != nil {
		hook(k.name)
	}
}

// ByHash returns the prompt whose assembled text has the SHA-256 hash
// (64 lower-case hex digits). Its answer never changes, so it is cached
// for ever. When the server cannot be reached, a prompt of the fallback
// catalog with that hash is returned, flagged Fallback.
func (c *Client) ByHash(ctx context.Context, hash string) (*Prompt, error) {
	if len(hash) != 64 || strings.Trim(hash, "0123456789abcdef") != "" {
		return nil, fmt.Errorf("client: %q is not a SHA-256: give 64 lower-case hex digits", hash)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	if p := c.byHash[hash]; p != nil {
		c.mu.Unlock()
		return p.clone(), nil
	}
	c.mu.Unlock()
	p, err := c.fetchShared(ctx, key{name: "\x00hash", label: hash})
	if err != nil {
		if fb := c.fallbackFor(key{name: "\x00hash", label: hash}, err); fb != nil {
			return fb, nil
		}
		return nil, err
	}
	if p.Hash != hash {
		return nil, fmt.Errorf("client: the server answered the prompt with hash %s for hash %s", p.Hash, hash)
	}
	c.mu.Lock()
	c.byHash[hash] = p
	c.mu.Unlock()
	return p.clone(), nil
}

// Error is a server's answer that is not a prompt.
type Error struct {
	// Status is the HTTP status code.
	Status int
	// Message is the server's message, if it gave one.
	Message string
	// URL is what was asked, without credentials.
	URL string
}

// Error says what was asked and what the server answered.
func (e *Error) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	return fmt.Sprintf("client: GET %s: %d: %s", e.URL, e.Status, msg)
}

// Unwrap makes a 404 match ErrNotFound.
func (e *Error) Unwrap() error {
	if e.Status == http.StatusNotFound {
		return ErrNotFound
	}
	return nil
}

// url is the address of k.
func (c *Client) url(k key) string {
	u := *c.base
	if k.name == "\x00hash" {
		u.Path += "/api/tessera/v1/prompts/by-hash/" + k.label
		u.RawPath = ""
		return u.String()
	}
	// The name is one path segment: a '/' in it is escaped, as
	// Langfuse's clients escape folder names.
	u.RawPath = u.EscapedPath() + "/api/public/v2/prompts/" + url.PathEscape(k.name)
	u.Path += "/api/public/v2/prompts/" + k.name
	q := url.Values{}
	if k.version > 0 {
		q.Set("version", strconv.Itoa(k.version))
	} else {
		q.Set("label", k.label)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// fetch asks the server for k; with etag, a 304 answer returns
// notModified.
func (c *Client) fetch(ctx context.Context, k key, etag string) (p *Prompt, notModified bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	u := c.url(k)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false, fmt.Errorf("client: %w", err)
	}
	req.SetBasicAuth(c.opts.PublicKey, c.opts.SecretKey)
	req.Header.Set("Accept", "application/json")
	if etag != "" {
		req.Header.Set("If-None-Match", `"`+etag+`"`)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, false, &transportError{err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, false, &transportError{err}
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && etag != "":
		return nil, true, nil
	case resp.StatusCode != http.StatusOK:
		e := &Error{Status: resp.StatusCode, URL: u}
		var m struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(body, &m) == nil {
			e.Message = m.Message
		}
		return nil, false, e
	case len(body) > maxBody:
		return nil, false, fmt.Errorf("client: GET %s: the answer is over %d bytes", u, maxBody)
	}
	p, err = parsePrompt(body)
	if err != nil {
		return nil, false, fmt.Errorf("client: GET %s: %w", u, err)
	}
	return p, false, nil
}

// transportError is a request that got no answer.
type transportError struct{ err error }

func (e *transportError) Error() string { return "client: " + e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// unreachable reports whether err says the server could not answer, so
// that a fallback copy may stand in: no answer, a 5xx or a 429.
func unreachable(err error) bool {
	var te *transportError
	if errors.As(err, &te) {
		return true
	}
	var e *Error
	return errors.As(err, &e) && (e.Status >= 500 || e.Status == http.StatusTooManyRequests)
}
