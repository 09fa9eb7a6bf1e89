package langfuse

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/serve/gittest"
)

// The keys the server starts with and the client uses.
const (
	publicKey = "pk-lf-compat"
	secretKey = "sk-lf-compat-0123456789abcdef"
)

// prompt is the prompt the client fetches: a workflow node whose text
// holds a {{customer}} variable for the client's compile.
const prompt = "pm_discovery.v1/review"

// result is what check.mjs prints.
type result struct {
	Production, Latest, Version1 struct {
		Name       string   `json:"name"`
		Version    int      `json:"version"`
		Type       string   `json:"type"`
		Labels     []string `json:"labels"`
		IsFallback bool     `json:"isFallback"`
		Length     int      `json:"length"`
	}
	Compiled struct {
		HasValue       bool `json:"hasValue"`
		HasPlaceholder bool `json:"hasPlaceholder"`
	}
	Cache struct {
		First         int `json:"first"`
		WithinTTL     int `json:"withinTTL"`
		StaleAfterTTL int `json:"staleAfterTTL"`
		AfterRefresh  int `json:"afterRefresh"`
	}
	Removed struct {
		Served             int `json:"served"`
		ServedAfterRefresh int `json:"servedAfterRefresh"`
	}
	RemovedUncached string `json:"removedUncached"`
	Fallback        struct {
		IsFallback bool   `json:"isFallback"`
		Text       string `json:"text"`
	}
	Chat *struct {
		Type  string   `json:"type"`
		Roles []string `json:"roles"`
	}
}

// TestLangfuseClient runs Langfuse's own JavaScript client against
// tessera serve: get by the default label, by label and by version,
// compile, the cache's TTL and stale-while-revalidate, a removed label
// and a fallback, and a chat prompt.
func TestLangfuseClient(t *testing.T) {
	if raceEnabled {
		t.Skip("builds tessera without the race detector and checks what Node's client gets from it: the detector has nothing to find here: run without -race (.ci/run does)")
	}
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join("node_modules", "@langfuse", "client", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the Langfuse client is not installed (%v): .ci/run installs it with npm ci in compat/langfuse", err)
		}
		t.Skipf("the Langfuse client is not installed (%v): run npm ci in compat/langfuse", err)
	}
	tessera := filepath.Join(t.TempDir(), "tessera")
	build := exec.Command("go", "build", "-o", tessera, "github.com/tessera-dev/tessera/cmd/tessera")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	// Two versions of the prompt: the second changes its context.
	repo := gittest.New(t)
	repo.CopyDir(filepath.Join("..", "..", "examples"), "")
	ctxFile := "seed/prompts/pgc-contexts/project_discovery.v1.txt"
	repo.Write(ctxFile, repo.Read(ctxFile)+"\nCustomer: {{customer}}\n")
	repo.Commit("a customer variable")
	repo.Write(ctxFile, repo.Read(ctxFile)+"The brief is due on Friday.\n")
	repo.Commit("a due date")

	base, stop := start(t, tessera, repo.Dir)
	defer stop()
	call(t, "PATCH", base+"/api/public/v2/prompts/"+strings.ReplaceAll(prompt, "/", "%2F")+"/versions/1", `{"newLabels":["production","staging"]}`, nil)
	var list struct {
		Data []struct {
			Name string `json:"name"`
		} `json:"data"`
	}
	call(t, "GET", base+"/api/public/v2/prompts?limit=100", "", &list)
	chat := ""
	for _, p := range list.Data {
		var one struct {
			Type string `json:"type"`
		}
		call(t, "GET", base+"/api/public/v2/prompts/"+strings.ReplaceAll(p.Name, "/", "%2F")+"?label=latest", "", &one)
		if one.Type == "chat" {
			chat = p.Name
			break
		}
	}

	cmd := exec.Command(node, "check.mjs")
	cmd.Env = append(os.Environ(), "LANGFUSE_BASE_URL="+base, "LANGFUSE_PUBLIC_KEY="+publicKey, "LANGFUSE_SECRET_KEY="+secretKey, "PROMPT="+prompt, "CHAT="+chat)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("check.mjs: %v\n%s", err, stderr.String())
	}
	var r result
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("check.mjs printed %q: %v\n%s", out, err, stderr.String())
	}
	t.Logf("the client saw: %s", out)

	if r.Production.Name != prompt || r.Production.Version != 1 || r.Production.Type != "text" || r.Production.IsFallback {
		t.Errorf("get(name): %+v, want version 1 of %s, text, not a fallback", r.Production, prompt)
	}
	if r.Latest.Version != 2 || r.Version1.Version != 1 {
		t.Errorf("get with label latest: version %d, want 2; with version 1: %d", r.Latest.Version, r.Version1.Version)
	}
	if !r.Compiled.HasValue || r.Compiled.HasPlaceholder {
		t.Errorf("compile({customer}): %+v, want the value in and no {{customer}} left", r.Compiled)
	}
	// Langfuse's documented cache: the cached copy within the TTL, the
	// stale one at once past it, the new one after the refresh.
	if c := r.Cache; c.First != 1 || c.WithinTTL != 1 || c.StaleAfterTTL != 1 || c.AfterRefresh != 2 {
		t.Errorf("cache: %+v, want 1, 1, 1, then 2", c)
	}
	// Langfuse's client keeps serving a cached prompt whose label was
	// removed (the refresh fails and the stale copy stays: langfuse#10138);
	// the server answers 404, so an uncached fetch fails or falls back.
	if r.Removed.Served != 2 || r.Removed.ServedAfterRefresh != 2 {
		t.Errorf("after the label's removal the client served %+v; Langfuse's client keeps the stale copy, version 2", r.Removed)
	}
	if r.RemovedUncached != "error" || !r.Fallback.IsFallback || r.Fallback.Text != "fallback x" {
		t.Errorf("a removed label, uncached: %q and fallback %+v, want an error and the compiled fallback", r.RemovedUncached, r.Fallback)
	}
	if chat == "" {
		t.Error("the catalog serves no chat prompt to try the client's chat type on")
	} else if r.Chat == nil || r.Chat.Type != "chat" || len(r.Chat.Roles) == 0 || r.Chat.Roles[0] != "system" {
		t.Errorf("chat prompt %s: %+v, want type chat starting with a system message", chat, r.Chat)
	}
}

// start runs tessera serve on a free loopback port and returns its base
// URL and a function that stops it with SIGTERM.
func start(t *testing.T, tessera, root string) (string, func()) {
	t.Helper()
	cmd := exec.Command(tessera, "serve", "--root", root, "--db", "memory")
	cmd.Env = append(os.Environ(), "TESSERA_ADDR=127.0.0.1:0", "TESSERA_PUBLIC_KEY="+publicKey, "TESSERA_SECRET_KEY="+secretKey)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)
	lines := bufio.NewScanner(stderr)
	var log strings.Builder
	for lines.Scan() {
		log.WriteString(lines.Text() + "\n")
		if m := re.FindStringSubmatch(lines.Text()); m != nil {
			go io.Copy(io.Discard, stderr)
			return m[1], func() {
				cmd.Process.Signal(syscall.SIGTERM)
				cmd.Wait()
			}
		}
	}
	cmd.Wait()
	t.Fatalf("tessera serve did not say where it listens:\n%s", log.String())
	return "", nil
}

// call sends a request with the admin key and decodes a 2xx answer into
// v.
func call(t *testing.T, method, url, body string, v any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(publicKey, secretKey)
	req.Header.Set("Content-Type", "application/json")
	res, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, url, res.StatusCode, data)
	}
	if v != nil {
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%s %s: %v in %s", method, url, err, data)
		}
	}
}
