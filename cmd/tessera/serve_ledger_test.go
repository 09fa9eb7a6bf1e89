package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tessera-dev/tessera/internal/pgtest"
	"github.com/tessera-dev/tessera/serve"
	"github.com/tessera-dev/tessera/serve/gittest"
	"github.com/tessera-dev/tessera/serve/registry"
)

// TestServeLedger stops label moves half-way, as a server that crashes
// would, on SQLite and on PostgreSQL, then starts servers again on the
// same database and remote:
//   - stopped after the ref moved, before the move was recorded: the
//     next server records it, as its key made it, with its reason;
//   - stopped before the ref moved: nothing is recorded, and the pending
//     move is dropped once it is older than the timeout;
//   - a label moved with git while every server is down is recorded, by
//     git, as found at start-up, once, though two servers start at once.
func TestServeLedger(t *testing.T) {
	for _, dialect := range []string{"sqlite", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			url := "sqlite:" + filepath.Join(t.TempDir(), "serve.db")
			if dialect == "postgres" {
				url = pgtest.Fresh(t)
			}
			testLedger(t, url)
		})
	}
}

func testLedger(t *testing.T, dbURL string) {
	repo, c1 := catalogRepo(t)
	repo.Write("catalog/seed/prompts/pgc-contexts/project_discovery.v1.txt", "a second text\n")
	c2 := repo.Commit("pgc: a second text")
	bare := repo.Bare()
	const name = "pm_discovery.v1/pgc"
	const secret = "sk-admin-0123456789abcdef"
	type server struct {
		url   string
		store serve.Store
		stop  func()
	}
	start := func(hook func(context.Context, string) error, timeout time.Duration) server {
		t.Helper()
		store, closeStore, err := openStore(t.Context(), dbURL)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := serve.New(t.Context(), serve.Config{Root: filepath.Join(gittest.Clone(t, bare).Dir, "catalog"), Remote: bare, Store: store,
			PollInterval: -1, AdminPublicKey: "pk-admin", AdminSecretKey: secret, MoveHook: hook, PendingMoveTimeout: timeout})
		if err != nil {
			closeStore()
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv.Handler())
		var once sync.Once
		stop := func() { once.Do(func() { ts.Close(); srv.Close(); closeStore() }) }
		t.Cleanup(stop)
		return server{ts.URL, store, stop}
	}
	patch := func(s server, version, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), "PATCH", s.url+"/api/public/v2/prompts/pm_discovery.v1%2Fpgc/versions/"+version, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth("pk-admin", secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	history := func(s server) []serve.LabelMove {
		t.Helper()
		h, err := s.store.LabelMoves(t.Context(), name, 0)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	remote, err := git.PlainOpen(bare)
	if err != nil {
		t.Fatal(err)
	}
	refAt := func(label string) plumbing.Hash {
		ref, err := remote.Reference(registry.PromptRef(name, label), false)
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			return plumbing.ZeroHash
		}
		if err != nil {
			t.Fatal(err)
		}
		return ref.Hash()
	}
	crash := func(at string) func(context.Context, string) error {
		return func(_ context.Context, step string) error {
			if step == at {
				return errors.New("the server stops here")
			}
			return nil
		}
	}

	// Stopped after the move: the ref moved, no record; the next server
	// records it.
	s := start(crash(serve.StepMoved), 0)
	if code, body := patch(s, "1", `{"newLabels":["production"],"reason":"first release"}`); code != http.StatusInternalServerError {
		t.Fatalf("PATCH stopped after the move: %d %s", code, body)
	}
	if refAt("production") != c1 {
		t.Fatalf("production is at %s on the remote, want %s", refAt("production"), c1)
	}
	if h := history(s); len(h) != 0 {
		t.Fatalf("history before a restart: %+v", h)
	}
	s.stop()
	s = start(nil, 0)
	h := history(s)
	if len(h) != 1 || h[0].Actor != "pk-admin" || h[0].Reason != "first release" || h[0].ToVersion != 1 || h[0].ToCommit != c1.String() {
		t.Fatalf("history after a restart: %+v, want the move by pk-admin", h)
	}
	s.stop()

	// Stopped before the move: nothing moved, nothing recorded; the
	// pending move is dropped after the timeout.
	s = start(crash(serve.StepPending), 0)
	if code, body := patch(s, "2", `{"newLabels":["staging"],"reason":"try"}`); code != http.StatusInternalServerError {
		t.Fatalf("PATCH stopped before the move: %d %s", code, body)
	}
	if !refAt("staging").IsZero() {
		t.Fatal("staging was moved")
	}
	s.stop()
	s = start(nil, time.Nanosecond)
	if h := history(s); len(h) != 1 {
		t.Fatalf("history after a move that was not made: %+v", h)
	}
	if p, err := s.store.(serve.LabelLedger).PendingMoves(t.Context()); err != nil || len(p) != 0 {
		t.Fatalf("pending moves after the timeout: %+v %v", p, err)
	}
	s.stop()

	// Moved with git while no server runs; two servers start at once.
	if err := remote.Storer.SetReference(plumbing.NewHashReference(registry.PromptRef(name, "production"), c2)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	servers := make([]server, 2)
	for i := range servers {
		wg.Go(func() { servers[i] = start(nil, 0) })
	}
	wg.Wait()
	h = history(servers[0])
	if len(h) != 2 || h[0].Actor != serve.OutsideActor || !strings.Contains(h[0].Reason, "found at start-up") || h[0].FromVersion != 1 || h[0].ToVersion != 2 {
		t.Fatalf("history after a move with git while no server ran: %+v", h)
	}
}
