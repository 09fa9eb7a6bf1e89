package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
)

// TestDocShellBlocks runs every fenced shell block (```sh, ```bash,
// ```console) of README.md and docs/*.md, as a new user following the
// doc would, so a doc cannot drift from the command.
//
// The blocks of one doc run in order, each from the top of one temporary
// copy of the repository's examples (and of the layered eval data, when
// one of the doc's blocks names it; see docCopies) that they share, as a
// reader's clone is; docs run in parallel.
// The tessera on PATH is the test binary TestMain installs. "go run ./cmd/tessera"
// runs that tessera too; any other go command fails the block. Paths
// under /tmp/ are moved into a temporary directory of the doc's own.
//
//   - An sh or bash block runs as one bash script with set -e and
//     pipefail: it must succeed. When a ```text block follows it (blank
//     lines between at most), that block is what it prints, standard
//     output and error together.
//   - A console block is a transcript: "$ " starts a command (a line
//     ending in \ continues it), and the lines up to the next command are
//     what it prints, standard output and error together. A command that
//     shows no output must succeed.
//
// A block whose every command is a plain tessera command (words and
// quoted strings, no expansion, pipe or redirection but a final
// "> /dev/null"; see plainCommands), "cd DIR" or a line that changes
// nothing of the shell's own (see selfContained) runs a command at a
// time instead (see shellBlock.steps): tessera's in the test process,
// as the scripts' commands do, and each other line in bash alone, in
// the directory the cds before it left: the same environment and empty
// standard input, and the same checks of what it prints and how it
// exits.
//
// In shown output, "…" stands for any text within a line and a line of
// just "..." for any number of lines; trailing spaces are ignored.
//
// A block that cannot run here is marked by the line right before it:
//
//	<!-- doc-test: skip: needs network -->
//
// and is reported as skipped, with its reason (go test -v shows each, and
// the counts). A "$ " transcript in a block without a language is an
// error: it would not run.
func TestDocShellBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every shell block of the docs")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash")
	}
	// Absolute: the blocks' commands that run in the test process take
	// its working directory in turns (see processState).
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Parallel() // beside TestHostileInputs: each block waits on its processes
	files, err := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(repo, "README.md")}, files...)
	var ran, skipped atomic.Int64
	t.Cleanup(func() { t.Logf("doc shell blocks: %d run, %d skipped", ran.Load(), skipped.Load()) })
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.ToSlash(strings.TrimPrefix(file, repo+string(filepath.Separator)))
		blocks, err := shellBlocks(name, string(data))
		if err != nil {
			t.Fatal(err)
		}
		if len(blocks) == 0 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			work, tmp := filepath.Join(t.TempDir(), "work"), t.TempDir()
			for _, dir := range docCopies(blocks) {
				if err := os.CopyFS(filepath.Join(work, dir), os.DirFS(filepath.Join(repo, dir))); err != nil {
					t.Fatal(err)
				}
			}
			for _, b := range blocks {
				t.Run(fmt.Sprint(b.line), func(t *testing.T) {
					if b.skip != "" {
						skipped.Add(1)
						t.Skipf("%s:%d: %s", name, b.line, b.skip)
					}
					ran.Add(1)
					b.run(t, work, tmp)
				})
			}
		})
	}
}

// docCopies returns the directories of the repository a doc's blocks
// get a copy of: none when every block is skipped; else the examples,
// and the layered eval data when a block names it. Each file copied is
// an inode made, the bulk of a doc's setup.
func docCopies(blocks []shellBlock) []string {
	var dirs []string
	for _, b := range blocks {
		if b.skip != "" {
			continue
		}
		if dirs == nil {
			dirs = []string{"examples"}
		}
		if len(dirs) == 1 && strings.Contains(b.text, "preset/layered/testdata/eval") {
			dirs = append(dirs, "preset/layered/testdata/eval")
		}
	}
	return dirs
}

// TestDocShellConventions checks the conventions TestDocShellBlocks
// reads: skip marks, output blocks, transcripts and the ellipses of
// shown output.
func TestDocShellConventions(t *testing.T) {
	doc := "<!-- doc-test: skip: needs network -->\n```sh\ncurl x\n```\n\n```bash\necho hi\n```\n\n```text\nhi\n```\n" +
		"````console\n$ echo a \\\n  b\na b\n$ true\n````\n"
	blocks, err := shellBlocks("d.md", doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 || blocks[0].skip != "needs network" || blocks[1].output == nil || *blocks[1].output != "hi" || blocks[2].lang != "console" {
		t.Fatalf("blocks: %+v", blocks)
	}
	eval := shellBlock{text: "cat preset/layered/testdata/eval/catalog.yaml"}
	for _, c := range []struct {
		blocks []shellBlock
		want   string
	}{
		{blocks[:1], ""},
		{blocks, "examples"},
		{append(blocks[:1:1], eval), "examples preset/layered/testdata/eval"},
		{[]shellBlock{{skip: "x", text: eval.text}, blocks[1]}, "examples"},
	} {
		if got := strings.Join(docCopies(c.blocks), " "); got != c.want {
			t.Errorf("docCopies(%+v) = %q, want %q", c.blocks, got, c.want)
		}
	}
	cmds, wants := transcript(blocks[2].text)
	if len(cmds) != 2 || cmds[0] != "echo a \\\n  b" || wants[0] != "a b\n" || wants[1] != "" {
		t.Errorf("transcript: %q %q", cmds, wants)
	}
	for _, bad := range []string{"<!-- doc-test: skip: -->\n```sh\nx\n```\n", "<!-- doc-test: run -->\n```sh\nx\n```\n", "```\n$ tessera version\n```\n", "```sh\nx\n"} {
		if _, err := shellBlocks("d.md", bad); err == nil {
			t.Errorf("shellBlocks(%q): no error", bad)
		}
	}
	for _, c := range []struct {
		want, got string
		ok        bool
	}{
		{"a\nb\n", "a\nb", true},
		{"a  \n", "a\n\n", true},
		{"head sha256:… (line 1)", "head sha256:5c1f (line 1)", true},
		{"x…y…z", "xAyBz", true},
		{"x…y", "xy!", false},
		{"a\n...\nz", "a\nb\nc\nz", true},
		{"a\n...", "a", true},
		{"a\nb", "a\nc", false},
		{"", "something", false},
	} {
		if got := outputMatches(c.want, c.got); got != c.ok {
			t.Errorf("outputMatches(%q, %q) = %v, want %v", c.want, c.got, got, c.ok)
		}
	}
}

// A shellBlock is one fenced shell block of a doc.
type shellBlock struct {
	file, lang, text string
	line, end        int    // the lines of the opening and closing fences
	skip             string // the reason given by a skip mark
	output           *string
}

var (
	fenceRE = regexp.MustCompile("^(```+|~~~+)\\s*(\\S*)")
	markRE  = regexp.MustCompile(`^<!--\s*doc-test:\s*(.*?)\s*-->$`)
)

// shellBlocks returns the shell blocks of a markdown file, with their
// skip marks and the ```text blocks that show their output.
func shellBlocks(name, text string) ([]shellBlock, error) {
	lines := strings.Split(text, "\n")
	var out []shellBlock
	for i := 0; i < len(lines); i++ {
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil || m[1][0] == '`' && strings.Contains(lines[i][len(m[1]):], "`") {
			continue // not a fence: a backtick fence's info string has no backtick
		}
		start, lang := i, m[2]
		end := closeFence(lines, i, m[1])
		if end < 0 {
			return nil, fmt.Errorf("%s:%d: the fenced block is never closed", name, start+1)
		}
		body := strings.Join(lines[start+1:end], "\n")
		i = end
		mark := ""
		if mm := markRE.FindStringSubmatch(lines[max(start-1, 0)]); mm != nil {
			mark = mm[1]
		}
		switch lang {
		case "sh", "bash", "console":
		case "text":
			if len(out) > 0 && out[len(out)-1].lang != "console" && out[len(out)-1].output == nil && blankBetween(lines, out[len(out)-1].end, start) {
				out[len(out)-1].output = &body
			}
			continue
		case "":
			for _, l := range lines[start+1 : end] {
				if strings.HasPrefix(l, "$ ") {
					return nil, fmt.Errorf("%s:%d: a transcript in a block without a language: label it ```console, so it runs, or ```text", name, start+1)
				}
			}
			continue
		default:
			continue
		}
		b := shellBlock{file: name, lang: lang, text: body, line: start + 1, end: end}
		if mark != "" {
			reason, ok := strings.CutPrefix(mark, "skip:")
			if !ok || strings.TrimSpace(reason) == "" {
				return nil, fmt.Errorf("%s:%d: doc-test mark %q: write <!-- doc-test: skip: REASON -->", name, start, mark)
			}
			b.skip = strings.TrimSpace(reason)
		}
		out = append(out, b)
	}
	return out, nil
}

// closeFence returns the line index closing the fence opened at lines[i].
func closeFence(lines []string, i int, fence string) int {
	for j := i + 1; j < len(lines); j++ {
		l := strings.TrimRight(lines[j], " ")
		if strings.HasPrefix(l, fence) && strings.Trim(l, fence[:1]) == "" {
			return j
		}
	}
	return -1
}

func blankBetween(lines []string, from, to int) bool {
	for _, l := range lines[from+1 : to] {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}
