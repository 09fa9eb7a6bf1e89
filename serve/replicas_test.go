package serve_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/tessera-dev/tessera/serve"
	"github.com/tessera-dev/tessera/serve/gittest"
	"github.com/tessera-dev/tessera/serve/registry"
)

// replicas starts two servers, each on a clone of its own of one bare
// remote, sharing one store as replicas share a PostgreSQL database, and
// telling hooks of new versions and label moves.
func replicas(t *testing.T, poll time.Duration, hooks ...serve.Webhook) (a, b *fixture, bare string) {
	t.Helper()
	repo, c := newHistory(t) // pgc in three versions
	bare = repo.Bare()
	store := serve.NewMemStore()
	start := func() *fixture {
		clone := gittest.Clone(t, bare)
		srv, err := serve.New(t.Context(), serve.Config{
			Root: clone.Dir + "/catalog", Remote: bare, Store: store, PollInterval: poll,
			AdminPublicKey: admin, AdminSecretKey: "sk-" + admin,
			Webhooks: hooks, WebhookRetryDelay: time.Millisecond,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		ts := httptest.NewServer(srv.Handler())
		t.Cleanup(ts.Close)
		return &fixture{t: t, repo: clone, c: c, srv: srv, store: store, ts: ts}
	}
	for _, k := range []struct{ pub, role string }{{member, serve.RoleMember}, {viewer, serve.RoleViewer}} {
		if err := store.PutKey(t.Context(), k.pub, "sk-"+k.pub, k.role); err != nil {
			t.Fatal(err)
		}
	}
	return start(), start(), bare
}

// history reads the label history of pgc through f.
func (f *fixture) history() []map[string]any {
	f.t.Helper()
	var h struct {
		Data []map[string]any `json:"data"`
	}
	f.get("/api/tessera/v1/prompts/"+strings.ReplaceAll(pgc, "/", "%2F")+"/labels/history", &h)
	return h.Data
}

// TestReplicasSeeMoves moves a label through one replica and reads it
// through the other, which has a clone of its own: it is served there
// within one poll.
func TestReplicasSeeMoves(t *testing.T) {
	const poll = 50 * time.Millisecond
	a, b, _ := replicas(t, poll)
	code, _, body := a.do(member, "PATCH", promptPath(pgc)+"/versions/2", map[string]any{"newLabels": []string{"production"}, "reason": "release"})
	if code != http.StatusOK {
		t.Fatalf("PATCH: %d %s", code, body)
	}
	moved := time.Now()
	var p promptJSON
	for {
		code, _, body = b.do(viewer, "GET", promptPath(pgc)+"?label=production", nil)
		if code == http.StatusOK {
			json.Unmarshal(body, &p)
			break
		}
		if time.Since(moved) > 5*time.Second {
			t.Fatalf("the other replica never served the label: %d %s", code, body)
		}
		time.Sleep(5 * time.Millisecond)
	}
	took := time.Since(moved)
	t.Logf("the other replica served the move after %s (poll %s)", took.Round(time.Millisecond), poll)
	if p.Version != 2 {
		t.Errorf("the other replica serves production at version %d", p.Version)
	}
	if took > 2*time.Second {
		t.Errorf("the other replica served the move after %s: want it within a poll (%s), and 2 s at most", took, poll)
	}
	// A removal through the second is seen by the first.
	code, _, body = b.do(member, "PATCH", promptPath(pgc)+"/versions/2", map[string]any{"removeLabels": []string{"production"}})
	if code != http.StatusOK {
		t.Fatalf("PATCH through the other: %d %s", code, body)
	}
	for i := 0; ; i++ {
		if code, _, _ = a.do(viewer, "GET", promptPath(pgc)+"?label=production", nil); code == http.StatusNotFound {
			break
		}
		if i == 1000 {
			t.Fatalf("the first replica still serves the removed label: %d", code)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if h := a.history(); len(h) != 2 || h[0]["toVersion"] != 0.0 || h[1]["toVersion"] != 2.0 {
		t.Errorf("history: %v", h)
	}
}

// TestReplicasRace sends two PATCHes at once, one to each replica, moving
// one label to two versions from the same state: exactly one wins, the
// other answers 409 and moves nothing, the history has the winner's move
// alone, and both replicas then serve the winner's version. Between
// rounds the label is removed with git on the remote and both replicas
// read it again, so that each round starts from one state.
func TestReplicasRace(t *testing.T) {
	a, b, bare := replicas(t, -1) // no polling: both move from what they last read
	remote, err := git.PlainOpen(bare)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		if round > 0 {
			if err := remote.Storer.RemoveReference(registry.PromptRef(pgc, "production")); err != nil {
				t.Fatal(err)
			}
			a.refresh()
			b.refresh()
		}
		before := len(a.history())
		type answer struct {
			code int
			body string
		}
		answers := make([]answer, 2)
		var wg sync.WaitGroup
		ready := make(chan struct{})
		for i, f := range []*fixture{a, b} {
			wg.Go(func() {
				<-ready
				code, _, body := f.do(member, "PATCH", promptPath(pgc)+"/versions/"+itoa(i+1), map[string]any{"newLabels": []string{"production"}, "reason": "replica " + itoa(i)})
				answers[i] = answer{code, string(body)}
			})
		}
		close(ready)
		wg.Wait()
		var won, lost []int
		for i, ans := range answers {
			switch ans.code {
			case http.StatusOK:
				won = append(won, i)
			case http.StatusConflict:
				lost = append(lost, i)
				if !strings.Contains(ans.body, "moved since this server read it") {
					t.Errorf("the 409 says: %s", ans.body)
				}
			default:
				t.Errorf("replica %d: %d %s", i, ans.code, ans.body)
			}
		}
		if len(won) != 1 || len(lost) != 1 {
			t.Fatalf("round %d: %v won, %v lost: %+v", round, won, lost, answers)
		}
		want := won[0] + 1
		h := a.history()
		if len(h) != before+1 || h[0]["toVersion"] != float64(want) || h[0]["reason"] != "replica "+itoa(won[0]) {
			t.Errorf("round %d: history %v, want one move more, to version %d", round, h, want)
		}
		// The loser read the remote again when it lost: it serves the
		// winner's move at once; the winner does too.
		for i, f := range []*fixture{a, b} {
			var p promptJSON
			f.get(promptPath(pgc)+"?label=production", &p)
			if p.Version != want {
				t.Errorf("round %d: replica %d serves production at version %d, want %d", round, i, p.Version, want)
			}
		}
	}
}

// TestReplicasSendEachEventOnce: a commit pushed to the remote is a new
// version on both replicas, and its "created" event is sent once, by the
// replica that claims it in the shared store; a label move's events are
// sent by the replica that made it.
func TestReplicasSendEachEventOnce(t *testing.T) {
	rc := &receiver{}
	hook := httptest.NewServer(rc)
	defer hook.Close()
	a, b, bare := replicas(t, -1, serve.Webhook{URL: hook.URL, Secret: hookSecret})
	dev := gittest.Clone(t, bare)
	dev.Write(context1, "a fourth text\n")
	dev.Commit("pgc: a fourth text")
	dev.Push(bare)
	for _, f := range []*fixture{a, b} {
		if code, _, body := f.do(admin, "POST", "/api/tessera/v1/refresh", nil); code != http.StatusOK {
			t.Fatalf("refresh: %d %s", code, body)
		}
	}
	if code, _, body := b.do(member, "PATCH", promptPath(pgc)+"/versions/4", map[string]any{"newLabels": []string{"production"}}); code != http.StatusOK {
		t.Fatalf("PATCH: %d %s", code, body)
	}
	count := func() map[string]int {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		n := map[string]int{}
		for _, ev := range rc.events {
			p, _ := ev["prompt"].(map[string]any)
			if p["name"] == pgc {
				n[fmt.Sprint(ev["action"], " ", p["version"])]++
			}
		}
		return n
	}
	for i := 0; len(count()) < 2 && i < 500; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // time for a second copy, were one sent
	if got := count(); got["created 4"] != 1 || got["updated 4"] != 1 || len(got) != 2 {
		t.Errorf("events about pgc: %v, want created 4 and updated 4 once each", got)
	}
	if len(rc.bad) != 0 {
		t.Errorf("bad signatures: %v", rc.bad)
	}
}

// TestReplicasUIConflict moves a label through one replica, then through
// the other's inspector form from what it read before: the page answers
// 409 and says why, and the form sent again moves the label.
func TestReplicasUIConflict(t *testing.T) {
	a, b, _ := replicas(t, -1)
	if code, _, body := a.do(member, "PATCH", promptPath(pgc)+"/versions/1", map[string]any{"newLabels": []string{"production"}}); code != http.StatusOK {
		t.Fatalf("PATCH: %d %s", code, body)
	}
	form := "label=production&version=2&reason=from+the+page"
	path := "/ui/prompts/" + strings.ReplaceAll(pgc, "/", "%2F") + "/labels"
	hdr := []string{"Content-Type", "application/x-www-form-urlencoded", "Sec-Fetch-Site", "same-origin"}
	code, _, body := b.do(member, "POST", path, form, hdr...)
	if code != http.StatusConflict || !strings.Contains(string(body), "moved since this server read it") {
		t.Fatalf("the form from a stale page: %d\n%s", code, body)
	}
	b.ts.Client().CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if code, _, body = b.do(member, "POST", path, form, hdr...); code != http.StatusSeeOther {
		t.Fatalf("the form sent again: %d\n%s", code, body)
	}
	if code, _, body := a.do(admin, "POST", "/api/tessera/v1/refresh", nil); code != http.StatusOK {
		t.Fatalf("refresh: %d %s", code, body)
	}
	var p promptJSON
	a.get(promptPath(pgc)+"?label=production", &p)
	if p.Version != 2 {
		t.Errorf("a serves production at version %d after reading the remote, want 2", p.Version)
	}
	if h := a.history(); len(h) != 2 || h[0]["toVersion"] != 2.0 || h[0]["fromVersion"] != 1.0 {
		t.Errorf("history: %v", h)
	}
}
