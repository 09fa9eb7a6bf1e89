package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tessera-dev/tessera/serve"
)

// serveOpts are serve's flags.
type serveOpts struct {
	addr      string
	branch    string
	poll      time.Duration
	protected []string
	gated     []string
	cacheSize int
	shutdown  time.Duration
	check     bool
	db        string
	metrics   bool
	webhooks  []string
	remote    string
}

// serveEnv maps each flag to the environment variable that sets it when
// the flag is not given.
var serveEnv = map[string]string{
	"addr":             "TESSERA_ADDR",
	"branch":           "TESSERA_BRANCH",
	"poll":             "TESSERA_POLL_INTERVAL",
	"protected-labels": "TESSERA_PROTECTED_LABELS",
	"gated-labels":     "TESSERA_GATED_LABELS",
	"cache-size":       "TESSERA_CACHE_SIZE",
	"shutdown-timeout": "TESSERA_SHUTDOWN_TIMEOUT",
	"db":               "TESSERA_DB",
	"public-metrics":   "TESSERA_PUBLIC_METRICS",
	"webhook":          "TESSERA_WEBHOOKS",
	"remote":           "TESSERA_REMOTE",
}

func (a *app) serveCmd() *cobra.Command {
	var o serveOpts
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the catalog's prompts over HTTP from its Git history, through Langfuse's prompt API",
		Long: `Serve the prompts of the catalog at --root, a directory in a Git work
tree, over HTTP. Git is the source of truth: a prompt is a compile unit,
named as compile names it without .txt; version n of a prompt is the n-th
first-parent commit of the default branch that changed its assembled
text; a label is a Git ref (refs/tessera/prompts/<prompt>/labels/<label>,
refs/tessera/labels/<label>, a tag or a branch), and "latest" is the
default branch's head. The repository is read with no git binary, again
every --poll and on POST /api/tessera/v1/refresh.

The API is Langfuse's (GET /api/public/v2/prompts/{name}, the list, and
PATCH .../versions/{version} to move or remove labels), so Langfuse's
clients work unchanged, plus Tessera's own: fetch by hash, render with an
audit record, replay, diff and the history of label moves. docs/SERVE.md
describes every endpoint.

Every endpoint but /healthz and /readyz needs HTTP Basic auth with a
public key and its secret key; TESSERA_PUBLIC_KEY and TESSERA_SECRET_KEY
give the first admin pair, which may add others (POST
/api/tessera/v1/keys). TESSERA_REFRESH_SECRET lets a forge's webhook
refresh without a key. Keys, the history of label moves and the audit
records of renders are kept in the database --db names: by default a
SQLite file, .tessera/serve.db under the catalog; "postgres://..." for a
PostgreSQL server; "memory" keeps them in memory, lost when the server
stops.

Each flag may be set by an environment variable instead (the flag wins):
TESSERA_ADDR, TESSERA_DB, TESSERA_BRANCH, TESSERA_POLL_INTERVAL,
TESSERA_PROTECTED_LABELS, TESSERA_CACHE_SIZE, TESSERA_SHUTDOWN_TIMEOUT,
TESSERA_PUBLIC_METRICS, TESSERA_WEBHOOKS, TESSERA_GATED_LABELS,
TESSERA_REMOTE; and by
the serve section of the catalog's tessera.yaml (docs/CONFIG.md), which
both override.

Spans of each request, with the prompt it resolved (gen_ai.prompt.name,
gen_ai.prompt.version, tessera.prompt.hash, tessera.prompt.commit,
tessera.prompt.label), go to an OTLP collector over HTTP when
OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) names
one, with the exporter's other OTEL_* variables.

Each --webhook is sent a POST for every new version and every version
that gains or loses a label, in Langfuse's webhook payload, signed in its
X-Tessera-Signature header with TESSERA_WEBHOOK_SECRET: tried 4 times,
disabled after 5 events in a row fail; GET
/api/tessera/v1/webhooks/deliveries shows the deliveries.

Replicas on disks of their own each serve a clone and share a --remote,
a Git repository (a path on shared storage, or an https or ssh URL):
each poll fetches its branches, tags and labels, and a label moves there
only if it is still where this replica last saw it (otherwise 409,
nothing moved).

SIGTERM or SIGINT stops the server once the requests in flight are
answered (at most --shutdown-timeout).`,
		Args:        cobra.NoArgs,
		Annotations: map[string]string{"exit1": "the repository could not be opened or read (with --check), or the\n     server could not listen or stop cleanly"},
		RunE: func(cmd *cobra.Command, _ []string) error {
			serveGC() // a server runs for long: Go's default GOGC
			if err := serveFromEnv(cmd.Flags()); err != nil {
				return err
			}
			if err := a.serveFromConfig(cmd.Flags()); err != nil {
				return err
			}
			return a.serve(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", "127.0.0.1:3000", "`HOST:PORT` to listen on; port 0 picks a free one")
	f.StringVar(&o.db, "db", "", "the database of keys, label moves and audit records: sqlite:PATH, postgres://..., or memory (default: sqlite:.tessera/serve.db under the catalog)")
	f.StringVar(&o.branch, "branch", "", "the default branch, whose history numbers the versions (default: the branch HEAD names, or a detached HEAD itself)")
	f.DurationVar(&o.poll, "poll", time.Second, "how often the repository is read again (only its refs, unless the head moved); 0 reads it only on POST /api/tessera/v1/refresh")
	f.StringSliceVar(&o.protected, "protected-labels", nil, "labels only an admin key may move or remove, comma-separated")
	f.StringSliceVar(&o.gated, "gated-labels", nil, "labels that move to a version only when the prompt's golden cases (renders marked golden) replay there to their hash, comma-separated")
	f.IntVar(&o.cacheSize, "cache-size", 64, "how many built catalogs (one per distinct catalog tree) are kept in memory")
	f.DurationVar(&o.shutdown, "shutdown-timeout", 30*time.Second, "how long a stopping server waits for the requests in flight")
	f.StringSliceVar(&o.webhooks, "webhook", nil, "`URL`s told of new versions and label moves (Langfuse's payload, signed with $TESSERA_WEBHOOK_SECRET), comma-separated or repeated")
	f.BoolVar(&o.metrics, "public-metrics", false, "serve /metrics without a key, for a scraper inside the network")
	f.StringVar(&o.remote, "remote", "", "a Git repository that replicas with clones of their own share (a bare repository's `PATH`, or an https, http, ssh or git URL): labels are moved there and read from there, with its default branch")
	f.BoolVar(&o.check, "check", false, "read the repository once, print what would be served, and exit: 1 if it cannot be read")
	return cmd
}

// serveFromEnv sets each flag not given on the command line from its
// environment variable.
func serveFromEnv(fs *pflag.FlagSet) error {
	for flag, env := range serveEnv {
		v, ok := os.LookupEnv(env)
		if !ok || fs.Changed(flag) {
			continue
		}
		if err := fs.Set(flag, strings.TrimSpace(v)); err != nil {
			return fmt.Errorf("$%s (for --%s): %v", env, flag, err)
		}
	}
	return nil
}

func (a *app) serve(ctx context.Context, o serveOpts) error {
	dir := a.root
	if dir == "" {
		found, err := findRoot()
		if err != nil {
			return failure{err}
		}
		dir = found
	}
	if o.poll < 0 {
		return fmt.Errorf("--poll %s: give a positive interval, or 0 for none", o.poll)
	}
	poll := o.poll
	if poll == 0 {
		poll = -1 // serve.Config: negative turns polling off
	}
	log := slog.New(slog.NewTextHandler(a.stderr, nil))
	store := serve.Store(serve.NewMemStore())
	if !o.check {
		url := o.db
		if url == "" {
			url = defaultDB(dir)
		}
		st, closeStore, err := openStore(ctx, url)
		if err != nil {
			return failure{err}
		}
		defer closeStore()
		store = st
	}
	tp, shutdownTraces, err := tracerProvider(ctx)
	if err != nil {
		return failure{err}
	}
	defer shutdownTraces(context.WithoutCancel(ctx))
	var hooks []serve.Webhook
	for _, u := range o.webhooks {
		hooks = append(hooks, serve.Webhook{URL: u, Secret: os.Getenv("TESSERA_WEBHOOK_SECRET")})
	}
	srv, err := serve.New(ctx, serve.Config{
		Webhooks:       hooks,
		TracerProvider: tp,
		RemoteSSH:      sshOptions(),
		Root:           dir, Branch: o.branch, Remote: o.remote, PollInterval: poll, ProtectedLabels: o.protected, GatedLabels: o.gated, CacheSize: o.cacheSize, Store: store, PublicMetrics: o.metrics,
		RefreshSecret:  os.Getenv("TESSERA_REFRESH_SECRET"),
		AdminPublicKey: os.Getenv("TESSERA_PUBLIC_KEY"), AdminSecretKey: os.Getenv("TESSERA_SECRET_KEY"),
		Logger: log, Engine: a.engine,
	})
	if err != nil {
		return failure{err}
	}
	defer srv.Close()
	st := srv.Registry().State()
	summary := func() string {
		versions := 0
		for _, vs := range st.Versions {
			versions += len(vs)
		}
		from := ""
		if r := srv.Registry().Remote(); r != "" {
			from = " of " + r
		}
		return fmt.Sprintf("%s, %s, %s on %s%s; head %s", plural(len(st.Names), "prompt"), plural(versions, "version"), plural(len(st.Chain), "commit"), srv.Registry().Branch(), from, st.Head)
	}
	if o.check {
		if st == nil {
			return failure{errors.New("the registry could not be read: see the error above")}
		}
		fmt.Fprintln(a.stdout, summary())
		if len(st.Names) == 0 {
			fmt.Fprintf(a.stderr, "tessera serve: no prompt builds at any commit of %s: commit the catalog (git add, git commit), or see why each commit was skipped above\n", srv.Registry().Branch())
		}
		for _, name := range st.Names {
			vs := st.Versions[name]
			fmt.Fprintf(a.stdout, "  %s: version %d (%s)\n", name, vs[len(vs)-1].Number, vs[len(vs)-1].Hash[:12])
		}
		return nil
	}
	if st != nil {
		fmt.Fprintln(a.stderr, "tessera serve: "+summary())
	} else {
		fmt.Fprintln(a.stderr, "tessera serve: not ready: the registry could not be read (see above); it is read again every --poll")
	}
	if os.Getenv("TESSERA_PUBLIC_KEY") == "" {
		fmt.Fprintln(a.stderr, "tessera serve: note: no TESSERA_PUBLIC_KEY and TESSERA_SECRET_KEY: only the keys already in the database are accepted")
	}
	return serveHTTP(ctx, o, srv, a.stderr)
}

// serveHTTP listens on o.addr until ctx ends or SIGTERM or SIGINT comes,
// then shuts down gracefully.
func serveHTTP(ctx context.Context, o serveOpts, srv *serve.Server, stderr interface{ Write([]byte) (int, error) }) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
	defer stop()
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return failure{fmt.Errorf("--addr %s: %w", o.addr, err)}
	}
	hs := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	fmt.Fprintf(stderr, "tessera serve: listening on http://%s\n", ln.Addr())
	select {
	case err := <-done:
		return failure{fmt.Errorf("serving on %s: %w", ln.Addr(), err)}
	case <-ctx.Done():
	}
	fmt.Fprintln(stderr, "tessera serve: stopping: finishing the requests in flight")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.shutdown)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return failure{fmt.Errorf("stopping: %w (requests still in flight after --shutdown-timeout %s)", err, o.shutdown)}
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return failure{err}
	}
	fmt.Fprintln(stderr, "tessera serve: stopped")
	return nil
}

// plural writes n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
