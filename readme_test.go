package tessera_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeGoSnippetsRun builds every Go snippet of README.md as written,
// as a program of its own module that requires this one, and runs it
// from the repository root, as a reader who copies it would.
func TestReadmeGoSnippetsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs with the go command")
	}
	if raceEnabled {
		t.Skip("runs the go command and programs built without the race detector, which has nothing to find here: run without -race (.ci/run does)")
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	snippets := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllSubmatch(readme, -1)
	if len(snippets) == 0 {
		t.Fatal("README.md has no Go snippets")
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mustRead(t, "go.mod"))
	for i, s := range snippets {
		dir := t.TempDir()
		mod := "module readme\n\ngo " + string(goVersion[1]) + "\n\nrequire github.com/tessera-dev/tessera v0.0.0\n\nreplace github.com/tessera-dev/tessera => " + filepath.ToSlash(root) + "\n"
		write(t, filepath.Join(dir, "go.mod"), []byte(mod))
		write(t, filepath.Join(dir, "go.sum"), sum)
		write(t, filepath.Join(dir, "main.go"), s[1])
		bin := filepath.Join(dir, "snippet")
		build := exec.Command("go", "build", "-mod=mod", "-o", bin, ".")
		build.Dir = dir
		build.Env = append(os.Environ(), "GOFLAGS=", "GOPROXY=off", "GOWORK=off")
		if out, err := build.CombinedOutput(); err != nil {
			t.Errorf("README.md Go snippet %d does not build: %v\n%s\n%s", i+1, err, out, s[1])
			continue
		}
		run := exec.Command(bin)
		run.Dir = root
		var stdout, stderr bytes.Buffer
		run.Stdout, run.Stderr = &stdout, &stderr
		if err := run.Run(); err != nil {
			t.Errorf("README.md Go snippet %d fails: %v\n%s", i+1, err, stderr.String())
		} else if strings.TrimSpace(stdout.String()) == "" {
			t.Errorf("README.md Go snippet %d prints nothing", i+1)
		}
	}
}

// TestReadmeInstall runs the README's install command into a temporary
// GOBIN and the installed command.
func TestReadmeInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	if raceEnabled {
		t.Skip("runs the go command and the command it installs, without the race detector, which has nothing to find here: run without -race (.ci/run does)")
	}
	readme := string(mustRead(t, "README.md"))
	m := regexp.MustCompile(`(?m)^go install (\S+)$`).FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no install command (a line \"go install ./cmd/tessera\")")
	}
	bin := t.TempDir()
	install := exec.Command("go", "install", m[1])
	install.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install %s: %v\n%s", m[1], err, out)
	}
	out, err := exec.Command(filepath.Join(bin, "tessera"), "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "tessera ") {
		t.Fatalf("installed tessera version: %v\n%s", err, out)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func write(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
