package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tessera-dev/tessera/serve/gittest"
)

// startServe runs the tessera binary's serve with args on a free loopback
// port and returns its base URL and a function that stops it with SIGTERM
// and returns what it printed on standard error.
func startServe(t *testing.T, tessera string, env []string, args ...string) (string, func() string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), tessera, append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Env = append(cmd.Env, "TESSERA_ADDR=127.0.0.1:0", "TESSERA_PUBLIC_KEY=pk-test", "TESSERA_SECRET_KEY=sk-test-0123456789abcdef", "GORACE=atexit_sleep_ms=0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	re := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)
	var log strings.Builder
	addr := ""
	for lines.Scan() {
		log.WriteString(lines.Text() + "\n")
		if m := re.FindStringSubmatch(lines.Text()); m != nil {
			addr = m[1]
			break
		}
	}
	if addr == "" {
		cmd.Wait()
		t.Fatalf("serve did not say where it listens:\n%s", log.String())
	}
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(stderr)
		rest <- log.String() + string(b)
	}()
	return addr, func() string {
		t.Helper()
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		out := <-rest
		if err != nil {
			t.Errorf("serve after SIGTERM: %v\n%s", err, out)
		} else if !strings.Contains(out, "stopped") {
			t.Errorf("serve did not say it stopped:\n%s", out)
		}
		return out
	}
}

// catalogRepo returns a repository of its own holding the examples
// under catalog/ in one commit, "add the catalog", and that commit: a
// copy of one made once for the package's tests (see gittest.Once).
func catalogRepo(t *testing.T) (*gittest.Repo, plumbing.Hash) {
	t.Helper()
	return sharedCatalog(t)
}

var sharedCatalog = gittest.Once(func(tb testing.TB) (*gittest.Repo, plumbing.Hash) {
	tb.Helper()
	repo := gittest.New(tb)
	repo.CopyDir(filepath.Join("..", "..", "examples"), "catalog")
	return repo, repo.Commit("add the catalog")
})

// call sends a request with the test's admin key and decodes a 200
// answer into v.
func call(t *testing.T, method, url, body string, v any) {
	t.Helper()
	client := &http.Client{Timeout: 30 * time.Second}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequestWithContext(t.Context(), method, url, rd)
	req.SetBasicAuth("pk-test", "sk-test-0123456789abcdef")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, data)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s %s: %v\n%s", method, url, err, data)
	}
}

// TestServeBinary runs the tessera binary's serve over a Git repository
// holding the example catalog, fetches a prompt as a Langfuse client
// does, moves a label, and stops it with SIGTERM; started again on the
// same database (the default SQLite file), it still has the move.
func TestServeBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	tessera, err := exec.LookPath("tessera") // the test binary, as TestMain installs it
	if err != nil {
		t.Skip("no tessera on PATH")
	}
	repo, _ := catalogRepo(t)
	root := filepath.Join(repo.Dir, "catalog")
	const pgc = "/api/public/v2/prompts/pm_discovery.v1%2Fpgc"

	// An OTLP collector on loopback that counts the batches of spans.
	var batches atomic.Int64
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/traces" {
			batches.Add(1)
		}
		io.Copy(io.Discard, r.Body)
	}))
	defer collector.Close()
	addr, stop := startServe(t, tessera, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + collector.URL}, "--root", root, "--poll", "0")
	var p struct {
		Name, Type, Hash string
		Version          int
		Labels           []string
	}
	call(t, "GET", addr+pgc+"?label=latest", "", &p)
	if p.Name != "pm_discovery.v1/pgc" || p.Version != 1 || p.Type != "text" || len(p.Hash) != 64 {
		t.Errorf("fetched %+v", p)
	}
	call(t, "PATCH", addr+pgc+"/versions/1", `{"newLabels":["production"],"reason":"ship it"}`, &p)
	stop()
	if batches.Load() == 0 {
		t.Error("no spans reached the OTLP collector")
	}
	if _, err := os.Stat(filepath.Join(root, ".tessera", "serve.db")); err != nil {
		t.Errorf("no database at the default place: %v", err)
	}

	addr, stop = startServe(t, tessera, nil, "--root", root, "--poll", "0")
	defer stop()
	var h struct {
		Data []struct{ Label, Actor, Reason string }
	}
	call(t, "GET", addr+"/api/tessera/v1/prompts/pm_discovery.v1%2Fpgc/labels/history", "", &h)
	if len(h.Data) != 1 || h.Data[0].Label != "production" || h.Data[0].Actor != "pk-test" || h.Data[0].Reason != "ship it" {
		t.Errorf("history after a restart: %+v", h)
	}
	call(t, "GET", addr+pgc, "", &p)
	if p.Version != 1 || strings.Join(p.Labels, ",") != "latest,production" {
		t.Errorf("production after a restart: %+v", p)
	}
}

// TestServeGracefulStop sends SIGTERM while a request waits for its body:
// the server stops listening, answers that request once the body arrives,
// and exits 0.
func TestServeGracefulStop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	tessera, err := exec.LookPath("tessera")
	if err != nil {
		t.Skip("no tessera on PATH")
	}
	repo, _ := catalogRepo(t)
	cmd := exec.CommandContext(t.Context(), tessera, "serve", "--root", filepath.Join(repo.Dir, "catalog"), "--poll", "0", "--db", "memory", "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "TESSERA_PUBLIC_KEY=pk-test", "TESSERA_SECRET_KEY=sk-test-0123456789abcdef", "GORACE=atexit_sleep_ms=0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	waitLine := func(sub string) string {
		t.Helper()
		for l := range lines {
			if strings.Contains(l, sub) {
				return l
			}
		}
		t.Fatalf("serve never printed %q", sub)
		return ""
	}
	host := strings.TrimPrefix(regexp.MustCompile(`http://\S+`).FindString(waitLine("listening on")), "http://")

	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rd := bufio.NewReader(conn)
	// A first request on the connection, answered: the server is reading
	// from it.
	fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: tessera\r\n\r\n")
	if resp, err := http.ReadResponse(rd, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	} else {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	body := `{"name":"pm_discovery.v1/pgc","label":"latest"}`
	auth := base64.StdEncoding.EncodeToString([]byte("pk-test:sk-test-0123456789abcdef"))
	// With Expect: 100-continue the server says "100 Continue" when the
	// handler starts reading the body: the request is then in flight.
	fmt.Fprintf(conn, "POST /api/tessera/v1/render HTTP/1.1\r\nHost: tessera\r\nAuthorization: Basic %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", auth, len(body))
	if resp, err := http.ReadResponse(rd, nil); err != nil || resp.StatusCode != http.StatusContinue {
		t.Fatalf("no 100 Continue: %v %v", resp, err)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitLine("stopping")
	if _, err := fmt.Fprint(conn, body); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatalf("the request in flight was not answered: %v", err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(out), `"auditId"`) {
		t.Errorf("the request in flight: %d %s", resp.StatusCode, out)
	}
	waitLine("stopped")
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve after SIGTERM: %v", err)
	}
}
