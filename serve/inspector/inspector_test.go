package inspector_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/serve/inspector"
)

const hostile = `<script>alert("x")</script>`

// fake is a Source in memory: one prompt "team/greet" with two versions,
// and one whose name and message are hostile.
type fake struct {
	mu    sync.Mutex
	moves []inspector.LabelMove
	// extra prompts and audit records, for the pages of long lists.
	extra int
	// replays lists what each replay was against.
	replays []string
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func (f *fake) Prompts(ctx context.Context) ([]inspector.Prompt, error) {
	ps := []inspector.Prompt{
		{Name: "team/greet", Preset: "template", Versions: 2, Latest: t0, Labels: []inspector.Label{{Name: "latest", Version: 2}, {Name: "production", Version: 1}}},
		{Name: "x/" + hostile, Preset: "template", Versions: 1, Latest: t0},
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.extra {
		ps = append(ps, inspector.Prompt{Name: fmt.Sprintf("zz/p%03d", i), Preset: "template", Versions: 1, Latest: t0})
	}
	return ps, nil
}

func (f *fake) Prompt(ctx context.Context, name string) (*inspector.PromptDetail, error) {
	switch name {
	case "team/greet":
		return &inspector.PromptDetail{Name: name, Preset: "template", Versions: []inspector.Version{
			{Number: 1, Commit: strings.Repeat("a", 40), Hash: strings.Repeat("1", 64), Time: t0, Message: "first", Labels: []string{"production"}},
			{Number: 2, Commit: strings.Repeat("b", 40), Hash: strings.Repeat("2", 64), Time: t0.Add(time.Minute), Message: "second", Labels: []string{"latest"}},
		}}, nil
	case "x/" + hostile:
		return &inspector.PromptDetail{Name: name, Preset: "template", Versions: []inspector.Version{{Number: 1, Message: hostile}}}, nil
	}
	return nil, fmt.Errorf("%w: prompt %q", inspector.ErrNotFound, name)
}

func (f *fake) Assembled(ctx context.Context, name string, n int) (*inspector.Assembled, error) {
	if name != "team/greet" || n > 2 {
		return nil, fmt.Errorf("%w: %s version %d", inspector.ErrNotFound, name, n)
	}
	return &inspector.Assembled{
		Name: name, Version: n, Preset: "layered", Counter: "o200k_base", Budgeted: true, Limit: 100, Final: 90,
		Sections: []inspector.Section{{Key: "rules", Role: "system", Tokens: 60, Text: "Be kind. " + hostile}, {Key: "task", Role: "user", Tokens: 30, Text: "Greet."}, {Key: "empty", Role: "user"}},
		Cut:      []inspector.Cut{{Key: "memories", What: "dropped (drop)", Tokens: 40}},
		Selection: &inspector.Selection{Task: "greet", Mode: "act", ModeReason: "a verb", Tools: []inspector.Pick{{Kind: "tool", Name: "wave", Score: 0.5, Why: "similarity 0.5"}},
			Passed: []inspector.Pick{{Kind: "skill", Name: "shout", Score: 0.1, Why: "under scores.min"}}, Filtered: []string{"memories/m3 (kind system)"}, FilteredCount: 1},
	}, nil
}

func (f *fake) Diff(ctx context.Context, name string, from, to int) (string, error) {
	return "--- a\n+++ b\n@@ -1 +1 @@\n-Hello\n+Hello " + hostile + "\n", nil
}

func (f *fake) LabelHistory(ctx context.Context, name string) ([]inspector.LabelMove, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]inspector.LabelMove(nil), f.moves...), nil
}

func (f *fake) MoveLabel(ctx context.Context, name, label string, n int, reason string) error {
	if label == "bad label" {
		return fmt.Errorf("%w: label %q is not valid", inspector.ErrInvalid, label)
	}
	if label == "raced" {
		return fmt.Errorf("%w: label %q moved since this server read it", inspector.ErrConflict, label)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.moves = append([]inspector.LabelMove{{Label: label, To: n, Actor: "pk", Reason: reason, At: t0}}, f.moves...)
	return nil
}

func (f *fake) RemoveLabel(ctx context.Context, name, label, reason string) error {
	if label == "shared" {
		return fmt.Errorf("%w: label %q comes from refs/tessera/labels/shared, which every prompt shares", inspector.ErrInvalid, label)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.moves = append([]inspector.LabelMove{{Label: label, From: 1, Actor: "pk", Reason: reason, At: t0}}, f.moves...)
	return nil
}

func (f *fake) Audit(ctx context.Context, q inspector.AuditQuery) (*inspector.AuditResult, error) {
	all := []inspector.AuditRecord{
		{ID: "id-1", Prompt: "team/greet", Preset: "template", Hash: strings.Repeat("1", 64), Time: "2026-01-02T03:04:05.000Z"},
		{ID: "id-2", Prompt: "other", Preset: "template", Hash: strings.Repeat("2", 64), Time: "2026-01-02T03:04:06.000Z"},
	}
	f.mu.Lock()
	for i := range f.extra {
		all = append(all, inspector.AuditRecord{ID: fmt.Sprintf("id-x%03d", i), Prompt: "many", Preset: "template", Hash: strings.Repeat("3", 64)})
	}
	f.mu.Unlock()
	var out inspector.AuditResult
	for _, r := range all {
		if (q.ID == "" || q.ID == r.ID) && (q.Prompt == "" || q.Prompt == r.Prompt) && (q.Hash == "" || q.Hash == r.Hash) {
			out.Records = append(out.Records, r)
		}
		if q.Limit > 0 && len(out.Records) == q.Limit {
			break
		}
	}
	return &out, nil
}

func (f *fake) Replay(ctx context.Context, id, against string) (*inspector.Replay, error) {
	f.mu.Lock()
	f.replays = append(f.replays, against)
	f.mu.Unlock()
	if against == "nowhere" {
		return nil, fmt.Errorf("%w: label %q not found", inspector.ErrNotFound, against)
	}
	switch id {
	case "id-1":
		return &inspector.Replay{ID: id, Against: against, Commit: strings.Repeat("c", 40), Match: true, Status: "ok", ExpectedHash: "e", ActualHash: "e"}, nil
	case "id-2":
		return &inspector.Replay{ID: id, Status: "mismatch", ExpectedHash: "e", ActualHash: "f", Line: 7, Expected: "old line", Actual: "new " + hostile}, nil
	}
	return nil, fmt.Errorf("%w: no audit record has id %q", inspector.ErrNotFound, id)
}

// server serves the inspector over a fake; canWrite says whether its
// user may post.
func server(t *testing.T, canWrite bool) (*httptest.Server, *fake) {
	t.Helper()
	f := &fake{}
	h := inspector.New(f, inspector.WithAccess(func(*http.Request) (string, bool) { return "pk-test", canWrite }))
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts, f
}

// do sends a request with headers (pairs), not following redirects.
func do(t *testing.T, ts *httptest.Server, method, path string, form url.Values, hdr ...string) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(t.Context(), method, ts.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	c := ts.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(data)
}

var (
	inlineHandler = regexp.MustCompile(`(?i)<[^>]*\son[a-z]+\s*=`)
	rawHostile    = regexp.MustCompile(`(?i)<script`)
)

// checkPage checks the headers and the safety of every page.
func checkPage(t *testing.T, path string, resp *http.Response, body string) {
	t.Helper()
	if got := resp.Header.Get("Content-Security-Policy"); got != inspector.CSP {
		t.Errorf("%s: Content-Security-Policy %q", path, got)
	}
	if !strings.Contains(inspector.CSP, "default-src 'none'") || strings.Contains(inspector.CSP, "unsafe") {
		t.Errorf("the CSP is not strict: %s", inspector.CSP)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("%s: Content-Type %q", path, ct)
	}
	if rawHostile.MatchString(body) {
		t.Errorf("%s: a <script> reached the page unescaped:\n%s", path, body)
	}
	if m := inlineHandler.FindString(body); m != "" {
		t.Errorf("%s: an inline event handler: %s", path, m)
	}
}

func TestPages(t *testing.T) {
	ts, _ := server(t, true)
	for _, c := range []struct {
		path string
		want []string
	}{
		{"/ui/", []string{`2 of 2 prompts`, `href="/ui/prompts/team%2Fgreet"`, `production<span class="at">v1</span>`, `&lt;script&gt;`}},
		{"/ui/?q=GREET", []string{`1 of 2 prompts`, `team/greet`}},
		{"/ui/prompts/team%2Fgreet", []string{`<h1 id="title">team/greet</h1>`, `id="v2"`, `aaaaaaaaaaaa`, `id="label-form"`, `action="/ui/prompts/team%2Fgreet/labels"`, `No label of this prompt has been moved`}},
		{"/ui/prompts/team/greet", []string{`<h1 id="title">team/greet</h1>`}},
		{"/ui/prompts/team%2Fgreet?from=1&to=2", []string{`<span class="del">-Hello</span>`, `<span class="add">&#43;Hello &lt;script&gt;`}},
		{"/ui/prompts/x%2F" + url.PathEscape(hostile), []string{`&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;`}},
		{"/ui/prompts/team%2Fgreet/versions/2", []string{`version 2`, `90 tokens in 3 sections (o200k_base); budget limit 100, fitted 90`, `class="fill w100"`, `class="fill w50"`, `class="fill w0"`, `66.7%`, `<code>memories</code>: dropped (drop) (40 tokens saved)`, `<dd id="mode">act: a verb</dd>`, `wave`, `shout`, `memories/m3 (kind system)`, `Be kind. &lt;script&gt;`}},
		{"/ui/audit", []string{`id-1`, `id-2`, `class="replay-form"`}},
		{"/ui/audit?prompt=team%2Fgreet", []string{`id-1`}},
		{"/ui/audit?hash=" + strings.Repeat("2", 64), []string{`id-2`}},
	} {
		resp, body := do(t, ts, "GET", c.path, nil)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d\n%s", c.path, resp.StatusCode, body)
			continue
		}
		checkPage(t, c.path, resp, body)
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s: no %q in\n%s", c.path, w, body)
			}
		}
	}
	if _, body := do(t, ts, "GET", "/ui/audit?prompt=team%2Fgreet", nil); strings.Contains(body, "id-2") {
		t.Errorf("the search by prompt lists another prompt's record")
	}
	resp, css := do(t, ts, "GET", "/ui/static/style.css", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") || !strings.Contains(css, ".w37 { width: 37%; }") {
		t.Errorf("style.css: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

func TestErrors(t *testing.T) {
	ts, _ := server(t, true)
	for _, c := range []struct {
		method, path string
		code         int
	}{
		{"GET", "/ui/prompts/nope", 404},
		{"GET", "/ui/prompts/team%2Fgreet/versions/9", 404},
		{"GET", "/ui/prompts/team%2Fgreet/versions/0", 404},
		{"GET", "/ui/prompts/..%2Fetc", 404},
		{"GET", "/ui/prompts/a%2F%2Fb", 404},
		{"GET", "/ui/prompts/%00", 404},
		{"GET", "/ui/nowhere", 404},
		{"GET", "/ui/prompts/team%2Fgreet?from=1&to=7", 400},
		{"GET", "/ui/prompts/team%2Fgreet?from=x&to=1", 400},
		{"POST", "/ui/prompts/team%2Fgreet", 405},
		{"GET", "/ui/prompts/team%2Fgreet/labels", 405},
		{"GET", "/ui/audit/replay", 405},
		{"DELETE", "/ui/", 405},
	} {
		resp, body := do(t, ts, c.method, c.path, nil)
		if resp.StatusCode != c.code {
			t.Errorf("%s %s: %d, want %d\n%s", c.method, c.path, resp.StatusCode, c.code, body)
			continue
		}
		checkPage(t, c.path, resp, body)
	}
	_, body := do(t, ts, "GET", "/ui/prompts/"+url.PathEscape("nope"+hostile), nil)
	if rawHostile.MatchString(body) {
		t.Errorf("a 404 echoes markup: %s", body)
	}
}

func TestMoveLabel(t *testing.T) {
	ts, f := server(t, true)
	form := url.Values{"label": {"production"}, "version": {"2"}, "reason": {"ship " + hostile}}
	path := "/ui/prompts/team%2Fgreet/labels"

	// Posted from another site, or with another origin: refused.
	for _, hdr := range [][]string{
		{"Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "same-site"},
		{"Origin", "https://evil.example"},
	} {
		resp, body := do(t, ts, "POST", path, form, hdr...)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "another origin") {
			t.Errorf("POST with %v: %d\n%s", hdr, resp.StatusCode, body)
		}
	}
	if len(f.moves) != 0 {
		t.Fatalf("a refused POST moved a label: %v", f.moves)
	}

	// Bad forms.
	for _, bad := range []url.Values{{"label": {"production"}}, {"version": {"1"}}, {"label": {"x"}, "version": {"-1"}}} {
		if resp, body := do(t, ts, "POST", path, bad, "Sec-Fetch-Site", "same-origin"); resp.StatusCode != 400 {
			t.Errorf("POST %v: %d\n%s", bad, resp.StatusCode, body)
		}
	}
	if resp, body := do(t, ts, "POST", path, url.Values{"label": {"bad label"}, "version": {"1"}}, "Sec-Fetch-Site", "same-origin"); resp.StatusCode != 400 || !strings.Contains(body, "is not valid") {
		t.Errorf("POST a bad label: %d\n%s", resp.StatusCode, body)
	}
	if resp, body := do(t, ts, "POST", path, url.Values{"label": {"raced"}, "version": {"1"}}, "Sec-Fetch-Site", "same-origin"); resp.StatusCode != http.StatusConflict || !strings.Contains(body, "moved since this server read it") {
		t.Errorf("POST a label that moved meanwhile: %d\n%s", resp.StatusCode, body)
	}

	// Same origin: moved, then redirected to the prompt's page.
	resp, body := do(t, ts, "POST", path, form, "Sec-Fetch-Site", "same-origin", "Origin", ts.URL)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST: %d\n%s", resp.StatusCode, body)
	}
	loc := resp.Header.Get("Location")
	if loc != "/ui/prompts/team%2Fgreet?moved=production&on=2" {
		t.Errorf("redirected to %q", loc)
	}
	_, body = do(t, ts, "GET", loc, nil)
	for _, w := range []string{`Label production is now on version 2.`, `ship &lt;script&gt;`} {
		if !strings.Contains(body, w) {
			t.Errorf("after the move: no %q in\n%s", w, body)
		}
	}
	// A client that is not a browser sends neither header: allowed, as
	// no browser can be made to send such a request across sites.
	if resp, body := do(t, ts, "POST", path, form); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("POST without browser headers: %d\n%s", resp.StatusCode, body)
	}
}

func TestReadOnly(t *testing.T) {
	ts, f := server(t, false)
	_, body := do(t, ts, "GET", "/ui/prompts/team%2Fgreet", nil)
	if strings.Contains(body, `id="label-form"`) || !strings.Contains(body, "needs a member or admin key") {
		t.Errorf("a read-only user sees the label form:\n%s", body)
	}
	if _, body := do(t, ts, "GET", "/ui/audit", nil); strings.Contains(body, "replay-form") {
		t.Errorf("a read-only user sees replay buttons")
	}
	for _, p := range []string{"/ui/prompts/team%2Fgreet/labels", "/ui/audit/replay"} {
		resp, body := do(t, ts, "POST", p, url.Values{"label": {"x"}, "version": {"1"}, "id": {"id-1"}}, "Sec-Fetch-Site", "same-origin")
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s read-only: %d\n%s", p, resp.StatusCode, body)
		}
	}
	if len(f.moves) != 0 {
		t.Errorf("a read-only user moved a label")
	}
}

func TestReplay(t *testing.T) {
	ts, _ := server(t, true)
	resp, body := do(t, ts, "POST", "/ui/audit/replay", url.Values{"id": {"id-1"}}, "Sec-Fetch-Site", "same-origin")
	if resp.StatusCode != 200 || !strings.Contains(body, `class="replay match"`) || !strings.Contains(body, "match</strong>") {
		t.Errorf("replay id-1: %d\n%s", resp.StatusCode, body)
	}
	checkPage(t, "replay", resp, body)
	resp, body = do(t, ts, "POST", "/ui/audit/replay", url.Values{"id": {"id-2"}}, "Sec-Fetch-Site", "same-origin")
	for _, w := range []string{`class="replay mismatch"`, `First difference at line 7`, `-old line`, `+new &lt;script&gt;`} {
		if !strings.Contains(body, w) {
			t.Errorf("replay id-2: no %q in\n%s", w, body)
		}
	}
	checkPage(t, "replay", resp, body)
	if resp, _ := do(t, ts, "POST", "/ui/audit/replay", url.Values{"id": {"nope"}}, "Sec-Fetch-Site", "same-origin"); resp.StatusCode != 404 {
		t.Errorf("replay of an unknown record: %d", resp.StatusCode)
	}
	if resp, _ := do(t, ts, "POST", "/ui/audit/replay", url.Values{}, "Sec-Fetch-Site", "same-origin"); resp.StatusCode != 400 {
		t.Errorf("replay without an id: %d", resp.StatusCode)
	}
	if resp, _ := do(t, ts, "POST", "/ui/audit/replay", url.Values{"id": {"id-1"}}, "Sec-Fetch-Site", "cross-site"); resp.StatusCode != 403 {
		t.Errorf("cross-site replay: %d", resp.StatusCode)
	}
}

// TestRemoveLabel removes a label through its form: the page offers the
// prompt's labels but latest, a removal is recorded and said, and one
// the source refuses is a 400 with its reason.
func TestRemoveLabel(t *testing.T) {
	ts, f := server(t, true)
	_, body := do(t, ts, "GET", "/ui/prompts/team%2Fgreet", nil)
	if !strings.Contains(body, `id="remove-form"`) || !strings.Contains(body, `<option value="production">`) || strings.Contains(body, `<option value="latest">`) {
		t.Errorf("the remove form:\n%s", body)
	}
	path := "/ui/prompts/team%2Fgreet/labels/remove"
	if resp, body := do(t, ts, "POST", path, url.Values{"label": {"production"}}, "Sec-Fetch-Site", "cross-site"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site removal: %d\n%s", resp.StatusCode, body)
	}
	if resp, _ := do(t, ts, "POST", path, url.Values{}, "Sec-Fetch-Site", "same-origin"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a removal without a label: %d", resp.StatusCode)
	}
	if resp, body := do(t, ts, "POST", path, url.Values{"label": {"shared"}}, "Sec-Fetch-Site", "same-origin"); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "every prompt shares") {
		t.Errorf("removing a shared label: %d\n%s", resp.StatusCode, body)
	}
	resp, body := do(t, ts, "POST", path, url.Values{"label": {"production"}, "reason": {"withdrawn"}}, "Sec-Fetch-Site", "same-origin")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/prompts/team%2Fgreet?removed=production" {
		t.Fatalf("removing production: %d %s\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	_, body = do(t, ts, "GET", resp.Header.Get("Location"), nil)
	for _, w := range []string{"Label production was removed.", "removed</td>", "withdrawn"} {
		if !strings.Contains(body, w) {
			t.Errorf("after the removal: no %q in\n%s", w, body)
		}
	}
	if len(f.moves) != 1 || f.moves[0].To != 0 {
		t.Errorf("moves: %+v", f.moves)
	}
	ts2, _ := server(t, false)
	if _, body := do(t, ts2, "GET", "/ui/prompts/team%2Fgreet", nil); strings.Contains(body, "remove-form") {
		t.Error("a read-only user sees the remove form")
	}
}

// TestPaging pages through long lists: the prompts, the audit records
// and a prompt's label history, 50 rows a page, with links that keep the
// search.
func TestPaging(t *testing.T) {
	ts, f := server(t, true)
	f.extra = 120
	for i := range 120 {
		f.moves = append(f.moves, inspector.LabelMove{Label: fmt.Sprintf("l%03d", i), To: 1, At: t0})
	}
	_, body := do(t, ts, "GET", "/ui/", nil)
	if !strings.Contains(body, "1–50 of 122 · page 1") || !strings.Contains(body, `href="/ui/?page=2" rel="next"`) || strings.Contains(body, "zz/p048") || !strings.Contains(body, "zz/p047") {
		t.Errorf("the first page of prompts:\n%s", body)
	}
	_, body = do(t, ts, "GET", "/ui/?q=zz&page=3", nil)
	if !strings.Contains(body, "101–120 of 120 · page 3") || !strings.Contains(body, `href="/ui/?page=2&amp;q=zz" rel="prev"`) || strings.Contains(body, `rel="next"`) || !strings.Contains(body, "zz/p119") {
		t.Errorf("the last page of a filter:\n%s", body)
	}
	if _, body := do(t, ts, "GET", "/ui/?page=9", nil); !strings.Contains(body, "page 3") {
		t.Errorf("a page past the end shows the last")
	}
	if resp, _ := do(t, ts, "GET", "/ui/?page=0", nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("page 0: %d", resp.StatusCode)
	}
	_, body = do(t, ts, "GET", "/ui/audit?prompt=many&page=2", nil)
	if !strings.Contains(body, "51–100 · page 2") || !strings.Contains(body, `href="/ui/audit?page=3&amp;prompt=many" rel="next"`) || !strings.Contains(body, "id-x050") || strings.Contains(body, "id-x049") {
		t.Errorf("page 2 of the audit records:\n%s", body)
	}
	_, body = do(t, ts, "GET", "/ui/audit?prompt=many&page=3", nil)
	if !strings.Contains(body, "101–120 of 120 · page 3") || strings.Contains(body, `rel="next"`) {
		t.Errorf("the last page of the audit records:\n%s", body)
	}
	_, body = do(t, ts, "GET", "/ui/prompts/team%2Fgreet?hpage=2", nil)
	if !strings.Contains(body, `id="history-pager"`) || !strings.Contains(body, "51–100 of 120 · page 2") || !strings.Contains(body, "l050") || strings.Contains(body, "l049<") {
		t.Errorf("page 2 of the label history:\n%s", body)
	}
	if strings.Contains(body, `id="versions-pager"`) {
		t.Error("two versions are paged")
	}
}

// TestReplayAgainst replays a record against a label or a commit typed
// into its form, and shows what it was replayed against.
func TestReplayAgainst(t *testing.T) {
	ts, f := server(t, true)
	_, body := do(t, ts, "GET", "/ui/audit", nil)
	if !strings.Contains(body, `name="against"`) {
		t.Errorf("no against field:\n%s", body)
	}
	resp, body := do(t, ts, "POST", "/ui/audit/replay", url.Values{"id": {"id-1"}, "against": {" production "}}, "Sec-Fetch-Site", "same-origin")
	if resp.StatusCode != 200 || !strings.Contains(body, "Against <code>production</code>, commit <code>cccccccccccc</code>") {
		t.Errorf("replay against production: %d\n%s", resp.StatusCode, body)
	}
	_, body = do(t, ts, "POST", "/ui/audit/replay", url.Values{"id": {"id-1"}}, "Sec-Fetch-Site", "same-origin")
	if !strings.Contains(body, "Against the default branch's head") {
		t.Errorf("replay against the head:\n%s", body)
	}
	if resp, _ := do(t, ts, "POST", "/ui/audit/replay", url.Values{"id": {"id-1"}, "against": {"nowhere"}}, "Sec-Fetch-Site", "same-origin"); resp.StatusCode != 404 {
		t.Errorf("replay against a label that does not exist: %d", resp.StatusCode)
	}
	if strings.Join(f.replays, ",") != "production,,nowhere" {
		t.Errorf("replays against %q", f.replays)
	}
}
