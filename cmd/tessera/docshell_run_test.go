package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// docPrelude starts every doc block's script: "go run ./cmd/tessera" is
// the tessera on PATH, and no other go command runs.
const docPrelude = `go() {
	if [ "$1" = run ] && [ "$2" = ./cmd/tessera ]; then shift 2; tessera "$@"; return; fi
	echo "doc-test: only \"go run ./cmd/tessera\" runs in a doc block: mark it <!-- doc-test: skip: REASON -->" >&2
	return 127
}
`

// docMarker separates the output of a console block's commands.
const docMarker = "\x1edoc-test-command\x1e"

// tmpRE finds the paths under /tmp/ a block names.
var tmpRE = regexp.MustCompile(`(^|[\s=:'"(])/tmp/`)

// run runs the block in work, with tmp standing for /tmp, and checks it.
func (b shellBlock) run(t *testing.T, work, tmp string) {
	var script strings.Builder
	script.WriteString(docPrelude)
	var cmds, wants []string
	if b.lang == "console" {
		cmds, wants = transcript(b.text)
		if len(cmds) == 0 {
			t.Fatalf("%s:%d: a console block with no \"$ \" command", b.file, b.line)
		}
		script.WriteString("exec 2>&1\n")
		for _, c := range cmds {
			fmt.Fprintf(&script, "printf '\\n%s\\n'\n%s\nprintf '\\n%%s\\n' \"$?\"\n", docMarker, c)
		}
	} else {
		script.WriteString("set -e -o pipefail\n")
		script.WriteString(b.text)
		script.WriteString("\n")
	}
	var out string
	var err error
	if steps, ok := b.steps(tmp); ok {
		out, err = runSteps(t, b.lang, steps, work)
	} else {
		out, err = runBash(tmpRE.ReplaceAllString(script.String(), "${1}"+tmp+"/"), work)
	}
	got := strings.ReplaceAll(strings.ReplaceAll(out, tmp, "/tmp"), work+"/", "")
	if b.lang != "console" {
		if err != nil {
			t.Fatalf("%s:%d: %v\n%s\nThe block:\n%s", b.file, b.line, err, got, b.text)
		}
		if b.output != nil && !outputMatches(*b.output, got) {
			t.Errorf("%s:%d: the block prints\n%s\nand the doc shows\n%s", b.file, b.line, got, *b.output)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s:%d: %v\n%s", b.file, b.line, err, got)
	}
	parts := strings.Split(got, "\n"+docMarker+"\n")[1:]
	if len(parts) != len(cmds) {
		t.Fatalf("%s:%d: %d commands, %d outputs:\n%s", b.file, b.line, len(cmds), len(parts), got)
	}
	for i, p := range parts {
		p = strings.TrimRight(p, "\n")
		status := p[strings.LastIndex(p, "\n")+1:]
		p = p[:max(strings.LastIndex(p, "\n"), 0)]
		if status != "0" && strings.TrimSpace(wants[i]) == "" {
			t.Errorf("%s:%d: $ %s\nexits %s and the doc shows no error:\n%s", b.file, b.line, cmds[i], status, p)
		}
		if !outputMatches(wants[i], p) {
			t.Errorf("%s:%d: $ %s\nprints\n%s\nand the doc shows\n%s", b.file, b.line, cmds[i], p, wants[i])
		}
	}
}

// runBash runs script with bash in work and returns what it prints,
// standard output and error together.
func runBash(script, work string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", script)
	cmd.Dir = work
	cmd.Env = docEnv(work)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// docEnv is the environment of a doc block: the test's, without the
// TESSERA_ variables a developer may have set, in the C locale and UTC.
func docEnv(work string) []string {
	processState.RLock() // not another in-process command's
	environ := os.Environ()
	processState.RUnlock()
	var env []string
	for _, kv := range environ {
		if strings.HasPrefix(kv, "TESSERA_") || strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANG=") {
			continue
		}
		env = append(env, kv)
	}
	// A race-enabled tessera would sleep a second at exit, waiting for
	// late race reports.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return append(env, "LC_ALL=C", "TZ=UTC", "HOME="+work, "GORACE="+gorace, "NO_COLOR=1")
}

// transcript splits a console block into its commands and the output
// each shows.
func transcript(text string) (cmds, wants []string) {
	cont := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case cont:
			cmds[len(cmds)-1] += "\n" + line
		case strings.HasPrefix(line, "$ "):
			cmds = append(cmds, strings.TrimPrefix(line, "$ "))
			wants = append(wants, "")
		case len(cmds) > 0:
			wants[len(wants)-1] += line + "\n"
		}
		cont = len(cmds) > 0 && strings.HasSuffix(line, "\\") && (cont || strings.HasPrefix(line, "$ "))
	}
	return cmds, wants
}

// outputMatches reports whether got is the output want shows: "…" is
// any text within a line, a line "..." any number of lines, and
// trailing spaces and blank lines do not count.
func outputMatches(want, got string) bool {
	split := func(s string) []string {
		lines := strings.Split(strings.TrimRight(s, " \n"), "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(l, " \t")
		}
		if len(lines) == 1 && lines[0] == "" {
			return nil
		}
		return lines
	}
	return linesMatch(split(want), split(got))
}

func linesMatch(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for i := 0; i <= len(got); i++ {
			if linesMatch(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && lineMatches(want[0], got[0]) && linesMatch(want[1:], got[1:])
}

// lineMatches matches one line, "…" standing for any text.
func lineMatches(want, got string) bool {
	parts := strings.Split(want, "…")
	if len(parts) == 1 {
		return want == got
	}
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	got = got[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(got, p)
		if i < 0 {
			return false
		}
		got = got[i+len(p):]
	}
	return strings.HasSuffix(got, parts[len(parts)-1])
}
