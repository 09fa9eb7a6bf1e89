package client

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeServer follows the prompt API's contract as tessera serve does:
// HTTP Basic keys, Langfuse's paths and fields with Tessera's, ETags and
// 304s, and prompts by hash.
type fakeServer struct {
	*httptest.Server

	mu       sync.Mutex
	versions map[string][]string       // name → the text of versions 1, 2…
	labels   map[string]map[string]int // name → label → version
	chat     map[string]bool           // names served as chat prompts
	down     bool                      // answer 503
	gate     chan struct{}             // when set, requests wait for it
	requests []string                  // "path?query" (escaped), in order
	status   map[int]int               // how many answers of each status
}

func newFakeServer(t testing.TB) *fakeServer {
	s := &fakeServer{versions: map[string][]string{}, labels: map[string]map[string]int{}, chat: map[string]bool{}, status: map[int]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func hashOf(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// hold makes every request from now on wait until the returned channel
// is closed.
func (s *fakeServer) hold() chan struct{} {
	gate := make(chan struct{})
	s.mu.Lock()
	s.gate = gate
	s.mu.Unlock()
	return gate
}

// add adds a version of name and points labels at it.
func (s *fakeServer) add(name, text string, labels ...string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.versions[name] = append(s.versions[name], text)
	v := len(s.versions[name])
	for _, l := range labels {
		if s.labels[name] == nil {
			s.labels[name] = map[string]int{}
		}
		s.labels[name][l] = v
	}
	return v
}

func (s *fakeServer) removeLabel(name, label string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.labels[name], label)
}

func (s *fakeServer) setDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

// statusCount is how many answers had status code.
func (s *fakeServer) statusCount(code int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status[code]
}

// request is the i-th request, from the end when i < 0.
func (s *fakeServer) request(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < 0 {
		i += len(s.requests)
	}
	return s.requests[i]
}

func (s *fakeServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func (s *fakeServer) fail(w http.ResponseWriter, code int, format string, args ...any) {
	s.status[code]++
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": fmt.Sprintf(format, args...)})
}

func (s *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	gate := s.gate
	s.mu.Unlock()
	if gate != nil {
		<-gate
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r.URL.EscapedPath()+"?"+r.URL.RawQuery)
	if pk, sk, ok := r.BasicAuth(); !ok || pk != "pk-test" || sk != "sk-test" {
		s.fail(w, http.StatusUnauthorized, "unknown key pair")
		return
	}
	if s.down {
		s.fail(w, http.StatusServiceUnavailable, "down for maintenance")
		return
	}
	if h, ok := strings.CutPrefix(r.URL.Path, "/api/tessera/v1/prompts/by-hash/"); ok {
		for _, name := range sortedKeys(s.versions) {
			for i, text := range s.versions[name] {
				if hashOf(text) == h {
					w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
					s.answer(w, r, name, i+1, nil)
					return
				}
			}
		}
		s.fail(w, http.StatusNotFound, "no version of any prompt has hash %s", h)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), "/api/public/v2/prompts/")
	if !ok || strings.Contains(rest, "/") {
		s.fail(w, http.StatusNotFound, "no route %s", r.URL.EscapedPath())
		return
	}
	name, err := url.PathUnescape(rest)
	if err != nil {
		s.fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	if s.versions[name] == nil {
		s.fail(w, http.StatusNotFound, "no prompt %s", name)
		return
	}
	q := r.URL.Query()
	v := 0
	switch {
	case q.Get("version") != "":
		v, _ = strconv.Atoi(q.Get("version"))
		if v < 1 || v > len(s.versions[name]) {
			s.fail(w, http.StatusNotFound, "prompt %s has no version %s", name, q.Get("version"))
			return
		}
	default:
		label := q.Get("label")
		if label == "" {
			label = "production"
		}
		if v = s.labels[name][label]; v == 0 {
			s.fail(w, http.StatusNotFound, "prompt %s has no label %s", name, label)
			return
		}
	}
	var labels []string
	for l, lv := range s.labels[name] {
		if lv == v {
			labels = append(labels, l)
		}
	}
	sort.Strings(labels)
	w.Header().Set("Cache-Control", "private, no-cache")
	s.answer(w, r, name, v, labels)
}

// answer writes version v of name, or 304 for a matching If-None-Match.
func (s *fakeServer) answer(w http.ResponseWriter, r *http.Request, name string, v int, labels []string) {
	text := s.versions[name][v-1]
	h := hashOf(text)
	w.Header().Set("ETag", `"`+h+`"`)
	if r.Header.Get("If-None-Match") == `"`+h+`"` {
		s.status[http.StatusNotModified]++
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if labels == nil {
		labels = []string{}
	}
	var prompt any = text
	typ := "text"
	if s.chat[name] {
		typ, prompt = "chat", []map[string]string{{"role": "system", "content": text}, {"role": "user", "content": "{{question}}"}}
	}
	msg := fmt.Sprintf("version %d", v)
	body := map[string]any{
		"name": name, "version": v, "type": typ, "prompt": prompt, "config": map[string]any{"preset": "template"},
		"labels": labels, "tags": []string{"template"}, "commitMessage": msg,
		"commit": fmt.Sprintf("%040d", v), "ref": "refs/tessera/labels/production", "hash": h,
		"sources": []map[string]string{{"path": "tasks/" + name + ".txt", "blob": fmt.Sprintf("%040d", v)}},
	}
	s.status[http.StatusOK]++
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// clock is a clock tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
