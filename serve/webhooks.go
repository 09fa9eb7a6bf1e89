package serve

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tessera-dev/tessera"
	"github.com/tessera-dev/tessera/serve/registry"
)

// Webhook is an endpoint told of new versions and label moves, in
// Langfuse's payload shape, signed with Secret.
type Webhook struct {
	URL    string
	Secret string
}

// Webhook delivery: attempts per event, the timeout of each, and how many
// events in a row may fail before an endpoint is disabled.
const (
	webhookAttempts    = 4
	webhookTimeout     = 10 * time.Second
	webhookMaxFailures = 5
	webhookQueue       = 1024
	webhookLogSize     = 200
)

// Delivery is one event's delivery to one endpoint, as the delivery log
// shows it.
type Delivery struct {
	EventID  string    `json:"eventId"`
	URL      string    `json:"url"`
	Action   string    `json:"action"`
	Prompt   string    `json:"prompt"`
	Version  int       `json:"version"`
	Attempts int       `json:"attempts"`
	Status   int       `json:"status"`
	Error    string    `json:"error,omitempty"`
	OK       bool      `json:"ok"`
	At       time.Time `json:"at"`
}

// hookEvent is one event waiting to be delivered.
type hookEvent struct {
	id, action, prompt string
	version            int
	body               []byte
}

// hooks delivers events to the configured webhooks, one at a time, in
// the order they happened.
type hooks struct {
	endpoints []Webhook
	delay     time.Duration // before the second attempt; doubled after
	client    *http.Client
	queue     chan hookEvent
	log       *slog.Logger
	store     DeliveryStore // nil: the log is recent alone

	mu       sync.Mutex
	failures map[string]int
	disabled map[string]bool
	recent   []Delivery // newest last
}

// DeliveryStore is a Store that also keeps the webhook delivery log, so
// that the log outlives the process and every server that shares the
// store shows it. With a Store without it, a server keeps the newest
// deliveries in memory.
type DeliveryStore interface {
	// AddDelivery keeps one delivery.
	AddDelivery(ctx context.Context, d Delivery) error
	// Deliveries returns the deliveries kept, newest first, at most
	// limit of them.
	Deliveries(ctx context.Context, limit int) ([]Delivery, error)
}

func newHooks(endpoints []Webhook, delay time.Duration, log *slog.Logger, store Store) *hooks {
	if delay <= 0 {
		delay = time.Second
	}
	ds, _ := store.(DeliveryStore)
	return &hooks{
		endpoints: endpoints, delay: delay, log: log, store: ds,
		client:   &http.Client{Timeout: webhookTimeout},
		queue:    make(chan hookEvent, webhookQueue),
		failures: map[string]int{}, disabled: map[string]bool{},
	}
}

// run delivers events until ctx ends.
func (h *hooks) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-h.queue:
			for _, wh := range h.endpoints {
				h.deliver(ctx, wh, ev)
			}
		}
	}
}

// enqueue queues an event; a full queue drops it, with a log line.
func (h *hooks) enqueue(ev hookEvent) {
	if len(h.endpoints) == 0 {
		return
	}
	select {
	case h.queue <- ev:
	default:
		h.log.Error("webhook queue full: event dropped", "action", ev.action, "prompt", ev.prompt, "version", ev.version)
	}
}

// deliver sends ev to wh, trying up to webhookAttempts times with a
// doubling delay, and records the outcome.
func (h *hooks) deliver(ctx context.Context, wh Webhook, ev hookEvent) {
	h.mu.Lock()
	off := h.disabled[wh.URL]
	h.mu.Unlock()
	if off {
		return
	}
	d := Delivery{EventID: ev.id, URL: wh.URL, Action: ev.action, Prompt: ev.prompt, Version: ev.version}
	delay := h.delay
	for d.Attempts < webhookAttempts {
		if d.Attempts > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(delay):
			}
			delay *= 2
		}
		d.Attempts++
		d.Status, d.Error = h.send(ctx, wh, ev.body)
		if d.Error == "" {
			d.OK = true
			break
		}
	}
	d.At = time.Now().UTC()
	h.mu.Lock()
	defer h.mu.Unlock()
	if d.OK {
		h.failures[wh.URL] = 0
	} else {
		h.failures[wh.URL]++
		if h.failures[wh.URL] >= webhookMaxFailures {
			h.disabled[wh.URL] = true
			h.log.Error("webhook disabled after repeated failures", "url", wh.URL, "failures", h.failures[wh.URL])
		}
	}
	h.recent = append(h.recent, d)
	if len(h.recent) > webhookLogSize {
		h.recent = slices.Delete(h.recent, 0, len(h.recent)-webhookLogSize)
	}
	if h.store != nil {
		// Kept even when the server is stopping: the attempt was made.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := h.store.AddDelivery(sctx, d); err != nil {
			h.log.Error("webhook: keeping the delivery", "url", wh.URL, "event", d.EventID, "err", err)
		}
	}
}

// send makes one attempt, returning the status and what went wrong ("" for
// a 2xx answer).
func (h *hooks) send(ctx context.Context, wh Webhook, body []byte) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, wh.URL, bytes.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Tessera/"+tessera.Version)
	req.Header.Set("X-Tessera-Signature", Sign(wh.Secret, time.Now(), body))
	resp, err := h.client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, "answered " + resp.Status
	}
	return resp.StatusCode, ""
}

// Sign returns the X-Tessera-Signature header of body sent at t:
// "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed by secret>".
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// Verify checks an X-Tessera-Signature header of body against secret,
// refusing one whose time is more than tolerance from now: what a
// receiver written in Go runs.
func Verify(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	n, err := strconv.ParseInt(ts, 10, 64)
	got, herr := hex.DecodeString(sig)
	if err != nil || herr != nil || sig == "" {
		return errors.New("the signature header is not t=<unix>,v1=<hex>")
	}
	if d := now.Sub(time.Unix(n, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("the signature's time is %s from now: over %s", d.Round(time.Second), tolerance)
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return errors.New("the signature does not match the body")
	}
	return nil
}

// deliveries serves GET /api/tessera/v1/webhooks/deliveries: the newest
// deliveries first, and each endpoint's state (never its secret).
func (s *Server) deliveries(w http.ResponseWriter, r *http.Request) {
	h := s.hooks
	h.mu.Lock()
	data := slices.Clone(h.recent)
	type endpoint struct {
		URL                 string `json:"url"`
		Disabled            bool   `json:"disabled"`
		ConsecutiveFailures int    `json:"consecutiveFailures"`
	}
	eps := make([]endpoint, len(h.endpoints))
	for i, wh := range h.endpoints {
		eps[i] = endpoint{URL: wh.URL, Disabled: h.disabled[wh.URL], ConsecutiveFailures: h.failures[wh.URL]}
	}
	h.mu.Unlock()
	slices.Reverse(data)
	if h.store != nil {
		kept, err := h.store.Deliveries(r.Context(), webhookLogSize)
		if err != nil {
			fail(w, http.StatusInternalServerError, "reading the webhook delivery log: %v", err)
			return
		}
		data = kept
	}
	if data == nil {
		data = []Delivery{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "webhooks": eps})
}

// webhookPrompt is the prompt of a webhook's payload, as Langfuse sends it.
type webhookPrompt struct {
	ID            string         `json:"id"`
	Name          string         `json:"name"`
	Version       int            `json:"version"`
	ProjectID     string         `json:"projectId"`
	Labels        []string       `json:"labels"`
	Prompt        any            `json:"prompt"`
	Type          string         `json:"type"`
	Config        map[string]any `json:"config"`
	CommitMessage *string        `json:"commitMessage"`
	Tags          []string       `json:"tags"`
	CreatedAt     string         `json:"createdAt"`
	UpdatedAt     string         `json:"updatedAt"`
	// Tessera's own, as in a fetch.
	Commit string `json:"commit"`
	Hash   string `json:"hash"`
}

// emit queues an event about version n of prompt name, as st has it.
func (s *Server) emit(ctx context.Context, st *registry.State, action, name string, n int, actor string) {
	if len(s.hooks.endpoints) == 0 || n < 1 {
		return
	}
	res, err := s.reg.ByVersion(ctx, st, name, n)
	if err != nil {
		s.log.Error("webhook: resolving the prompt", "prompt", name, "version", n, "err", err)
		return
	}
	b := s.body(st, res)
	idb := make([]byte, 16)
	rand.Read(idb)
	ev := map[string]any{
		"id": hex.EncodeToString(idb), "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"type": "prompt-version", "apiVersion": "v1", "action": action,
		"prompt": webhookPrompt{
			ID: name + "@" + strconv.Itoa(n), Name: name, Version: n, ProjectID: "default",
			Labels: b.Labels, Prompt: b.Prompt, Type: b.Type, Config: b.Config, CommitMessage: b.CommitMessage,
			Tags: b.Tags, CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt, Commit: b.Commit, Hash: b.Hash,
		},
	}
	if actor != "" {
		ev["user"] = map[string]any{"id": actor, "name": nil, "email": nil}
	}
	body, err := json.Marshal(ev)
	if err != nil {
		return
	}
	s.hooks.enqueue(hookEvent{id: ev["id"].(string), action: action, prompt: name, version: n, body: body})
}

// emitNewVersions queues a "created" event for each version st has that
// the state last seen had not. The first state read has none: its
// versions are history.
func (s *Server) emitNewVersions(ctx context.Context, st *registry.State) {
	prev := s.seen.Swap(st)
	if prev == nil || prev == st || len(s.hooks.endpoints) == 0 {
		return
	}
	claimer, _ := s.store.(EventClaimer)
	for _, name := range st.Names {
		vs, old := st.Versions[name], len(prev.Versions[name])
		if old >= len(vs) {
			continue // the same, or the branch was rewritten
		}
		for _, v := range vs[old:] {
			if claimer != nil {
				// Every server sharing the store sees the version: the one
				// that claims it sends the event. A store that fails to
				// answer gets the event sent: twice is better than never.
				key := "created " + name + "@" + strconv.Itoa(v.Number) + " " + v.Commit.String()
				ok, err := claimer.ClaimEvent(ctx, key)
				if err != nil {
					s.log.Error("webhook: claiming the event", "event", key, "err", err)
				} else if !ok {
					continue
				}
			}
			s.emit(ctx, st, "created", name, v.Number, "")
		}
	}
}

// EventClaimer is a Store that servers sharing it use to send each event
// that they all see once: of the servers that claim one key, exactly one
// is told it got it. A new version is seen by the refresh of every
// replica; a label move is made, and its events sent, by one.
type EventClaimer interface {
	ClaimEvent(ctx context.Context, key string) (bool, error)
}
