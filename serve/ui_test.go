package serve_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/serve"
)

// TestUI checks the inspector as the server mounts it: behind the API's
// keys, over the registry, the label history and the audit store.
func TestUI(t *testing.T) {
	f := newFixture(t, serve.Config{})
	page := "/ui/prompts/" + url.PathEscape(pgc)
	same := []string{"Content-Type", "application/x-www-form-urlencoded", "Sec-Fetch-Site", "same-origin"}

	// Every page needs a key; a viewer reads them all.
	for _, p := range []string{"/ui/", page, page + "/versions/2", page + "?from=1&to=3", "/ui/prompts/layered%2Ffix-tests/versions/1", "/ui/audit", "/ui/static/style.css"} {
		if code, _, _ := f.do("", "GET", p, nil); code != http.StatusUnauthorized {
			t.Errorf("GET %s without a key: %d", p, code)
		}
		code, hdr, body := f.do(viewer, "GET", p, nil)
		if code != http.StatusOK {
			t.Errorf("GET %s as a viewer: %d\n%s", p, code, body)
		}
		if hdr.Get("Content-Security-Policy") == "" {
			t.Errorf("GET %s: no Content-Security-Policy", p)
		}
	}
	for _, c := range []struct{ path, want string }{
		{"/ui/", `href="/ui/prompts/pm_discovery.v1%2Fpgc"`},
		{page, `<td>pgc: another line</td>`},
		{page + "?from=1&to=3", `<span class="add">&#43;Another line.</span>`},
		{page + "/versions/2", `One more line of context.`},
		{"/ui/prompts/layered%2Ffix-tests/versions/1", `<dt>Task</dt><dd>Fix the failing invoice tests</dd>`},
		{"/ui/prompts/layered%2Ffix-tests/versions/1", `<td class="key"><a href="#s-1">constitution</a></td>`},
	} {
		if _, _, body := f.do(viewer, "GET", c.path, nil); !strings.Contains(string(body), c.want) {
			t.Errorf("GET %s: no %q in\n%s", c.path, c.want, body)
		}
	}
	for _, p := range []string{"/ui/prompts/nope%2Fnope", page + "/versions/9"} {
		if code, _, body := f.do(viewer, "GET", p, nil); code != http.StatusNotFound {
			t.Errorf("GET %s: %d\n%s", p, code, body)
		}
	}

	// A viewer may not move a label; a member may, from the page only.
	form := url.Values{"label": {"production"}, "version": {"2"}, "reason": {"through the inspector"}}.Encode()
	if code, _, body := f.do(viewer, "POST", page+"/labels", form, same...); code != http.StatusForbidden {
		t.Errorf("a viewer's move: %d\n%s", code, body)
	}
	if code, _, body := f.do(member, "POST", page+"/labels", form, "Content-Type", "application/x-www-form-urlencoded", "Sec-Fetch-Site", "cross-site"); code != http.StatusForbidden {
		t.Errorf("a cross-site move: %d\n%s", code, body)
	}
	if code, _, body := f.do(member, "POST", page+"/labels", url.Values{"label": {"Not A Label"}, "version": {"2"}}.Encode(), same...); code != http.StatusBadRequest {
		t.Errorf("a bad label: %d\n%s", code, body)
	}
	code, _, body := f.do(member, "POST", page+"/labels", form, same...) // the redirect is followed
	if code != http.StatusOK || !strings.Contains(string(body), "Label production is now on version 2.") || !strings.Contains(string(body), "through the inspector") {
		t.Fatalf("a member's move: %d\n%s", code, body)
	}
	var got struct {
		Version int      `json:"version"`
		Labels  []string `json:"labels"`
	}
	f.get("/api/public/v2/prompts/"+url.PathEscape(pgc)+"?label=production", &got)
	if got.Version != 2 {
		t.Errorf("the API has production on version %d", got.Version)
	}

	// A render is listed, found by prompt, hash and id, and replays.
	var rendered struct {
		Hash    string `json:"hash"`
		AuditID string `json:"auditId"`
	}
	code, _, body = f.do(member, "POST", "/api/tessera/v1/render", map[string]any{"name": pgc, "label": "production"})
	if code != 200 {
		t.Fatalf("render: %d %s", code, body)
	}
	if err := json.Unmarshal(body, &rendered); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"", "?prompt=" + url.QueryEscape(pgc), "?hash=" + rendered.Hash, "?id=" + rendered.AuditID} {
		if _, _, body := f.do(viewer, "GET", "/ui/audit"+q, nil); !strings.Contains(string(body), rendered.AuditID) {
			t.Errorf("GET /ui/audit%s: no record %s in\n%s", q, rendered.AuditID, body)
		}
	}
	if _, _, body := f.do(viewer, "GET", "/ui/audit?prompt=nope", nil); strings.Contains(string(body), rendered.AuditID) {
		t.Errorf("the search by another prompt lists the record")
	}
	replay := url.Values{"id": {rendered.AuditID}}.Encode()
	if code, _, _ := f.do(viewer, "POST", "/ui/audit/replay", replay, same...); code != http.StatusForbidden {
		t.Errorf("a viewer's replay: %d", code)
	}
	// Replayed against the head (version 3), the record of version 2
	// differs where pgc's context changed.
	code, _, body = f.do(member, "POST", "/ui/audit/replay", replay, same...)
	for _, w := range []string{`class="replay mismatch"`, `First difference at line 18:`, `<span class="del">-One more line of context.</span>`, `<span class="add">+Another line.</span>`} {
		if code != 200 || !strings.Contains(string(body), w) {
			t.Errorf("replay: %d: no %q in\n%s", code, w, body)
		}
	}
	code, _, body = f.do(member, "POST", "/api/tessera/v1/render", map[string]any{"name": pgc, "label": "latest"})
	if code != 200 {
		t.Fatalf("render: %d %s", code, body)
	}
	if err := json.Unmarshal(body, &rendered); err != nil {
		t.Fatal(err)
	}
	code, _, body = f.do(member, "POST", "/ui/audit/replay", url.Values{"id": {rendered.AuditID}}.Encode(), same...)
	if code != 200 || !strings.Contains(string(body), `class="replay match"`) {
		t.Errorf("replay of the head's render: %d\n%s", code, body)
	}
	if code, _, body := f.do(member, "POST", "/ui/audit/replay", url.Values{"id": {"no-such-record"}}.Encode(), same...); code != http.StatusNotFound {
		t.Errorf("replay of an unknown record: %d\n%s", code, body)
	}
}

// TestUIProtectedLabel checks that the inspector's form keeps the API's
// rule: a protected label moves with an admin key only.
func TestUIProtectedLabel(t *testing.T) {
	f := newFixture(t, serve.Config{ProtectedLabels: []string{"production"}})
	path := "/ui/prompts/" + url.PathEscape(pgc) + "/labels"
	form := url.Values{"label": {"production"}, "version": {"1"}}.Encode()
	same := []string{"Content-Type", "application/x-www-form-urlencoded", "Sec-Fetch-Site", "same-origin"}
	if code, _, body := f.do(member, "POST", path, form, same...); code != http.StatusForbidden || !strings.Contains(string(body), "is protected") {
		t.Errorf("a member's move of a protected label: %d\n%s", code, body)
	}
	if code, _, body := f.do(admin, "POST", path, form, same...); code != http.StatusOK || !strings.Contains(string(body), "Label production is now on version 1.") {
		t.Errorf("an admin's move of a protected label: %d\n%s", code, body)
	}
}
