package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// build writes a build whose prompts all say text.
func build(t testing.TB, out, text string, crash func(string) error) error {
	t.Helper()
	m := &Manifest{TesseraVersion: "test"}
	var texts []string
	for i := range 20 {
		m.Prompts = append(m.Prompts, ManifestEntry{Unit: []Member{{Key: "workflow", Value: "w"}, {Key: "node", Value: strconv.Itoa(i)}}, Path: fmt.Sprintf("w/%d.txt", i), Bytes: len(text)})
		texts = append(texts, text)
	}
	_, err := writeBuild(context.Background(), out, texts, m, crash)
	return err
}

// complete reports which build out holds, failing the test unless it is
// one whole build.
func complete(t testing.TB, out string) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(out, ManifestFile)); err != nil {
		t.Fatalf("no complete build at %s: %v", out, err)
	}
	first := ""
	for i := range 20 {
		data, err := os.ReadFile(filepath.Join(out, "w", strconv.Itoa(i)+".txt"))
		if err != nil {
			t.Fatalf("build at %s is missing a prompt: %v", out, err)
		}
		if i == 0 {
			first = string(data)
		} else if string(data) != first {
			t.Fatalf("build at %s mixes two builds: %q and %q", out, first, data)
		}
	}
	return first
}

// asKilled renames this process's temporary directories beside out as if
// a process that is no longer running had left them.
func asKilled(t *testing.T, out string) {
	t.Helper()
	parent, base := filepath.Dir(out), filepath.Base(out)
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		for _, kind := range []string{tmpNew, tmpOld} {
			pre := tempPrefix(base, kind)
			if rest, ok := strings.CutPrefix(e.Name(), pre); ok {
				dead := "." + base + kind + "999999999-" + rest
				if err := os.Rename(filepath.Join(parent, e.Name()), filepath.Join(parent, dead)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

var errKilled = errors.New("killed")

// Killed between the two renames of the fallback swap, a compile leaves
// no output, only the previous build moved aside; the next compile puts
// it back, so that even if that compile fails, the last complete build
// is there. (The swap used to leave both leftovers, and the next compile
// deleted both.)
func TestSwapCrashBetweenRenames(t *testing.T) {
	out := filepath.Join(t.TempDir(), "build", "prompts")
	if err := build(t, out, "A", nil); err != nil {
		t.Fatal(err)
	}
	err := build(t, out, "B", func(step string) error {
		switch step {
		case "exchange":
			return errNoExchange
		case "moved aside":
			asKilled(t, out)
			return errKilled
		}
		return nil
	})
	if !errors.Is(err, errKilled) {
		t.Fatalf("crash: %v", err)
	}
	if _, err := os.Lstat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the crash should leave no output: %v", err)
	}
	// The next compile fails part way (cancelled): the previous build is
	// back in place all the same.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := WriteBuild(ctx, out, []string{"C"}, &Manifest{Prompts: []ManifestEntry{{Path: "w/0.txt"}}}); err == nil {
		t.Fatal("cancelled compile succeeded")
	}
	if got := complete(t, out); got != "A" {
		t.Errorf("build after recovery = %q, want the last complete one, A", got)
	}
	if err := build(t, out, "C", nil); err != nil {
		t.Fatal(err)
	}
	if got := complete(t, out); got != "C" {
		t.Errorf("build = %q, want C", got)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
		t.Errorf("leftovers remain: %v", entries)
	}
}

// With an exchange, the output names a complete build at every step; a
// kill after the exchange leaves the previous build as a leftover, which
// the next compile removes.
func TestSwapExchange(t *testing.T) {
	out := filepath.Join(t.TempDir(), "prompts")
	if err := build(t, out, "A", nil); err != nil {
		t.Fatal(err)
	}
	steps := ""
	err := build(t, out, "B", func(step string) error {
		steps += step + ";"
		if step == "exchanged" {
			if got := complete(t, out); got != "B" {
				t.Errorf("after the exchange: %q", got)
			}
			asKilled(t, out)
			return errKilled
		}
		if got := complete(t, out); got != "A" {
			t.Errorf("before the exchange: %q", got)
		}
		return nil
	})
	if err := exchange(out, out); errors.Is(err, errNoExchange) {
		t.Skip("no exchange on this system")
	}
	if !errors.Is(err, errKilled) || steps != "exchange;exchanged;" {
		t.Fatalf("crash: %v after %s", err, steps)
	}
	if got := complete(t, out); got != "B" {
		t.Errorf("output = %q", got)
	}
	if err := build(t, out, "C", nil); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 || complete(t, out) != "C" {
		t.Errorf("after the next compile: %v", entries)
	}
}
