package serve_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tessera-dev/tessera/serve"
	"github.com/tessera-dev/tessera/serve/registry"
)

// TestMoveStoppedHalfWay stops a PATCH between its steps, as a server
// that crashes would: after the ref moved and before the record, the next
// refresh records the move as its key made it; before the ref moved,
// nothing is recorded and the pending move is dropped once it is older
// than the timeout.
func TestMoveStoppedHalfWay(t *testing.T) {
	var stopAt atomic.Pointer[string]
	hook := func(_ context.Context, step string) error {
		if at := stopAt.Load(); at != nil && *at == step {
			return errors.New("the server stops here")
		}
		return nil
	}
	f := newFixture(t, serve.Config{MoveHook: hook, PendingMoveTimeout: 1})
	step := serve.StepMoved
	stopAt.Store(&step)
	if code, _, body := f.do(member, "PATCH", promptPath(pgc)+"/versions/2", map[string]any{"newLabels": []string{"production"}, "reason": "release"}); code != http.StatusInternalServerError {
		t.Fatalf("PATCH stopped after the move: %d %s", code, body)
	}
	if got, _ := f.repo.Git.Reference(registry.PromptRef(pgc, "production"), false); got == nil || got.Hash() != f.c[1] {
		t.Fatalf("production after a PATCH stopped after the move: %v", got)
	}
	if h := f.history(); len(h) != 0 {
		t.Fatalf("history before a refresh: %v", h)
	}
	f.refresh()
	if h := f.history(); len(h) != 1 || h[0]["actor"] != member || h[0]["reason"] != "release" || h[0]["toVersion"] != 2.0 {
		t.Fatalf("history after a refresh: %v, want the move by %s", h, member)
	}
	step = serve.StepPending
	if code, _, body := f.do(member, "PATCH", promptPath(pgc)+"/versions/3", map[string]any{"newLabels": []string{"production"}}); code != http.StatusInternalServerError {
		t.Fatalf("PATCH stopped before the move: %d %s", code, body)
	}
	if p, _ := f.store.PendingMoves(t.Context()); len(p) != 1 {
		t.Fatalf("pending moves: %+v", p)
	}
	f.refresh()
	if h := f.history(); len(h) != 1 {
		t.Fatalf("history after a move that was not made: %v", h)
	}
	if p, _ := f.store.PendingMoves(t.Context()); len(p) != 0 {
		t.Fatalf("pending moves after the timeout: %+v", p)
	}
}

// TestStartupMoves: a label moved with git while no server runs is
// recorded when servers start, by git and as found at start-up, once
// though two start at once on one store; a store whose history already
// ends where the label is (kept before label refs were) records nothing.
func TestStartupMoves(t *testing.T) {
	f := newFixture(t, serve.Config{})
	f.srv.Close()
	ref := registry.PromptRef(pgc, "production")
	f.repo.SetRef(ref.String(), f.c[0])
	// What a store from before label refs has: the move, recorded.
	f.store.AddLabelMove(t.Context(), serve.LabelMove{Prompt: pgc, Label: "production", ToVersion: 1, ToCommit: f.c[0].String(), Actor: member})
	start := func(n int) {
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				srv, err := serve.New(t.Context(), serve.Config{Root: f.repo.Dir + "/catalog", Store: f.store, PollInterval: -1})
				if err != nil {
					t.Error(err)
					return
				}
				srv.Close()
			})
		}
		wg.Wait()
	}
	start(1)
	if h := f.history(); len(h) != 1 {
		t.Fatalf("history after a start with a move recorded: %v", h)
	}
	f.repo.SetRef(ref.String(), f.c[2])
	start(2)
	h := f.history()
	if len(h) != 2 || h[0]["actor"] != serve.OutsideActor || !strings.Contains(h[0]["reason"].(string), "found at start-up") || h[0]["fromVersion"] != 1.0 || h[0]["toVersion"] != 3.0 {
		t.Fatalf("history after a move with git while no server ran: %v", h)
	}
}
