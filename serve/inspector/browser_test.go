package inspector_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/tessera-dev/tessera/serve"
	"github.com/tessera-dev/tessera/serve/gittest"
)

// chromiumPath is where Debian's chromium package puts the browser.
const chromiumPath = "/usr/bin/chromium"

// browser starts headless Chromium for a test, or skips it when the
// browser is not installed (and fails under CI=true, where .ci/run
// installs it).
func browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the browser tests need Chromium at %s: %v (.ci/run installs Debian's chromium package)", chromiumPath, err)
		}
		t.Skipf("no Chromium at %s: install Debian's chromium package (apt-get install chromium) to run the browser tests", chromiumPath)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", "new"),
		chromedp.NoSandbox, // containers and root have no user namespaces for it
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.WithoutCancel(t.Context()), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		// Close the browser and wait for it, so that no process outlives
		// the test.
		cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
		defer ccancel()
		if err := chromedp.Cancel(cctx); err != nil {
			t.Logf("closing Chromium: %v", err)
		}
		cancel()
		cancelAlloc()
	})
	return ctx
}

// artifacts is where screenshots go: $TESSERA_ARTIFACTS, or a temporary
// directory of the test.
func artifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TESSERA_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestBrowser drives the inspector in headless Chromium against a server
// over a Git repository of the example catalog in two commits: it loads
// each page and reads what it shows, diffs two versions, moves a label
// through the page's form (and reads it back through the API), replays
// an audit record, and saves a screenshot of each page.
func TestBrowser(t *testing.T) {
	ctx := browser(t)

	repo := gittest.New(t)
	repo.CopyDir("../../examples", "catalog")
	repo.Commit("add the catalog")
	const context1 = "catalog/seed/prompts/pgc-contexts/project_discovery.v1.txt"
	repo.Write(context1, repo.Read(context1)+"\nOne more line of context.\n")
	// A budget small enough that the support-ticket spec is trimmed to
	// fit it, and large enough for every other prompt.
	repo.Write("catalog/tessera.yaml", repo.Read("catalog/tessera.yaml")+"budget:\n  model: gpt-4o\n  context: 350\n")
	repo.Commit("pgc: one more line of context; a budget of 350 tokens")

	const pgc, secret = "pm_discovery.v1/pgc", "sk-member-browser-test"
	store := serve.NewMemStore()
	if err := store.PutKey(t.Context(), "pk-member", secret, serve.RoleMember); err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(t.Context(), serve.Config{Root: filepath.Join(repo.Dir, "catalog"), Store: store, PollInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)

	api := func(method, path string, body any, v any) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			data, _ := json.Marshal(body)
			rd = bytes.NewReader(data)
		}
		req, err := http.NewRequestWithContext(t.Context(), method, ts.URL+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth("pk-member", secret)
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, data)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatal(err)
		}
	}
	var rendered struct {
		AuditID string `json:"auditId"`
	}
	api("POST", "/api/tessera/v1/render", map[string]any{"name": pgc, "label": "latest"}, &rendered)

	// Every request of the tab carries the member's key, as a browser
	// does once its user has answered the Basic prompt.
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("pk-member:"+secret))
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Authorization": auth}}); err != nil {
		t.Fatal(err)
	}

	dir := artifacts(t)
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		p := filepath.Join(dir, "inspector-"+name+".png")
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", p)
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, time.Minute) // a guard against a hung browser, not a measure
		defer cancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// submit runs steps that post or get a form, and waits for the page
	// that answers.
	submit := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		resp, err := chromedp.RunResponse(sctx, steps...)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if resp.Status != http.StatusOK {
			t.Fatalf("%s: the answer is %d %s", what, resp.Status, resp.StatusText)
		}
	}
	text := func(sel string) string {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		s, err := chromedp.Run(sctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("the text of %s: %v", sel, err)
		}
		return s
	}
	expect := func(page, sel string, want ...string) {
		t.Helper()
		got := text(sel)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %s shows %q, without %q", page, sel, got, w)
			}
		}
	}
	page := ts.URL + "/ui/prompts/" + url.PathEscape(pgc)

	// The prompts, then filtered by name through the form.
	do("the prompts", chromedp.Navigate(ts.URL+"/ui/"), chromedp.WaitVisible(chromedp.CSS("#prompts")))
	expect("prompts", "#prompts", pgc, "layered/fix-tests", "typed/review/code-review/small-change")
	expect("prompts", "#user", "pk-member")
	shot("prompts")
	do("filling the filter", chromedp.SetValue(chromedp.CSS("#filter"), "pgc"))
	submit("filtering", chromedp.Click(chromedp.CSS("form.inline button")))
	expect("prompts ?q=pgc", "#prompts", pgc, "technical_arch.v1/pgc")
	if got := text("#prompts"); strings.Contains(got, "layered/fix-tests") {
		t.Errorf("the filter by pgc lists layered/fix-tests: %q", got)
	}

	// A prompt's versions, and the diff of its two.
	do("the prompt", chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("#versions")))
	expect("prompt", "#title", pgc)
	expect("prompt", "#versions", "add the catalog", "pgc: one more line of context", "latest")
	do("choosing versions", chromedp.SetValue(chromedp.CSS("#from"), "1"), chromedp.SetValue(chromedp.CSS("#to"), "2"))
	submit("diffing", chromedp.Click(chromedp.CSS("#diff-form button")))
	expect("prompt diff", "#diff", "+One more line of context.", "@@ ")
	shot("prompt-diff")

	// Version 2 section by section.
	do("the version", chromedp.Navigate(page+"/versions/2"), chromedp.WaitVisible(chromedp.CSS("#sections")))
	expect("version", "#title", pgc, "version 2")
	expect("version", "#total", "tokens in 1 sections (o200k_base)")
	expect("version", "#total", "budget limit 350")
	expect("version", "#cut", "The budget cut nothing.")
	expect("version", "#s-1", "One more line of context.")
	if w, err := chromedp.Run(ctx, chromedp.Evaluate[float64]("document.querySelector('#sections .fill').getBoundingClientRect().width / document.querySelector('#sections .bar').getBoundingClientRect().width")); err != nil || w < 0.95 {
		t.Errorf("the one section's bar fills %v of its track (%v), want all of it", w, err)
	}
	shot("version")

	// The support-ticket spec, trimmed by the budget: what was cut.
	do("the trimmed version", chromedp.Navigate(ts.URL+"/ui/prompts/specs%2Fsupport-ticket/versions/2"), chromedp.WaitVisible(chromedp.CSS("#cut")))
	expect("budget cut", "#total", "budget limit 350, fitted 350")
	expect("budget cut", "#cut", "identity: dropped (drop)", "conversation-state: dropped", "input/input.attachment-1: truncated by", "tokens saved")
	shot("budget-cut")

	// A layered prompt: its sections' bars in proportion, and its
	// selection report.
	do("the layered version", chromedp.Navigate(ts.URL+"/ui/prompts/layered%2Ffix-tests/versions/1"), chromedp.WaitVisible(chromedp.CSS("#selection")))
	expect("layered", "#selection", "Fix the failing invoice tests", "act")
	expect("layered", "#picks", "run_tests", "write_tests", "not picked")
	expect("layered", "#sections", "constitution", "untrusted", "task")
	ratio, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`Array.from(document.querySelectorAll('#sections tbody tr')).map(r => r.querySelector('.fill').getBoundingClientRect().width / Math.max(1, Number(r.querySelector('.tokens').textContent)))`))
	if err != nil || len(ratio) < 2 {
		t.Fatalf("reading the bars: %v %v", ratio, err)
	}
	for _, r := range ratio[1:] {
		if r < ratio[0]*0.8 || r > ratio[0]*1.2 {
			t.Errorf("the bars' widths are not in proportion to the tokens: pixels per token %v", ratio)
			break
		}
	}
	shot("layered")

	// Move production to version 1 through the form.
	do("filling the label form", chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("#label-form")),
		chromedp.SetValue(chromedp.CSS("#label-name"), "production"),
		chromedp.SetValue(chromedp.CSS("#label-version"), "1"),
		chromedp.SetValue(chromedp.CSS("#label-reason"), "rolled back from the inspector"))
	submit("moving a label", chromedp.Click(chromedp.CSS("#label-submit")))
	expect("label moved", "#notice", "Label production is now on version 1.")
	expect("label moved", "#v1", "production")
	expect("label moved", "#history", "production", "pk-member", "rolled back from the inspector")
	shot("label-moved")
	var got struct {
		Version int      `json:"version"`
		Labels  []string `json:"labels"`
	}
	api("GET", "/api/public/v2/prompts/"+url.PathEscape(pgc)+"?label=production", nil, &got)
	if got.Version != 1 {
		t.Errorf("after the move through the page, the API serves production as version %d, want 1", got.Version)
	}

	// The audit records, searched by prompt, and one replayed.
	do("the audit records", chromedp.Navigate(ts.URL+"/ui/audit?prompt="+url.QueryEscape(pgc)), chromedp.WaitVisible(chromedp.CSS("#records")))
	expect("audit", "#records", rendered.AuditID, pgc)
	submit("replaying", chromedp.Click(chromedp.CSS("form.replay-form button")))
	expect("replay", "#replay", "Replay of "+rendered.AuditID+": match")
	shot("audit-replay")

	// Replayed against production, now on version 1, which lacks the
	// line version 2 added: where it differs, at that commit.
	do("the audit records again", chromedp.Navigate(ts.URL+"/ui/audit?prompt="+url.QueryEscape(pgc)), chromedp.WaitVisible(chromedp.CSS("#records")),
		chromedp.SetValue(chromedp.CSS("form.replay-form input[name=against]"), "production"))
	submit("replaying against production", chromedp.Click(chromedp.CSS("form.replay-form button")))
	expect("replay against production", "#replay-against", "Against production, commit")
	expect("replay against production", "#replay", "First difference at line", "One more line of context.")
	shot("audit-replay-against")

	// Remove production through its form.
	do("filling the remove form", chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("#remove-form")),
		chromedp.SetValue(chromedp.CSS("#remove-label"), "production"),
		chromedp.SetValue(chromedp.CSS("#remove-reason"), "withdrawn from the inspector"))
	submit("removing a label", chromedp.Click(chromedp.CSS("#remove-submit")))
	expect("label removed", "#notice", "Label production was removed.")
	expect("label removed", "#history", "removed", "withdrawn from the inspector")
	if got := text("#v1"); strings.Contains(got, "production") {
		t.Errorf("version 1 still shows production after its removal: %q", got)
	}
	shot("label-removed")
	req, err := http.NewRequestWithContext(t.Context(), "GET", ts.URL+"/api/public/v2/prompts/"+url.PathEscape(pgc)+"?label=production", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("pk-member", secret)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("after the removal through the page, the API answers %d for production, want 404", resp.StatusCode)
	}
}
