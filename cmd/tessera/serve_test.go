package main

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

// TestServeBinary runs the tessera binary's serve on a free loopback port
// over a Git repository holding the example catalog, fetches a prompt as
// a Langfuse client does, and stops it with SIGTERM.
func TestServeBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	tessera, err := exec.LookPath("tessera") // the test binary, as TestMain installs it
	if err != nil {
		t.Skip("no tessera on PATH")
	}
	repo := gittest.New(t)
	repo.CopyDir(filepath.Join("..", "..", "examples"), "catalog")
	repo.Commit("add the catalog")

	cmd := exec.CommandContext(t.Context(), tessera, "serve", "--root", filepath.Join(repo.Dir, "catalog"), "--poll", "0")
	cmd.Env = append(os.Environ(), "TESSERA_ADDR=127.0.0.1:0", "TESSERA_PUBLIC_KEY=pk-test", "TESSERA_SECRET_KEY=sk-test", "GORACE=atexit_sleep_ms=0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	addr := ""
	re := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)
	var log strings.Builder
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
		rest <- string(b)
	}()

	client := &http.Client{Timeout: 30 * time.Second}
	req, _ := http.NewRequestWithContext(t.Context(), "GET", addr+"/api/public/v2/prompts/pm_discovery.v1%2Fpgc?label=latest", nil)
	req.SetBasicAuth("pk-test", "sk-test")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Name, Type, Hash string
		Version          int
		Labels           []string
	}
	err = json.NewDecoder(resp.Body).Decode(&p)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("fetch: %d %v", resp.StatusCode, err)
	}
	if p.Name != "pm_discovery.v1/pgc" || p.Version != 1 || p.Type != "text" || len(p.Hash) != 64 {
		t.Errorf("fetched %+v", p)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve after SIGTERM: %v\n%s", err, <-rest)
	} else if out := <-rest; !strings.Contains(out, "stopped") {
		t.Errorf("serve did not say it stopped:\n%s", out)
	}
}
