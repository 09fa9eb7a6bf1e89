package serve_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/serve"
)

// receiver is a webhook endpoint that keeps what it is sent, checks each
// signature, and answers fail's status while fail is set.
type receiver struct {
	mu     sync.Mutex
	events []map[string]any
	bad    []string
	fail   int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err := serve.Verify(hookSecret, r.Header.Get("X-Tessera-Signature"), body, time.Now(), 5*time.Minute); err != nil {
		rc.bad = append(rc.bad, err.Error())
	}
	if rc.fail != 0 {
		w.WriteHeader(rc.fail)
		return
	}
	var ev map[string]any
	json.Unmarshal(body, &ev)
	rc.events = append(rc.events, ev)
}

const hookSecret = "whsec-0123456789abcdef"

// waitDeliveries waits until the server's delivery log has n entries.
func waitDeliveries(t *testing.T, f *fixture, n int) []serve.Delivery {
	t.Helper()
	var out struct {
		Data     []serve.Delivery
		Webhooks []struct {
			Disabled bool
		}
	}
	for i := 0; i < 500; i++ {
		f.get2(admin, "/api/tessera/v1/webhooks/deliveries", &out)
		if len(out.Data) >= n {
			return out.Data
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%d deliveries, want %d: %+v", len(out.Data), n, out.Data)
	return nil
}

func (f *fixture) get2(key, path string, v any) {
	f.t.Helper()
	code, _, body := f.do(key, "GET", path, nil)
	if code != 200 {
		f.t.Fatalf("GET %s: %d %s", path, code, body)
	}
	json.Unmarshal(body, v)
}

func TestWebhooks(t *testing.T) {
	rc := &receiver{}
	hook := httptest.NewServer(rc)
	defer hook.Close()
	f := newFixture(t, serve.Config{Webhooks: []serve.Webhook{{URL: hook.URL, Secret: hookSecret}}, WebhookRetryDelay: time.Millisecond})

	// production goes to version 2, then moves to 3: version 2 gains it,
	// then loses it while version 3 gains it.
	f.do(member, "PATCH", promptPath(pgc)+"/versions/2", map[string]any{"newLabels": []string{"production"}})
	f.do(member, "PATCH", promptPath(pgc)+"/versions/3", map[string]any{"newLabels": []string{"production"}})
	ds := waitDeliveries(t, f, 3)
	rc.mu.Lock()
	if len(rc.bad) > 0 || len(rc.events) != 3 {
		t.Fatalf("bad signatures %v, %d events", rc.bad, len(rc.events))
	}
	var got []string
	for _, ev := range rc.events {
		p := ev["prompt"].(map[string]any)
		labels, _ := json.Marshal(p["labels"])
		got = append(got, ev["action"].(string)+":"+p["name"].(string)+":"+itoa(int(p["version"].(float64)))+":"+string(labels))
		if ev["type"] != "prompt-version" || ev["apiVersion"] != "v1" || ev["id"] == "" || p["hash"] == "" {
			t.Errorf("event: %v", ev)
		}
		if u, _ := ev["user"].(map[string]any); u["id"] != member {
			t.Errorf("event's user: %v", ev["user"])
		}
	}
	rc.mu.Unlock()
	want := `updated:pm_discovery.v1/pgc:2:["production"] updated:pm_discovery.v1/pgc:2:[] updated:pm_discovery.v1/pgc:3:["latest","production"]`
	if strings.Join(got, " ") != want {
		t.Errorf("events:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if !ds[0].OK || ds[0].Attempts != 1 || ds[0].Status != 200 {
		t.Errorf("newest delivery: %+v", ds[0])
	}

	// A new commit: "created" for each new version, after a refresh.
	f.repo.Write(context1, f.repo.Read(context1)+"\nFourth.\n")
	f.repo.Commit("fourth")
	f.do(admin, "POST", "/api/tessera/v1/refresh", nil)
	ds = waitDeliveries(t, f, 5)
	rc.mu.Lock()
	created := 0
	for _, ev := range rc.events[3:] {
		if ev["action"] == "created" && ev["prompt"].(map[string]any)["version"].(float64) == 4 {
			created++
		}
	}
	rc.mu.Unlock()
	if created != 2 { // pgc and review
		t.Errorf("created events for version 4: %d, deliveries %+v", created, ds[:2])
	}

	// An endpoint that fails: four attempts each, disabled after five.
	rc.mu.Lock()
	rc.fail = http.StatusInternalServerError
	rc.mu.Unlock()
	for range 6 {
		f.do(member, "PATCH", promptPath(pgc)+"/versions/1", map[string]any{"newLabels": []string{"staging"}})
		f.do(member, "PATCH", promptPath(pgc)+"/versions/1", map[string]any{"removeLabels": []string{"staging"}})
	}
	ds = waitDeliveries(t, f, 10)
	if ds[0].OK || ds[0].Attempts != 4 || ds[0].Status != 500 || ds[0].Error == "" {
		t.Errorf("failed delivery: %+v", ds[0])
	}
	var state struct{ Webhooks []struct{ Disabled bool } }
	for i := 0; i < 500; i++ {
		f.get2(admin, "/api/tessera/v1/webhooks/deliveries", &state)
		if state.Webhooks[0].Disabled {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !state.Webhooks[0].Disabled {
		t.Error("the failing endpoint was not disabled")
	}
	code, _, body := f.do(member, "GET", "/api/tessera/v1/webhooks/deliveries", nil)
	f.wantError(code, body, http.StatusForbidden, "needs admin")
}

func TestSignature(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"a":1}`)
	h := serve.Sign("s3cret-0123456789", now, body)
	if !strings.HasPrefix(h, "t=1800000000,v1=") {
		t.Fatalf("header %q", h)
	}
	if err := serve.Verify("s3cret-0123456789", h, body, now.Add(time.Minute), 5*time.Minute); err != nil {
		t.Error(err)
	}
	for _, tc := range []struct {
		secret, header string
		body           []byte
		at             time.Time
	}{
		{"other-secret-0123", h, body, now},
		{"s3cret-0123456789", h, []byte(`{"a":2}`), now},
		{"s3cret-0123456789", h, body, now.Add(time.Hour)},
		{"s3cret-0123456789", "v1=00", body, now},
	} {
		if serve.Verify(tc.secret, tc.header, tc.body, tc.at, 5*time.Minute) == nil {
			t.Errorf("%+v verified", tc)
		}
	}
}

// keptDeliveries is a store that keeps the webhook delivery log, as the
// audit database does.
type keptDeliveries struct {
	*serve.MemStore
	mu sync.Mutex
	ds []serve.Delivery // oldest first
}

func (k *keptDeliveries) AddDelivery(_ context.Context, d serve.Delivery) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.ds = append(k.ds, d)
	return nil
}

func (k *keptDeliveries) Deliveries(_ context.Context, limit int) ([]serve.Delivery, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := slices.Clone(k.ds)
	slices.Reverse(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// TestWebhookDeliveriesKept: with a store that keeps the delivery log,
// every delivery goes to it, and the log the API shows is the store's,
// so it outlives the server and every server sharing the store shows it.
func TestWebhookDeliveriesKept(t *testing.T) {
	rc := &receiver{}
	hook := httptest.NewServer(rc)
	defer hook.Close()
	store := &keptDeliveries{MemStore: serve.NewMemStore()}
	f := newFixture(t, serve.Config{Store: store, Webhooks: []serve.Webhook{{URL: hook.URL, Secret: hookSecret}}, WebhookRetryDelay: time.Millisecond})
	f.do(member, "PATCH", promptPath(pgc)+"/versions/2", map[string]any{"newLabels": []string{"production"}})
	ds := waitDeliveries(t, f, 1)
	store.mu.Lock()
	kept := slices.Clone(store.ds)
	store.mu.Unlock()
	if len(kept) != len(ds) || kept[len(kept)-1].EventID != ds[0].EventID || !ds[0].OK || ds[0].URL != hook.URL {
		t.Errorf("the store kept %+v; the API shows %+v", kept, ds)
	}
	// What the API shows is the store's: a delivery kept by another
	// server sharing it shows too.
	store.AddDelivery(context.Background(), serve.Delivery{EventID: "from-elsewhere", URL: "https://x.example", OK: true})
	if ds := waitDeliveries(t, f, len(kept)+1); ds[0].EventID != "from-elsewhere" {
		t.Errorf("newest delivery %+v, want the one another server kept", ds[0])
	}
}
