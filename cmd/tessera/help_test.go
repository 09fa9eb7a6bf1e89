package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/tessera-dev/tessera/internal/golden"
	"github.com/tessera-dev/tessera/serve/gittest"
)

var update = flag.Bool("update", false, "rewrite the generated part of docs/CLI.md")

// commands returns every command of the tree, parents before children, in
// the order help lists them.
func commands(root *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{root}
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			out = append(out, commands(c)...)
		}
	}
	return out
}

// TestHelpHasExamplesAndExitCodes checks that every command's --help
// shows examples and the exit codes, and that no example is kept for a
// command that no longer exists.
func TestHelpHasExamplesAndExitCodes(t *testing.T) {
	root := newRootCmd(io.Discard, io.Discard)
	seen := map[string]bool{}
	for _, c := range commands(root) {
		path := c.CommandPath()
		seen[path] = true
		var out bytes.Buffer
		code := run(context.Background(), append(strings.Fields(path)[1:], "--help"), &out, &out)
		help := out.String()
		if code != 0 {
			t.Errorf("%s --help: exit %d", path, code)
		}
		if !strings.Contains(help, "\nExamples:\n  ") {
			t.Errorf("%s --help has no examples:\n%s", path, help)
		}
		for _, want := range []string{"Exit codes:\n", "  0  success", "  1  ", "  2  a usage error"} {
			if !strings.Contains(help, want) {
				t.Errorf("%s --help lacks %q:\n%s", path, want, help)
			}
		}
	}
	for path := range examples {
		if !seen[path] {
			t.Errorf("examples has %q, which is not a command", path)
		}
	}
}

// TestHelpExamplesRun runs every example line of every command's help
// that starts with "tessera ", from the repository root, as a user who
// copies it would, and expects it to succeed. Paths under /tmp are moved
// into a temporary directory.
//
// serve reads the first-parent history of the Git repository it runs
// in and builds the catalog at each commit that changed it: at this
// repository's root, a cost that grows with every commit (over a second
// of CPU under the race detector at 900). Its examples run at the root
// of a repository of one commit holding a copy of the examples, as in a
// shallow clone, where the same command reads the same catalog.
func TestHelpExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example")
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(repo)
	tmp := t.TempDir()
	oneCommit := ""
	root := newRootCmd(io.Discard, io.Discard)
	for _, c := range commands(root) {
		for line := range strings.Lines(c.Example) {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "tessera ") {
				continue
			}
			cmds, ok := plainCommands(line + "\n")
			if !ok || len(cmds) != 1 || cmds[0].discard {
				t.Fatalf("%s: example %q is not one plain tessera command (words and quoted strings)", c.CommandPath(), line)
			}
			args := append([]string{"tessera"}, cmds[0].args...)
			for i, a := range args {
				if rest, ok := strings.CutPrefix(a, "/tmp/"); ok {
					args[i] = filepath.Join(tmp, rest)
				}
			}
			if args[1] == "serve" {
				if oneCommit == "" {
					r := gittest.New(t)
					r.CopyDir("examples", "examples")
					r.Commit("the examples")
					oneCommit = r.Dir
				}
				t.Chdir(oneCommit)
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args[1:], &stdout, &stderr)
			t.Chdir(repo)
			if code != 0 {
				t.Errorf("%s: example %q: exit %d\n%s", c.CommandPath(), line, code, stderr.String())
			} else if stdout.Len() == 0 {
				t.Errorf("%s: example %q printed nothing", c.CommandPath(), line)
			}
		}
	}
}

// TestCLIDoc keeps the command reference in docs/CLI.md the one cobra
// generates from the command tree: every command's synopsis, examples,
// exit codes and flags. Run with -update to regenerate it.
func TestCLIDoc(t *testing.T) {
	root := newRootCmd(io.Discard, io.Discard)
	var b bytes.Buffer
	link := func(name string) string {
		// "tessera_agent_check.md" -> "#tessera-agent-check"
		return "#" + strings.ReplaceAll(strings.TrimSuffix(name, ".md"), "_", "-")
	}
	for _, c := range commands(root) {
		if err := doc.GenMarkdownCustom(c, &b, link); err != nil {
			t.Fatal(err)
		}
		b.WriteByte('\n')
	}
	got := bytes.TrimRight(b.Bytes(), "\n")
	got = append(got, '\n')
	golden.CompareSection(t, filepath.Join("..", "..", "docs", "CLI.md"), "command reference", got, *update)
}
