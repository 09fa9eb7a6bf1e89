package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A docStep is one command of a doc block that runs a command at a time
// (see shellBlock.steps): a plain tessera command, which the test process
// runs; "cd DIR", which moves the steps after it; or a self-contained
// line (see selfContained), which bash runs alone.
type docStep struct {
	tessera *plainCmd
	cd, sh  string
}

// stepCommands are the commands a self-contained line may run: none
// changes the shell's own state (directory, variables, options, jobs).
// go is docPrelude's, which runs tessera.
var stepCommands = map[string]bool{
	"cat": true, "cmp": true, "false": true, "cp": true, "diff": true, "echo": true, "git": true, "go": true, "grep": true,
	"head": true, "ls": true, "mkdir": true, "mv": true, "printf": true, "rm": true, "sed": true,
	"sort": true, "tail": true, "tessera": true, "touch": true, "true": true, "wc": true,
}

// steps returns the block's commands, with tmp standing for /tmp, when
// each is a plain tessera command (see plainCommands), "cd DIR" (DIR a
// plain word) or a self-contained line, and one at least is tessera's:
// the test process then runs tessera's commands, as the scripts do,
// sparing a race-enabled process's start apiece (some 60 ms of CPU), and
// bash each other line alone, in the directory the cds before it left.
// Comment lines are dropped. Anything else, such as a here-document, a
// variable or a job in the background, gives ok false: bash runs the
// whole block.
func (b shellBlock) steps(tmp string) (steps []docStep, ok bool) {
	var lines []string
	if b.lang == "console" {
		lines, _ = transcript(b.text)
	} else {
		cont := ""
		for _, l := range strings.Split(b.text, "\n") {
			if cont == "" && strings.HasPrefix(strings.TrimSpace(l), "#") {
				continue
			}
			if strings.HasSuffix(l, "\\") {
				cont += l + "\n"
				continue
			}
			if l = cont + l; strings.TrimSpace(l) != "" {
				lines = append(lines, l)
			}
			cont = ""
		}
		if cont != "" {
			return nil, false
		}
	}
	hasTessera := false
	for _, l := range lines {
		l = tmpRE.ReplaceAllString(l, "${1}"+tmp+"/")
		f := strings.Fields(l)
		if pc, ok := plainCommands(l + "\n"); ok && len(pc) == 1 {
			steps, hasTessera = append(steps, docStep{tessera: &pc[0]}), true
		} else if len(f) == 2 && f[0] == "cd" && plainWord(f[1]) {
			steps = append(steps, docStep{cd: f[1]})
		} else if selfContained(l) {
			steps = append(steps, docStep{sh: l})
		} else {
			return nil, false
		}
	}
	return steps, hasTessera
}

// plainWord reports whether s is a word bash leaves as it is.
func plainWord(s string) bool {
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("_./:=@,+%-", r)) {
			return false
		}
	}
	return s != ""
}

// selfContained reports whether bash may run line alone, with the same
// effect as in its block: every command it runs is one of stepCommands
// (after a pipe, &&, || or ;), and it has no expansion ($ or ` outside
// single quotes), no grouping or subshell, no here-document and no job
// in the background. Unbalanced quotes give false.
func selfContained(line string) bool {
	word, command := "", true
	endWord := func() bool {
		if word != "" && command && !stepCommands[word] {
			return false
		}
		if word != "" {
			command = false
		}
		word = ""
		return true
	}
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return false
			}
			word += "'" + line[i+1:i+1+j] // quoted: never a command name
			i += j + 1
		case '"':
			j := strings.IndexByte(line[i+1:], '"')
			if j < 0 || strings.ContainsAny(line[i+1:i+1+j], "$`\\") {
				return false
			}
			word += "'" + line[i+1:i+1+j]
			i += j + 1
		case '\\':
			if i+1 < len(line) && line[i+1] == '\n' {
				i++
				if !endWord() {
					return false
				}
				continue
			}
			return false
		case '$', '`', '(', ')', '{', '}':
			return false
		case '#':
			if word == "" {
				return endWord() // a comment, to the end of the line
			}
			word += "#"
		case ' ', '\t':
			if !endWord() {
				return false
			}
		case '|', ';', '\n', '&':
			amp := c == '&'
			if amp && (i+1 < len(line) && line[i+1] == '>' || i > 0 && line[i-1] == '>') {
				word += "&" // 2>&1, &>
				continue
			}
			if amp && (i+1 >= len(line) || line[i+1] != '&') {
				return false // a job in the background
			}
			if !endWord() {
				return false
			}
			if i+1 < len(line) && line[i+1] == c {
				i++
			}
			command = true
		case '<':
			if i+1 < len(line) && line[i+1] == '<' {
				return false
			}
			word += "<"
		default:
			word += string(c)
		}
	}
	return endWord()
}

// runSteps runs a block's steps, in work with the doc's environment and
// an empty standard input, and returns what bash would have printed: for
// a console block each command's output between the markers, with its
// exit code; for another block the output up to the first command that
// fails (set -e), and an error naming its exit code.
func runSteps(t *testing.T, lang string, steps []docStep, work string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	dir := work
	for _, s := range steps {
		if lang == "console" {
			fmt.Fprintf(&out, "\n%s\n", docMarker)
		}
		code := 0
		switch {
		case s.tessera != nil:
			var stdout io.Writer = &out
			if s.tessera.discard {
				stdout = io.Discard
			}
			var crash string
			var err error
			code, crash, err = runAt(ctx, dir, docEnv(work), s.tessera.args, strings.NewReader(""), stdout, &out)
			if err != nil {
				t.Fatal(err)
			}
			if crash != "" {
				t.Fatalf("tessera %s: %s", strings.Join(s.tessera.args, " "), crash)
			}
		case s.cd != "":
			next := s.cd
			if !filepath.IsAbs(next) {
				next = filepath.Join(dir, next)
			}
			if st, err := os.Stat(next); err == nil && st.IsDir() {
				dir = next
				break
			}
			s.sh = "cd " + s.cd // bash says why not
			fallthrough
		default:
			// A console block's commands run without set -e; under it,
			// a failure bash would not stop at (in a && list) is not
			// the line's status, which the final ":" gives.
			script := docPrelude + "exec 2>&1\n" + s.sh + "\n"
			if lang != "console" {
				script = docPrelude + "set -e -o pipefail\n" + s.sh + "\n:\n"
			}
			cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", script)
			cmd.Dir, cmd.Env = dir, docEnv(work)
			cmd.Stdout, cmd.Stderr = &out, &out
			var ee *exec.ExitError
			if err := cmd.Run(); errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatalf("bash: %v", err)
			}
		}
		if lang == "console" {
			fmt.Fprintf(&out, "\n%d\n", code)
		} else if code != 0 {
			return out.String(), fmt.Errorf("exit status %d", code)
		}
	}
	return out.String(), nil
}

// TestDocSteps checks which lines run alone, which blocks run a command
// at a time, and that they stop, and say so, where bash would.
func TestDocSteps(t *testing.T) {
	for line, want := range map[string]bool{
		"ls a b": true, "cp -r x /tmp/y && sed -i.bak 's/a$/(b)/' f": true, `echo '{"a": 1}' | tessera parse`: true,
		"cmp a b 2>&1 >/dev/null; wc -l < f": true, `git -c a=b commit -m "the msg"`: true, "ls x # a (comment)": true,
		"ls \\\n  x": true, "for i in 1 2; do ls; done": false, "x=1": false, "X=1 ls": false, "export A=1": false,
		"cd x && ls": false, "tessera serve &": false, "cat <<EOF": false, "echo $HOME": false, `echo "$HOME"`: false,
		"ls `pwd`": false, "(cd x)": false, "{ ls; }": false, "echo 'open": false, "wait": false, "'ls' x": false,
	} {
		if got := selfContained(line); got != want {
			t.Errorf("selfContained(%q) = %v, want %v", line, got, want)
		}
	}
	block := func(lang, text string) shellBlock { return shellBlock{file: "d.md", lang: lang, text: text} }
	if _, ok := block("sh", "ls\ncp a b").steps("/x"); ok {
		t.Error("a block without tessera runs a line at a time")
	}
	if _, ok := block("sh", "cat > f <<'EOF'\nx\nEOF\ntessera version").steps("/x"); ok {
		t.Error("a here-document runs a line at a time")
	}
	steps, ok := block("sh", "# setup\ncd /tmp/a\ntessera tokens \\\n  f > /dev/null\nls").steps("/x")
	if !ok || len(steps) != 3 || steps[0].cd != "/x/a" || steps[1].tessera == nil || !steps[1].tessera.discard || steps[2].sh != "ls" {
		t.Fatalf("steps: %v %+v", ok, steps)
	}
	work := t.TempDir()
	if err := os.Mkdir(filepath.Join(work, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		b        shellBlock
		out, err string
	}{
		{block("sh", "cd d\ntessera version > /dev/null\nfalse && true\ntouch f\nls\nfalse\nls"), "f\n", "exit status 1"},
		{block("sh", "tessera nosuchcommand\nls"), "tessera: unknown command…\n...", "exit status 2"},
		{block("console", "$ cd nowhere\n$ tessera version > /dev/null\n$ ls d"), "\n" + docMarker + "\n…cd: nowhere: No such file or directory\n\n1\n\n" + docMarker + "\n\n0\n\n" + docMarker + "\nf\n\n0\n", ""},
	} {
		steps, ok := c.b.steps("/x")
		if !ok {
			t.Fatalf("%q: not steps", c.b.text)
		}
		out, err := runSteps(t, c.b.lang, steps, work)
		if !outputMatches(c.out, out) || err == nil && c.err != "" || err != nil && err.Error() != c.err {
			t.Errorf("%q: %q, %v; want %q, %s", c.b.text, out, err, c.out, c.err)
		}
	}
}
