// Package serve is the HTTP front end of a Git-backed prompt registry: it
// serves the prompts of a catalog in a Git work tree (see package
// registry for the model of versions and labels) through Langfuse's
// prompt API, so Langfuse's clients work against it unchanged, and adds
// Tessera's own endpoints: fetch by hash, render with an audit record,
// replay, diff and the history of label moves.
//
// Git is the source of truth: prompts are created by commits, never by the
// API. The API moves and removes labels, which are Git refs.
package serve

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/presets"
	"github.com/tessera-dev/tessera/serve/registry"
)

// MaxBodyBytes caps a request body: 1 MiB.
const MaxBodyBytes = 1 << 20

// Config configures a Server.
type Config struct {
	// Root is the catalog's directory in a Git work tree.
	Root string
	// Branch is the default branch; empty takes the one HEAD names.
	Branch string
	// Store keeps keys, label moves and audit records; nil keeps them in
	// memory (NewMemStore). A store with a Kind() string method is named
	// by it in the metrics ("sqlite", "postgres"); others are "memory".
	Store Store
	// Engine builds and renders; nil uses Tessera's presets.
	Engine *engine.Engine
	// PollInterval is how often the repository is read again; 0 means
	// 1 s, and a negative interval turns polling off. A poll that finds
	// the same head only reads the refs, so servers sharing a repository
	// see each other's label moves within an interval.
	PollInterval time.Duration
	// RefreshSecret, when set, lets a forge's webhook call
	// POST /api/tessera/v1/refresh without a key: as "Authorization:
	// Bearer <secret>", GitLab's X-Gitlab-Token, or an X-Hub-Signature-256
	// HMAC of the body (GitHub, Gitea, Forgejo).
	RefreshSecret string
	// ProtectedLabels can be moved or removed by admin keys only.
	ProtectedLabels []string
	// GatedLabels move to a version only when every golden case of the
	// prompt (a render marked golden) replays there to its recorded hash.
	GatedLabels []string
	// AdminPublicKey and AdminSecretKey, when both set, are stored as an
	// admin key pair at start (TESSERA_PUBLIC_KEY, TESSERA_SECRET_KEY).
	AdminPublicKey, AdminSecretKey string
	// PublicMetrics serves /metrics without a key, for a scraper inside
	// the network.
	PublicMetrics bool
	// TracerProvider makes the spans of requests, with the prompt each
	// resolved (gen_ai.prompt.name, gen_ai.prompt.version,
	// tessera.prompt.hash, tessera.prompt.commit, tessera.prompt.label);
	// nil makes none.
	TracerProvider trace.TracerProvider
	// Webhooks are told of each new version ("created") and each version
	// that gains or loses a label ("updated"), in Langfuse's payload
	// shape, signed (see Sign); an event is tried 4 times, the delay
	// doubling from WebhookRetryDelay (0 means 1 s), and an endpoint is
	// disabled after 5 events in a row fail.
	Webhooks          []Webhook
	WebhookRetryDelay time.Duration
	// AuthCacheTTL is how long a key pair that authenticated is
	// remembered, so that requests do not each query the store: 0 means
	// 10 s, negative turns it off. A key replaced on another server that
	// shares the store is honoured here for at most that long.
	AuthCacheTTL time.Duration
	// Logger logs refreshes and failures; nil discards.
	Logger *slog.Logger
	// CacheSize is how many built catalogs are kept; 0 means 64.
	CacheSize int
	// Remote, when set, is a Git repository (a path or file:// URL, bare
	// as a rule, or an https, http, ssh or git URL) that replicas with
	// clones of their own share: each refresh fetches its branches, tags,
	// labels and golden cases, and label moves are made there by
	// compare-and-swap, so that a move made through one replica is served
	// by every other after its next poll, and of two replicas moving one
	// label at once, one wins and the other answers 409. See
	// registry.Options.Remote.
	Remote string
	// RemoteSSH gives the keys of an ssh Remote: a private key file (or
	// the SSH agent's keys) and the known_hosts files holding its host
	// key.
	RemoteSSH SSHOptions
	// PendingMoveTimeout is how long a label move kept before its ref
	// moves (see LabelLedger) may wait for the ref to get there before it
	// is taken for a move that was never made, and dropped; 0 means 2
	// minutes.
	PendingMoveTimeout time.Duration
	// MoveHook, when set, is called at each step of a label move
	// (StepPending, StepMoved); an error stops the move there, as a
	// server that stops would, and the PATCH answers 500. It is for tests
	// of what a crash between the steps leaves.
	MoveHook func(ctx context.Context, step string) error
}

// SSHOptions are the keys of an ssh remote (registry.SSHOptions).
type SSHOptions = registry.SSHOptions

// Server serves a registry over HTTP.
type Server struct {
	cfg     Config
	reg     *registry.Registry
	store   Store
	engine  *engine.Engine
	log     *slog.Logger
	handler http.Handler
	metrics *metrics
	tracer  trace.Tracer

	protected   map[string]bool
	gated       map[string]bool
	storeName   string // the store's kind, for the metrics
	ready       atomic.Bool
	lastRefresh atomic.Int64                   // Unix nanoseconds of the last successful read
	seen        atomic.Pointer[registry.State] // the state webhooks were told of
	ledger      LabelLedger
	reconciled  atomic.Bool // the label refs were compared with the store once
	hooks       *hooks
	auth        *authCache
	answers     respCache
	lastErr     atomic.Pointer[string]

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New opens the registry at cfg.Root, reads it once and starts polling
// it. A first read that fails is logged, and /readyz says why until a
// later read succeeds; a root that is not in a Git work tree is an error.
func New(ctx context.Context, cfg Config) (*Server, error) {
	s := &Server{cfg: cfg, store: cfg.Store, engine: cfg.Engine, log: cfg.Logger, protected: map[string]bool{}}
	if s.store == nil {
		s.store = NewMemStore()
	}
	if l, ok := s.store.(LabelLedger); ok {
		s.ledger = l
	} else {
		s.ledger = newMemLedger(s.store)
	}
	s.storeName = "memory"
	if n, ok := s.store.(interface{ Kind() string }); ok {
		s.storeName = n.Kind()
	}
	if s.engine == nil {
		s.engine = &engine.Engine{Registry: presets.Default(), Now: time.Now}
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	for _, l := range cfg.ProtectedLabels {
		if err := registry.CheckLabel(l); err != nil {
			return nil, fmt.Errorf("protected labels: %w", err)
		}
		s.protected[l] = true
	}
	s.gated = map[string]bool{}
	for _, l := range cfg.GatedLabels {
		if err := registry.CheckLabel(l); err != nil {
			return nil, fmt.Errorf("gated labels: %w", err)
		}
		s.gated[l] = true
	}
	for _, wh := range cfg.Webhooks {
		if u, err := url.Parse(wh.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("webhook %q: give an http or https URL", wh.URL)
		}
		if len(wh.Secret) < minSecretBytes {
			return nil, fmt.Errorf("webhook %s: its signing secret is %d bytes: give at least %d (TESSERA_WEBHOOK_SECRET)", wh.URL, len(wh.Secret), minSecretBytes)
		}
	}
	if (cfg.AdminPublicKey == "") != (cfg.AdminSecretKey == "") {
		return nil, errors.New("an admin key pair needs both keys: set TESSERA_PUBLIC_KEY and TESSERA_SECRET_KEY, or neither")
	}
	if cfg.AdminPublicKey != "" {
		if err := s.store.PutKey(ctx, cfg.AdminPublicKey, cfg.AdminSecretKey, RoleAdmin); err != nil {
			return nil, fmt.Errorf("storing the admin key: %w", err)
		}
	}
	reg, err := registry.Open(ctx, registry.Options{Root: cfg.Root, Branch: cfg.Branch, Engine: s.engine, Logger: s.log, CacheSize: cfg.CacheSize, Remote: cfg.Remote, SSH: cfg.RemoteSSH})
	if err != nil {
		return nil, err
	}
	s.reg = reg
	s.hooks = newHooks(cfg.Webhooks, cfg.WebhookRetryDelay, s.log, s.store)
	ttl := cfg.AuthCacheTTL
	if ttl == 0 {
		ttl = 10 * time.Second
	}
	s.auth = newAuthCache(ttl)
	s.metrics = newMetrics()
	tp := cfg.TracerProvider
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	s.tracer = tp.Tracer(tracerName)
	s.handler = s.routes()
	s.refresh(ctx)
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	if len(cfg.Webhooks) > 0 {
		s.wg.Go(func() { s.hooks.run(pctx) })
	}
	if iv := cfg.PollInterval; iv >= 0 {
		if iv == 0 {
			iv = time.Second
		}
		s.wg.Go(func() { s.poll(pctx, iv) })
	}
	return s, nil
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Registry returns the registry the server reads.
func (s *Server) Registry() *registry.Registry { return s.reg }

// Close stops polling. It does not close the store, which the caller
// made.
func (s *Server) Close() error {
	s.cancel()
	s.wg.Wait()
	return nil
}

func (s *Server) poll(ctx context.Context, iv time.Duration) {
	t := time.NewTicker(iv)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.refresh(ctx)
		}
	}
}

// refresh reads the repository again and reports how it went.
func (s *Server) refresh(ctx context.Context) (*registry.State, error) {
	st, err := s.reg.Refresh(ctx)
	if err != nil {
		msg := err.Error()
		s.lastErr.Store(&msg)
		s.metrics.refresh("error")
		s.log.Error("reading the registry failed", "err", err)
		return nil, err
	}
	now := time.Now()
	s.lastErr.Store(nil)
	s.lastRefresh.Store(now.UnixNano())
	s.ready.Store(true)
	s.metrics.refreshed(now)
	s.reconcile(ctx, st)
	s.emitNewVersions(ctx, st)
	return st, nil
}

// errorBody is every error's JSON.
type errorBody struct {
	Message string `json:"message"`
}

// writeJSON writes v as JSON with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		code, data = http.StatusInternalServerError, []byte(`{"message":"encoding the response failed"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	w.Write(append(data, '\n'))
}

// fail writes an error message with status code.
func fail(w http.ResponseWriter, code int, format string, args ...any) {
	writeJSON(w, code, errorBody{Message: fmt.Sprintf(format, args...)})
}

// readBody reads a request body of at most MaxBodyBytes, answering 413
// for a longer one.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			fail(w, http.StatusRequestEntityTooLarge, "the request body is over %d bytes", MaxBodyBytes)
		} else {
			fail(w, http.StatusBadRequest, "reading the request body: %v", err)
		}
		return nil, false
	}
	return data, true
}

type ctxKey struct{}

// keyOf returns the key that authenticated r.
func keyOf(r *http.Request) Key {
	k, _ := r.Context().Value(ctxKey{}).(Key)
	return k
}

// authed wraps h so that it needs a key of at least role.
func (s *Server) authed(role string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		pub, secret, ok := r.BasicAuth()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="tessera"`)
			fail(w, http.StatusUnauthorized, "authentication needed: HTTP Basic with a public key as the user and its secret key as the password")
			return
		}
		now := time.Now()
		k, ok := s.auth.get(pub, secret, now)
		var err error
		if !ok {
			k, err = s.store.Authenticate(r.Context(), pub, secret)
			if err == nil {
				s.auth.put(pub, secret, k, now)
			}
		}
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Basic realm="tessera"`)
			if errors.Is(err, ErrBadKey) {
				fail(w, http.StatusUnauthorized, "unknown public key or wrong secret key")
			} else {
				s.log.Error("authenticating", "err", err)
				fail(w, http.StatusInternalServerError, "authenticating failed: the key store did not answer")
			}
			return
		}
		if roleRank(k.Role) < roleRank(role) {
			fail(w, http.StatusForbidden, "key %s has role %s: this needs %s", k.Public, k.Role, role)
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, k)))
	}
}

// state returns the registry's state, or answers 503 before the first
// successful read.
func (s *Server) state(w http.ResponseWriter) *registry.State {
	st := s.reg.State()
	if st == nil {
		msg := "the registry has not been read yet"
		if e := s.lastErr.Load(); e != nil {
			msg += ": " + *e
		}
		fail(w, http.StatusServiceUnavailable, "%s", msg)
	}
	return st
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if !s.ready.Load() {
		msg := "not ready: the registry has not been read yet"
		if e := s.lastErr.Load(); e != nil {
			msg += ": " + *e
		}
		fail(w, http.StatusServiceUnavailable, "%s", msg)
		return
	}
	st := s.reg.State()
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "head": st.Head.String(), "prompts": len(st.Names), "refreshedAt": time.Unix(0, s.lastRefresh.Load()).UTC().Format(time.RFC3339)})
}

// refreshHandler reads the repository again: for an admin key, or for a
// forge's webhook that proves it knows RefreshSecret.
func (s *Server) refreshHandler(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	if !s.webhookAllowed(r, body) {
		s.authed(RoleAdmin, s.doRefresh)(w, r)
		return
	}
	s.doRefresh(w, r)
}

func (s *Server) doRefresh(w http.ResponseWriter, r *http.Request) {
	st, err := s.refresh(r.Context())
	if err != nil {
		fail(w, http.StatusInternalServerError, "reading the registry: %v", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"head": st.Head.String(), "prompts": len(st.Names), "refreshedAt": time.Unix(0, s.lastRefresh.Load()).UTC().Format(time.RFC3339)})
}

// webhookAllowed reports whether r carries the refresh secret.
func (s *Server) webhookAllowed(r *http.Request, body []byte) bool {
	secret := s.cfg.RefreshSecret
	if secret == "" {
		return false
	}
	eq := func(a string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(secret)) == 1 }
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && eq(tok) {
		return true
	}
	if tok := r.Header.Get("X-Gitlab-Token"); tok != "" && eq(tok) {
		return true
	}
	if sig, ok := strings.CutPrefix(r.Header.Get("X-Hub-Signature-256"), "sha256="); ok {
		got, err := hex.DecodeString(sig)
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(body)
		return err == nil && hmac.Equal(got, mac.Sum(nil))
	}
	return false
}

// methodNotAllowed answers 405 for writes Git owns.
func methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", "GET, PATCH")
	fail(w, http.StatusMethodNotAllowed, "%s is not supported: Git is the source of truth, so prompts and versions are made by commits; labels move with PATCH /api/public/v2/prompts/{name}/versions/{version}", r.Method)
}

// routes builds the handler.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern, route string, h http.HandlerFunc) {
		mux.Handle(pattern, s.metrics.instrument(route, s.traced(route, h)))
	}
	handle("GET /healthz", "/healthz", s.healthz)
	handle("GET /readyz", "/readyz", s.readyz)
	metricsHandler := s.authed(RoleViewer, s.metrics.serve)
	if s.cfg.PublicMetrics {
		metricsHandler = s.metrics.serve
	}
	handle("GET /metrics", "/metrics", metricsHandler)
	handle("GET /api/public/v2/prompts", "/api/public/v2/prompts", s.authed(RoleViewer, s.listPrompts))
	handle("POST /api/public/v2/prompts", "/api/public/v2/prompts", methodNotAllowed)
	handle("/api/public/v2/prompts/", "/api/public/v2/prompts/{name}", s.promptRoute)
	handle("GET /api/tessera/v1/prompts/by-hash/{hash}", "/api/tessera/v1/prompts/by-hash/{hash}", s.authed(RoleViewer, s.byHash))
	handle("/api/tessera/v1/prompts/", "/api/tessera/v1/prompts/{name}/labels/history", s.historyRoute)
	handle("POST /api/tessera/v1/render", "/api/tessera/v1/render", s.authed(RoleMember, s.render))
	handle("POST /api/tessera/v1/replay/{id}", "/api/tessera/v1/replay/{id}", s.authed(RoleMember, s.replay))
	handle("GET /api/tessera/v1/diff", "/api/tessera/v1/diff", s.authed(RoleViewer, s.diff))
	handle("POST /api/tessera/v1/refresh", "/api/tessera/v1/refresh", s.refreshHandler)
	handle("POST /api/tessera/v1/keys", "/api/tessera/v1/keys", s.authed(RoleAdmin, s.putKey))
	handle("GET /api/tessera/v1/webhooks/deliveries", "/api/tessera/v1/webhooks/deliveries", s.authed(RoleAdmin, s.deliveries))
	handle("/ui/", "/ui/", s.authed(RoleViewer, s.inspector()))
	handle("/", "other", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path)
	})
	return mux
}

// promptRoute dispatches /api/public/v2/prompts/{name}[/versions/{n}] on
// the escaped path, so that a name's encoded slashes stay in the name.
func (s *Server) promptRoute(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.EscapedPath(), "/api/public/v2/prompts/")
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPatch:
	default:
		methodNotAllowed(w, r)
		return
	}
	p, err := parsePromptPath(rest, r.Method == http.MethodPatch)
	if err != nil {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	if r.Method == http.MethodPatch {
		s.authed(RoleMember, func(w http.ResponseWriter, r *http.Request) { s.patchLabels(w, r, p) })(w, r)
		return
	}
	s.authed(RoleViewer, func(w http.ResponseWriter, r *http.Request) { s.getPrompt(w, r, p.Name) })(w, r)
}

// historyRoute serves /api/tessera/v1/prompts/{name}/labels/history.
func (s *Server) historyRoute(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.EscapedPath(), "/api/tessera/v1/prompts/"), "/labels/history")
	if !ok {
		s.goldenRoute(w, r, rest)
		return
	}
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		fail(w, http.StatusMethodNotAllowed, "%s is not supported: the history is read-only", r.Method)
		return
	}
	name, err := url.PathUnescape(rest)
	if err == nil {
		err = checkName(name)
	}
	if err != nil {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	p := promptPath{Name: name}
	s.authed(RoleViewer, func(w http.ResponseWriter, r *http.Request) { s.promptHistory(w, r, p.Name) })(w, r)
}
