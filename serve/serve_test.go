package serve_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tessera-dev/tessera/serve"
	"github.com/tessera-dev/tessera/serve/gittest"
	"github.com/tessera-dev/tessera/serve/registry"
)

const (
	pgc      = "pm_discovery.v1/pgc"
	context1 = "catalog/seed/prompts/pgc-contexts/project_discovery.v1.txt"
	admin    = "pk-admin"
	member   = "pk-member"
	viewer   = "pk-viewer"
)

// fixture is a server over a repository whose pgc prompt has three
// versions: c1 adds the catalog, c2 and c3 change pgc's context.
type fixture struct {
	t     *testing.T
	repo  *gittest.Repo
	c     []plumbing.Hash
	srv   *serve.Server
	store *serve.MemStore
	ts    *httptest.Server
}

func newFixture(t *testing.T, cfg serve.Config) *fixture {
	t.Helper()
	repo, c := newHistory(t)
	return startFixture(t, repo, c, cfg)
}

// newHistory makes a repository of the example catalog in three
// commits, pgc's three versions: a copy of its own for each test, of one
// made for the first.
func newHistory(t *testing.T) (*gittest.Repo, []plumbing.Hash) {
	t.Helper()
	repo, c := sharedHistory(t)
	return repo, slices.Clone(c)
}

var sharedHistory = gittest.Once(func(t testing.TB) (*gittest.Repo, []plumbing.Hash) {
	t.Helper()
	repo := gittest.New(t)
	repo.CopyDir("../examples", "catalog")
	c1 := repo.Commit("add the catalog")
	orig := repo.Read(context1)
	repo.Write(context1, orig+"\nOne more line of context.\n")
	c2 := repo.Commit("pgc: more context")
	repo.Write(context1, orig+"\nAnother line.\n")
	c3 := repo.Commit("pgc: another line")
	return repo, []plumbing.Hash{c1, c2, c3}
})

func startFixture(t *testing.T, repo *gittest.Repo, c []plumbing.Hash, cfg serve.Config) *fixture {
	t.Helper()
	var store *serve.MemStore
	switch st := cfg.Store.(type) {
	case nil:
		store = serve.NewMemStore()
		cfg.Store = store
	case *keptDeliveries:
		store = st.MemStore
	default:
		t.Fatalf("a fixture's store is a MemStore, or one that embeds it: %T", cfg.Store)
	}
	ctx := t.Context()
	for _, k := range []struct{ pub, role string }{{member, serve.RoleMember}, {viewer, serve.RoleViewer}} {
		if err := store.PutKey(ctx, k.pub, "sk-"+k.pub, k.role); err != nil {
			t.Fatal(err)
		}
	}
	cfg.Root = repo.Dir + "/catalog"
	cfg.AdminPublicKey, cfg.AdminSecretKey = admin, "sk-"+admin
	if cfg.PollInterval == 0 {
		cfg.PollInterval = -1
	}
	srv, err := serve.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return &fixture{t: t, repo: repo, c: c, srv: srv, store: store, ts: ts}
}

// do sends a request as key (none when "") and returns the status and
// the body.
func (f *fixture) do(key, method, path string, body any, hdr ...string) (int, http.Header, []byte) {
	f.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			f.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(f.t.Context(), method, f.ts.URL+path, rd)
	if err != nil {
		f.t.Fatal(err)
	}
	if key != "" {
		req.SetBasicAuth(key, "sk-"+key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := f.ts.Client().Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, data
}

// get fetches path as a viewer and decodes a 200 answer into v.
func (f *fixture) get(path string, v any) {
	f.t.Helper()
	code, _, body := f.do(viewer, "GET", path, nil)
	if code != http.StatusOK {
		f.t.Fatalf("GET %s: %d %s", path, code, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		f.t.Fatalf("GET %s: %v\n%s", path, err, body)
	}
}

// wantError checks an error answer: its code, and a JSON message holding
// want.
func (f *fixture) wantError(code int, body []byte, wantCode int, want string) {
	f.t.Helper()
	var e struct{ Message string }
	if err := json.Unmarshal(body, &e); err != nil || e.Message == "" {
		f.t.Errorf("error body is not {message}: %s", body)
	}
	if code != wantCode || !strings.Contains(e.Message, want) {
		f.t.Errorf("got %d %q, want %d and a message with %q", code, e.Message, wantCode, want)
	}
}

type promptJSON struct {
	Name          string
	Version       int
	Type          string
	Prompt        json.RawMessage
	Config        map[string]any
	Labels        []string
	Tags          []string
	CommitMessage *string
	Commit        string
	Ref           string
	Hash          string
	Sources       []struct{ Path, Blob string }
}

func promptPath(name string) string { return "/api/public/v2/prompts/" + url.PathEscape(name) }

func TestFetch(t *testing.T) {
	f := newFixture(t, serve.Config{})
	var p promptJSON
	f.get(promptPath(pgc)+"?label=latest", &p)
	if p.Name != pgc || p.Version != 3 || p.Type != "text" || p.Commit != f.c[2].String() || *p.CommitMessage != "pgc: another line" {
		t.Errorf("latest: %+v", p)
	}
	var text string
	if err := json.Unmarshal(p.Prompt, &text); err != nil || !strings.Contains(text, "Another line.") {
		t.Errorf("latest text: %v %q", err, text)
	}
	sum := sha256.Sum256([]byte(text))
	if p.Hash != hex.EncodeToString(sum[:]) {
		t.Errorf("hash %s is not the SHA-256 of the text", p.Hash)
	}
	if len(p.Sources) == 0 || p.Sources[0].Blob == "" || !strings.Contains(strings.Join(p.Labels, ","), "latest") {
		t.Errorf("sources %v, labels %v", p.Sources, p.Labels)
	}
	f.get(promptPath(pgc)+"?version=1", &p)
	if p.Version != 1 || p.Commit != f.c[0].String() {
		t.Errorf("version 1: %+v", p)
	}
	// With neither label nor version: production, which is not set yet.
	code, _, body := f.do(viewer, "GET", promptPath(pgc), nil)
	f.wantError(code, body, http.StatusNotFound, `no label "production"`)
	f.repo.SetRef(registry.LabelPrefix+"production", f.c[1])
	f.do(admin, "POST", "/api/tessera/v1/refresh", nil)
	f.get(promptPath(pgc), &p)
	if p.Version != 2 || p.Ref != registry.LabelPrefix+"production" {
		t.Errorf("production: %+v", p)
	}
	// The name unencoded works too, and a commit selects.
	f.get("/api/public/v2/prompts/"+pgc+"?commit="+f.c[1].String()[:8], &p)
	if p.Version != 2 {
		t.Errorf("by commit: %+v", p)
	}
	// ETag and 304.
	code, hdr, _ := f.do(viewer, "GET", promptPath(pgc)+"?version=2", nil)
	etag := hdr.Get("ETag")
	if code != 200 || etag != `"`+p.Hash+`"` {
		t.Fatalf("ETag %q, code %d", etag, code)
	}
	code, _, body = f.do(viewer, "GET", promptPath(pgc)+"?version=2", nil, "If-None-Match", etag)
	if code != http.StatusNotModified || len(body) != 0 {
		t.Errorf("If-None-Match: %d %s", code, body)
	}
	code, _, _ = f.do(viewer, "GET", promptPath(pgc)+"?version=3", nil, "If-None-Match", etag)
	if code != http.StatusOK {
		t.Errorf("If-None-Match of another version: %d", code)
	}
	// A prompt whose preset sends a system side is a chat prompt.
	chats := 0
	for _, name := range []string{"specs/support-ticket", "typed/review/code-review/small-change", "layered/fix-tests"} {
		f.get(promptPath(name)+"?label=latest", &p)
		if p.Type == "chat" {
			chats++
			var msgs []struct{ Role, Content string }
			if err := json.Unmarshal(p.Prompt, &msgs); err != nil || len(msgs) == 0 || msgs[0].Role != "system" || msgs[0].Content == "" {
				t.Errorf("%s: chat prompt %s: %v", name, p.Prompt, err)
			}
		}
	}
	if chats == 0 {
		t.Error("no example prompt is a chat prompt")
	}
}

func TestList(t *testing.T) {
	f := newFixture(t, serve.Config{})
	type list struct {
		Data []struct {
			Name     string
			Type     string
			Versions []int
			Labels   []string
			Tags     []string
		}
		Meta struct{ Page, Limit, TotalItems, TotalPages int }
	}
	var all list
	f.get("/api/public/v2/prompts", &all)
	if all.Meta.TotalItems != 10 || all.Meta.Page != 1 || all.Meta.TotalPages != 1 || len(all.Data) != 10 {
		t.Fatalf("list: %+v", all.Meta)
	}
	for i := 1; i < len(all.Data); i++ {
		if all.Data[i-1].Name >= all.Data[i].Name {
			t.Errorf("not sorted: %s before %s", all.Data[i-1].Name, all.Data[i].Name)
		}
	}
	var page list
	f.get("/api/public/v2/prompts?limit=3&page=4", &page)
	if page.Meta.TotalPages != 4 || len(page.Data) != 1 || page.Data[0].Name != all.Data[9].Name {
		t.Errorf("page 4 of 3: %+v", page)
	}
	var one list
	f.get("/api/public/v2/prompts?name="+url.QueryEscape(pgc), &one)
	if len(one.Data) != 1 || len(one.Data[0].Versions) != 3 {
		t.Errorf("by name: %+v", one)
	}
	var tagged list
	f.get("/api/public/v2/prompts?tag=template", &tagged)
	if tagged.Meta.TotalItems != 4 {
		t.Errorf("tag template: %+v", tagged.Meta)
	}
	var labelled list
	f.get("/api/public/v2/prompts?label=production", &labelled)
	if labelled.Meta.TotalItems != 0 {
		t.Errorf("label production: %+v", labelled.Meta)
	}
	var later list
	f.get("/api/public/v2/prompts?fromUpdatedAt=2026-01-01T12:01:00Z", &later)
	if later.Meta.TotalItems != 2 || len(later.Data[0].Versions) != 2 { // pgc and review read the changed context
		t.Errorf("fromUpdatedAt: %+v", later)
	}
	var earlier list
	f.get("/api/public/v2/prompts?name="+url.QueryEscape(pgc)+"&toUpdatedAt=2026-01-01T12:01:00Z", &earlier)
	if earlier.Meta.TotalItems != 1 || len(earlier.Data[0].Versions) != 1 {
		t.Errorf("toUpdatedAt: %+v", earlier)
	}
	code, _, body := f.do(viewer, "GET", "/api/public/v2/prompts?page=0", nil)
	f.wantError(code, body, http.StatusBadRequest, "page")
	code, _, body = f.do(viewer, "GET", "/api/public/v2/prompts?fromUpdatedAt=yesterday", nil)
	f.wantError(code, body, http.StatusBadRequest, "RFC 3339")
}

func TestPatchLabels(t *testing.T) {
	f := newFixture(t, serve.Config{ProtectedLabels: []string{"production"}})
	path := promptPath(pgc) + "/versions/2"
	code, _, body := f.do(member, "PATCH", path, map[string]any{"newLabels": []string{"staging"}, "reason": "try it"})
	if code != 200 {
		t.Fatalf("PATCH: %d %s", code, body)
	}
	var p promptJSON
	json.Unmarshal(body, &p)
	if p.Version != 2 || strings.Join(p.Labels, ",") != "staging" {
		t.Errorf("after PATCH: %+v", p)
	}
	f.get(promptPath(pgc)+"?label=staging", &p)
	if p.Version != 2 {
		t.Errorf("staging: %+v", p)
	}
	// Adding it to another version moves it.
	f.do(member, "PATCH", promptPath(pgc)+"/versions/3", map[string]any{"newLabels": []string{"staging"}})
	f.get(promptPath(pgc)+"?label=staging", &p)
	if p.Version != 3 {
		t.Errorf("staging after the move: %+v", p)
	}
	code, _, body = f.do(member, "PATCH", path, map[string]any{"newLabels": []string{"production"}})
	f.wantError(code, body, http.StatusForbidden, "protected")
	code, _, body = f.do(admin, "PATCH", path, map[string]any{"newLabels": []string{"production"}})
	if code != 200 {
		t.Errorf("admin moving production: %d %s", code, body)
	}
	code, _, body = f.do(member, "PATCH", path, map[string]any{"newLabels": []string{"latest"}})
	f.wantError(code, body, http.StatusBadRequest, "reserved")
	code, _, body = f.do(member, "PATCH", path, map[string]any{"newLabels": []string{"Bad/Label"}})
	f.wantError(code, body, http.StatusBadRequest, "not valid")
	code, _, body = f.do(member, "PATCH", promptPath(pgc)+"/versions/9", map[string]any{"newLabels": []string{"x"}})
	f.wantError(code, body, http.StatusNotFound, "no version 9")
	code, _, body = f.do(viewer, "PATCH", path, map[string]any{"newLabels": []string{"x"}})
	f.wantError(code, body, http.StatusForbidden, "needs member")
	// Removal, which Langfuse's PATCH cannot do.
	code, _, body = f.do(member, "PATCH", promptPath(pgc)+"/versions/3", map[string]any{"removeLabels": []string{"staging"}, "reason": "done"})
	if code != 200 {
		t.Fatalf("remove: %d %s", code, body)
	}
	code, _, body = f.do(viewer, "GET", promptPath(pgc)+"?label=staging", nil)
	f.wantError(code, body, http.StatusNotFound, "staging")
	// The history, newest first.
	var h struct {
		Data []struct {
			Label                  string
			FromVersion, ToVersion int
			Actor, Reason, At      string
		}
	}
	f.get("/api/tessera/v1/prompts/"+url.PathEscape(pgc)+"/labels/history", &h)
	var got []string
	for _, m := range h.Data {
		got = append(got, m.Label+":"+itoa(m.FromVersion)+">"+itoa(m.ToVersion)+":"+m.Actor+":"+m.Reason)
		if m.At == "" {
			t.Errorf("move without a time: %+v", m)
		}
	}
	want := "staging:3>0:pk-member:done production:0>2:pk-admin: staging:2>3:pk-member: staging:0>2:pk-member:try it"
	if strings.Join(got, " ") != want {
		t.Errorf("history:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	// The name unencoded and "version" singular, as older servers spelled
	// it, work too.
	code, _, body = f.do(member, "PATCH", "/api/public/v2/prompts/"+pgc+"/version/1", map[string]any{"newLabels": []string{"old"}})
	if code != 200 {
		t.Errorf("PATCH .../version/1: %d %s", code, body)
	}
	var l struct{ Data []struct{ Versions []int } }
	f.get("/api/public/v2/prompts?label=old", &l)
	if len(l.Data) != 1 || len(l.Data[0].Versions) != 1 || l.Data[0].Versions[0] != 1 {
		t.Errorf("list by label old: %+v", l)
	}
	// Writes Git owns.
	for _, m := range []string{"POST", "DELETE"} {
		code, _, body = f.do(admin, m, "/api/public/v2/prompts", "{}")
		if m == "POST" {
			f.wantError(code, body, http.StatusMethodNotAllowed, "Git is the source of truth")
		}
		code, _, body = f.do(admin, m, promptPath(pgc), "{}")
		f.wantError(code, body, http.StatusMethodNotAllowed, "Git is the source of truth")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestByHashRenderReplayDiff(t *testing.T) {
	f := newFixture(t, serve.Config{})
	var p promptJSON
	f.get(promptPath(pgc)+"?version=2", &p)
	code, hdr, body := f.do(viewer, "GET", "/api/tessera/v1/prompts/by-hash/"+p.Hash, nil)
	if code != 200 || hdr.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Errorf("by hash: %d %q", code, hdr.Get("Cache-Control"))
	}
	var q promptJSON
	json.Unmarshal(body, &q)
	if q.Name != pgc || q.Version != 2 || q.Hash != p.Hash {
		t.Errorf("by hash: %+v", q)
	}
	code, _, body = f.do(viewer, "GET", "/api/tessera/v1/prompts/by-hash/"+strings.Repeat("0", 64), nil)
	f.wantError(code, body, http.StatusNotFound, "no version")
	code, _, body = f.do(viewer, "GET", "/api/tessera/v1/prompts/by-hash/xyz", nil)
	f.wantError(code, body, http.StatusBadRequest, "SHA-256")

	// Render version 2, then replay it against the head, where pgc changed.
	code, _, body = f.do(member, "POST", "/api/tessera/v1/render", map[string]any{"name": pgc, "version": 2})
	if code != 200 {
		t.Fatalf("render: %d %s", code, body)
	}
	var out struct{ Output, Hash, Commit, AuditID string }
	json.Unmarshal(body, &out)
	if out.Hash != p.Hash || out.Commit != f.c[1].String() || out.AuditID == "" || !strings.Contains(out.Output, "One more line") {
		t.Errorf("render: %+v", out)
	}
	code, _, body = f.do(viewer, "POST", "/api/tessera/v1/render", map[string]any{"name": pgc})
	f.wantError(code, body, http.StatusForbidden, "needs member")
	type replay struct {
		Match                    bool
		ExpectedHash, ActualHash string
		Diff                     string
	}
	var rp replay
	code, _, body = f.do(member, "POST", "/api/tessera/v1/replay/"+out.AuditID+"?commit="+f.c[1].String(), nil)
	json.Unmarshal(body, &rp)
	if code != 200 || !rp.Match || rp.ActualHash != p.Hash || rp.Diff != "" {
		t.Errorf("replay at its commit: %d %s", code, body)
	}
	code, _, body = f.do(member, "POST", "/api/tessera/v1/replay/"+out.AuditID, nil)
	json.Unmarshal(body, &rp)
	if code != 200 || rp.Match || rp.ExpectedHash != p.Hash || !strings.Contains(rp.Diff, "-One more line of context.") || !strings.Contains(rp.Diff, "+Another line.") {
		t.Errorf("replay at the head: %d %s", code, body)
	}
	// Against the prompt's own label, as PATCH sets it: its commit.
	if code, _, body = f.do(member, "PATCH", promptPath(pgc)+"/versions/2", map[string]any{"newLabels": []string{"canary"}}); code != 200 {
		t.Fatalf("PATCH: %d %s", code, body)
	}
	code, _, body = f.do(member, "POST", "/api/tessera/v1/replay/"+out.AuditID+"?label=canary", nil)
	rp = replay{}
	json.Unmarshal(body, &rp)
	if code != 200 || !rp.Match {
		t.Errorf("replay against the prompt's own label: %d %s", code, body)
	}
	code, _, body = f.do(member, "POST", "/api/tessera/v1/replay/"+out.AuditID+"?label=nowhere", nil)
	f.wantError(code, body, http.StatusNotFound, `label "nowhere" not found`)
	code, _, body = f.do(member, "POST", "/api/tessera/v1/replay/no-such-id", nil)
	f.wantError(code, body, http.StatusNotFound, "no audit record")
	_, _, body = f.do(viewer, "GET", "/metrics", nil)
	for _, want := range []string{`tessera_replays_total{result="match"} 2`, `tessera_replays_total{result="mismatch"} 1`, `tessera_audit_writes_total{outcome="ok",store="memory"} 1`, "tessera_assembly_duration_seconds_count 1"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}

	var d struct {
		Diff           string
		From, To       struct{ Version int }
		ChangedSources []struct{ Path, FromBlob, ToBlob string }
	}
	f.get("/api/tessera/v1/diff?name="+url.QueryEscape(pgc)+"&from=1&to=latest", &d)
	if d.From.Version != 1 || d.To.Version != 3 || !strings.Contains(d.Diff, "@@ ") || !strings.Contains(d.Diff, "+Another line.") {
		t.Errorf("diff: %+v", d)
	}
	if len(d.ChangedSources) != 1 || d.ChangedSources[0].Path != "seed/prompts/pgc-contexts/project_discovery.v1.txt" {
		t.Errorf("changed sources: %+v", d.ChangedSources)
	}
	code, _, body = f.do(viewer, "GET", "/api/tessera/v1/diff?name="+url.QueryEscape(pgc)+"&from=1", nil)
	f.wantError(code, body, http.StatusBadRequest, "to: missing")
}

func TestAuth(t *testing.T) {
	f := newFixture(t, serve.Config{})
	code, hdr, body := f.do("", "GET", promptPath(pgc), nil)
	f.wantError(code, body, http.StatusUnauthorized, "HTTP Basic")
	if hdr.Get("WWW-Authenticate") == "" {
		t.Error("no WWW-Authenticate")
	}
	req, _ := http.NewRequest("GET", f.ts.URL+promptPath(pgc), nil)
	req.SetBasicAuth(viewer, "wrong")
	resp, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong secret: %d", resp.StatusCode)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, _, body := f.do("", "GET", path, nil); code != 200 {
			t.Errorf("%s: %d %s", path, code, body)
		}
	}
	code, _, body = f.do("", "GET", "/metrics", nil)
	f.wantError(code, body, http.StatusUnauthorized, "HTTP Basic")
	code, _, body = f.do(viewer, "GET", "/metrics", nil)
	if code != 200 || !strings.Contains(string(body), `tessera_http_requests_total{code="401",method="GET",route="/api/public/v2/prompts/{name}"} 2`) || !strings.Contains(string(body), "tessera_build_info{") || !strings.Contains(string(body), `tessera_git_refresh_total{outcome="ok"} 1`) {
		t.Errorf("metrics: %d\n%s", code, body)
	}
	code, _, body = f.do(member, "POST", "/api/tessera/v1/refresh", nil)
	f.wantError(code, body, http.StatusForbidden, "needs admin")
}

func TestRefreshWebhook(t *testing.T) {
	f := newFixture(t, serve.Config{RefreshSecret: "s3cret"})
	c4 := func() {
		f.repo.Write(context1, f.repo.Read(context1)+"\nFourth.\n")
		f.repo.Commit("fourth")
	}
	c4()
	var p promptJSON
	f.get(promptPath(pgc)+"?label=latest", &p)
	if p.Version != 3 {
		t.Fatalf("before the refresh: version %d", p.Version)
	}
	if code, _, body := f.do("", "POST", "/api/tessera/v1/refresh", nil, "Authorization", "Bearer s3cret"); code != 200 {
		t.Fatalf("refresh with the secret: %d %s", code, body)
	}
	f.get(promptPath(pgc)+"?label=latest", &p)
	if p.Version != 4 {
		t.Errorf("after the refresh: version %d", p.Version)
	}
	payload := `{"ref":"refs/heads/main"}`
	mac := hmac.New(sha256.New, []byte("s3cret"))
	mac.Write([]byte(payload))
	if code, _, body := f.do("", "POST", "/api/tessera/v1/refresh", payload, "X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil))); code != 200 {
		t.Errorf("signed webhook: %d %s", code, body)
	}
	code, _, body := f.do("", "POST", "/api/tessera/v1/refresh", payload, "X-Hub-Signature-256", "sha256=00")
	f.wantError(code, body, http.StatusUnauthorized, "HTTP Basic")
	code, _, body = f.do("", "POST", "/api/tessera/v1/refresh", nil, "X-Gitlab-Token", "wrong")
	f.wantError(code, body, http.StatusUnauthorized, "HTTP Basic")
}

func TestBadInput(t *testing.T) {
	f := newFixture(t, serve.Config{})
	for _, tc := range []struct {
		method, path string
		body         any
		code         int
		want         string
	}{
		{"GET", "/api/public/v2/prompts/..%2F..%2Fetc%2Fpasswd", nil, 400, "not a relative path"},
		{"GET", "/api/public/v2/prompts/a%5Cb", nil, 400, "backslash"},
		{"GET", "/api/public/v2/prompts/a%00b", nil, 400, "control character"},
		{"GET", promptPath("no/such/prompt"), nil, 404, "not found"},
		{"GET", promptPath(pgc) + "?label=Bad%20Label", nil, 400, "not valid"},
		{"GET", promptPath(pgc) + "?version=0", nil, 400, "whole number"},
		{"GET", promptPath(pgc) + "?version=99", nil, 404, "no version 99"},
		{"GET", promptPath(pgc) + "?version=1&label=latest", nil, 400, "one of"},
		{"GET", promptPath(pgc) + "?commit=xyz", nil, 400, "commit hash"},
		{"GET", promptPath(pgc) + "?label=nolabel", nil, 404, "no label"},
		{"PATCH", promptPath(pgc) + "/versions/1", "{", 400, "not a JSON object"},
		{"PATCH", promptPath(pgc) + "/versions/1", `{"newLabels":["a"],"extra":1}`, 400, "unknown field"},
		{"PATCH", promptPath(pgc) + "/versions/x", `{}`, 400, "whole number"},
		{"PATCH", promptPath(pgc), `{}`, 400, "PATCH needs a version"},
		{"PATCH", promptPath(pgc) + "/versions/1", strings.Repeat(" ", serve.MaxBodyBytes+1), 413, "over"},
		{"POST", "/api/tessera/v1/render", strings.Repeat(" ", serve.MaxBodyBytes+1), 413, "over"},
		{"POST", "/api/tessera/v1/render", `{"name":"../x"}`, 400, "not a relative path"},
		{"POST", "/api/tessera/v1/render", `{"name":"` + pgc + `","label":"latest","variables":{"a":"b"}}`, 400, "variables"},
		{"POST", "/api/tessera/v1/replay/" + strings.Repeat("x", 300), nil, 400, ""},
		{"GET", "/api/tessera/v1/diff?name=" + url.QueryEscape(pgc) + "&from=1&to=99", nil, 404, "no version 99"},
		{"GET", "/api/tessera/v1/prompts/..%2Fx/labels/history", nil, 400, "relative path"},
		{"GET", "/api/tessera/v1/prompts/nope/labels/history", nil, 404, "not found"},
		{"GET", "/nowhere", nil, 404, "no such endpoint"},
	} {
		code, _, body := f.do(admin, tc.method, tc.path, tc.body)
		f.wantError(code, body, tc.code, tc.want)
		if bytes.Contains(body, []byte("goroutine ")) {
			t.Errorf("%s %s: a stack in the answer", tc.method, tc.path)
		}
	}
}

func TestNotReady(t *testing.T) {
	repo := gittest.New(t) // no commit: the first read fails
	repo.Write("catalog/tessera.yaml", "")
	f := startFixture(t, repo, nil, serve.Config{})
	code, _, body := f.do("", "GET", "/readyz", nil)
	f.wantError(code, body, http.StatusServiceUnavailable, "no commit")
	code, _, body = f.do(viewer, "GET", promptPath(pgc), nil)
	f.wantError(code, body, http.StatusServiceUnavailable, "not been read")
}

func TestRenderVariables(t *testing.T) {
	f := newFixture(t, serve.Config{})
	const typed = "typed/review/code-review/small-change"
	token := "ghp_" + strings.Repeat("a1B2", 9)
	code, _, body := f.do(member, "POST", "/api/tessera/v1/render", map[string]any{
		"name": typed, "label": "latest",
		"variables": map[string]any{"repo": "octo/widget " + token, "max_comments": 3},
	})
	if code != 200 {
		t.Fatalf("render with variables: %d %s", code, body)
	}
	var out struct{ Output, Hash, AuditID string }
	json.Unmarshal(body, &out)
	if !strings.Contains(out.Output, "octo/widget") || strings.Contains(out.Output, token) {
		t.Errorf("the variables are not in the output, or the secret is:\n%s", out.Output)
	}
	var base promptJSON
	f.get(promptPath(typed)+"?label=latest", &base)
	if out.Hash == base.Hash {
		t.Error("the render with variables has the catalog's hash")
	}
	// The record replays to the same bytes: the variables are in it.
	var rp struct{ Match bool }
	code, _, body = f.do(member, "POST", "/api/tessera/v1/replay/"+out.AuditID, nil)
	json.Unmarshal(body, &rp)
	if code != 200 || !rp.Match {
		t.Errorf("replay of a render with variables: %d %s", code, body)
	}
	// A canonical spec takes its top-level keys, such as input.
	code, _, body = f.do(member, "POST", "/api/tessera/v1/render", map[string]any{"name": "specs/support-ticket", "label": "latest",
		"variables": map[string]any{"input": map[string]any{"userQuery": "Where is order 2001?"}}})
	json.Unmarshal(body, &out)
	if code != 200 || !strings.Contains(out.Output, "Where is order 2001?") || strings.Contains(out.Output, "Any news on 1043") {
		t.Errorf("canonical render with input: %d %s", code, body)
	}
	code, _, body = f.do(member, "POST", "/api/tessera/v1/render", map[string]any{"name": typed, "label": "latest", "variables": map[string]any{"nope": 1}})
	f.wantError(code, body, http.StatusBadRequest, "nope")
	code, _, body = f.do(member, "POST", "/api/tessera/v1/render", map[string]any{"name": typed, "label": "latest", "variables": map[string]any{"max_comments": "many"}})
	f.wantError(code, body, http.StatusBadRequest, "max_comments")
	code, _, body = f.do(member, "POST", "/api/tessera/v1/render", map[string]any{"name": pgc, "label": "latest", "variables": map[string]any{"x": "y"}})
	f.wantError(code, body, http.StatusBadRequest, "takes no variables")
}

func TestKeys(t *testing.T) {
	f := newFixture(t, serve.Config{PublicMetrics: true})
	code, _, body := f.do(admin, "POST", "/api/tessera/v1/keys", map[string]any{"public": "pk-ci", "role": "viewer"})
	var k struct{ Public, Secret, Role string }
	json.Unmarshal(body, &k)
	if code != http.StatusCreated || k.Public != "pk-ci" || len(k.Secret) < 16 || k.Role != "viewer" {
		t.Fatalf("new key: %d %s", code, body)
	}
	req, _ := http.NewRequest("GET", f.ts.URL+promptPath(pgc)+"?label=latest", nil)
	req.SetBasicAuth(k.Public, k.Secret)
	resp, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("fetch with the new key: %d", resp.StatusCode)
	}
	// A new secret for the same public key: the old one stops working at
	// once, cached or not.
	code, _, body = f.do(admin, "POST", "/api/tessera/v1/keys", map[string]any{"public": "pk-ci", "role": "viewer", "secret": "another-secret-0123456789"})
	if code != http.StatusCreated {
		t.Fatalf("replacing the key: %d %s", code, body)
	}
	resp, err = f.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the replaced secret: %d", resp.StatusCode)
	}
	code, _, body = f.do(member, "POST", "/api/tessera/v1/keys", map[string]any{"public": "pk-x", "role": "admin"})
	f.wantError(code, body, http.StatusForbidden, "needs admin")
	code, _, body = f.do(admin, "POST", "/api/tessera/v1/keys", map[string]any{"public": "pk-x", "role": "root"})
	f.wantError(code, body, http.StatusBadRequest, "role")
	code, _, body = f.do(admin, "POST", "/api/tessera/v1/keys", map[string]any{"public": "pk-x", "secret": "short", "role": "viewer"})
	f.wantError(code, body, http.StatusBadRequest, "16 to 256")
	// PublicMetrics: no key needed.
	if code, _, body := f.do("", "GET", "/metrics", nil); code != 200 || !strings.Contains(string(body), "tessera_build_info") {
		t.Errorf("public metrics: %d", code)
	}
}

// TestConcurrent fetches, renders, moves labels and refreshes at once, for
// the race detector.
func TestConcurrent(t *testing.T) {
	f := newFixture(t, serve.Config{PollInterval: time.Millisecond})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 10 {
				switch (i + j) % 4 {
				case 0:
					f.do(viewer, "GET", promptPath(pgc)+"?label=latest", nil)
				case 1:
					f.do(member, "POST", "/api/tessera/v1/render", map[string]any{"name": "specs/support-ticket", "version": 1})
					f.do(member, "POST", "/api/tessera/v1/render", map[string]any{"name": "typed/review/code-review/small-change", "version": 1, "variables": map[string]any{"repo": "a/b"}})
					f.do(member, "POST", "/api/tessera/v1/render", map[string]any{"name": "layered/fix-tests", "version": 1})
				case 2:
					f.do(member, "PATCH", promptPath(pgc)+"/versions/"+itoa(1+j%3), map[string]any{"newLabels": []string{"staging"}})
				case 3:
					f.do(viewer, "GET", "/api/public/v2/prompts?label=staging", nil)
				}
			}
		})
	}
	wg.Wait()
	var p promptJSON
	f.get(promptPath(pgc)+"?label=staging", &p)
	if p.Version < 1 || p.Version > 3 {
		t.Errorf("staging at version %d", p.Version)
	}
}

// TestTwoServers runs two servers on one repository: a label moved
// through one is served by the other after its next poll.
func TestTwoServers(t *testing.T) {
	f := newFixture(t, serve.Config{})
	other, err := serve.New(t.Context(), serve.Config{Root: f.repo.Dir + "/catalog", PollInterval: 10 * time.Millisecond, AdminPublicKey: admin, AdminSecretKey: "sk-" + admin})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ts := httptest.NewServer(other.Handler())
	defer ts.Close()
	g := &fixture{t: t, repo: f.repo, ts: ts}
	code, _, body := f.do(member, "PATCH", promptPath(pgc)+"/versions/2", map[string]any{"newLabels": []string{"canary"}})
	if code != 200 {
		t.Fatalf("PATCH: %d %s", code, body)
	}
	for i := 0; ; i++ {
		code, _, body = g.do(admin, "GET", promptPath(pgc)+"?label=canary", nil)
		if code == 200 {
			break
		}
		if i == 500 {
			t.Fatalf("the other server never served the label: %d %s", code, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var p promptJSON
	json.Unmarshal(body, &p)
	if p.Version != 2 {
		t.Errorf("the other server serves canary at version %d", p.Version)
	}
}
