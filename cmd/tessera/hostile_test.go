//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/internal/yamldoc"
)

// TestHostileInputs runs the main commands, each in a process of its
// own, on hostile inputs of 4 MiB (1 MiB with -short; 256 KiB under the
// race detector; 1, 4 and 15.9 MiB with TESSERA_HEAVY=1 and without -short):
// lists as long as a document may hold, lists far longer, nesting
// thousands deep, long text, replies of a million values. Each command
// must end with exit code 0 or 1 (a problem named, never a crash) and
// its peak resident memory must stay within 64 MiB plus 16 times its
// largest input, the bound docs/PERFORMANCE.md promises (not under the
// race detector, which multiplies memory). It checks memory, never time.
// Under the race detector, which checks no memory, each command runs in
// the test process instead, as the scripts' commands do, on the smallest
// inputs that still hold a document's most values (the limit files): the
// same code runs on a quarter of the bytes, at less than half the CPU.
// .ci/run runs the 4 MiB pass, with its memory bound, without -race.
func TestHostileInputs(t *testing.T) {
	tessera, err := exec.LookPath("tessera") // the test binary, as TestMain installs it
	if err != nil {
		t.Skip("no tessera command on PATH:", err)
	}
	// Absolute, and before t.Parallel: the doc blocks' commands take
	// the working directory in turns (see processState).
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	if raceEnabled {
		// Memory is not checked under the race detector (see below), so
		// this test need not run alone: a child's peak would count this
		// process's memory, which other tests running beside it grow.
		t.Parallel()
	}
	sizes := []int{4 << 20}
	if raceEnabled {
		sizes = []int{256 << 10}
	} else if testing.Short() {
		sizes = []int{1 << 20}
	} else if os.Getenv("TESSERA_HEAVY") == "1" {
		sizes = []int{1 << 20, 4 << 20, 159 << 20 / 10}
	}
	for _, size := range sizes {
		dir := t.TempDir()
		in := hostileInputs(t, dir, size)
		subtask := filepath.Join(examples, "agent", "subtask.yaml")
		state := filepath.Join(examples, "agent", "state.yaml")
		typed := filepath.Join(examples, "typed", "code-review.yaml")
		layered := filepath.Join(examples, "layered")
		plan := filepath.Join(examples, "agent", "plan.json")
		type run struct {
			name string
			args []string
		}
		var runs []run
		for _, y := range []string{"limit.yaml", "list.yaml", "deep.yaml", "deepflow.yaml", "limit.json", "list.json", "deep.json"} {
			runs = append(runs,
				run{"state " + y, []string{"agent", "execute", "--state", in[y], "--subtask", subtask}},
				run{"subtask " + y, []string{"agent", "execute", "--state", state, "--subtask", in[y]}},
				run{"memory " + y, []string{"agent", "execute", "--state", state, "--subtask", subtask, "--memory", in[y]}},
				run{"typed params " + y, []string{"assemble", "--typed", typed, "--typed-params", in[y]}},
				run{"typed template " + y, []string{"assemble", "--typed", in[y]}},
				run{"layered context " + y, []string{"assemble", "--layered-task", "t", "--layered-dir", layered, "--layered-context", in[y]}},
				run{"canonical spec " + y, []string{"assemble", "--spec", in[y]}},
			)
		}
		runs = append(runs,
			run{"state text", []string{"agent", "execute", "--state", in["text.yaml"], "--subtask", subtask}},
			run{"memory entries", []string{"agent", "execute", "--state", state, "--subtask", subtask, "--memory", in["memory.json"]}},
			run{"check plan", []string{"agent", "check", "plan", in["reply.json"]}},
			run{"check replan", []string{"agent", "check", "replan", in["reply.json"], "--plan", plan}},
			run{"check extract", []string{"agent", "check", "extract", in["reply.json"]}},
			run{"check verify", []string{"agent", "check", "verify", in["reply.json"]}},
			run{"check execute", []string{"agent", "check", "execute", in["reply.json"]}},
			run{"tokens text", []string{"tokens", in["text.txt"]}},
			run{"tokens run", []string{"tokens", in["run.txt"]}},
			run{"tokens letters", []string{"tokens", in["letters.txt"]}},
		)
		// Eight records of an eighth of the size each, and their replay,
		// which reads one record at a time.
		log := filepath.Join(dir, "replay.jsonl")
		for i := range 8 {
			runs = append(runs, run{fmt.Sprintf("log record %d", i+1), []string{"agent", "execute", "--state", in["part.yaml"], "--subtask", subtask, "--log", log, "--correlation-id", "big"}})
		}
		runs = append(runs, run{"replay", []string{"replay", "--id", "big", "--log", log}})
		limit := int64(64<<20 + 16*size)
		for _, r := range runs {
			t.Run(sizeName(size)+"/"+r.name, func(t *testing.T) {
				if raceEnabled && !strings.HasPrefix(r.name, "log record") && r.name != "replay" {
					// Memory is not checked under the race detector, so
					// the commands need not run one at a time (the log's
					// records and its replay, in order, aside).
					t.Parallel()
				}
				args := append(r.args, "--max-file-bytes", "32MiB")
				if raceEnabled {
					// Memory is not checked, so the command runs in the
					// test process, sparing a race-enabled process's
					// start (the arguments are absolute paths, and the
					// environment is this process's).
					var stderr bytes.Buffer
					code, crash := runHere(args, &stderr)
					if code != 0 && code != 1 || crash != "" || strings.Contains(stderr.String(), "panic") {
						t.Fatalf("exit code %d:\n%s%s", code, clip(stderr.String()), crash)
					}
					return
				}
				cmd := exec.Command(tessera, args...)
				cmd.Dir = dir
				// A race-enabled child would sleep a second at exit.
				cmd.Env = append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
				var stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = nil, &stderr
				start := time.Now()
				err := cmd.Run()
				took := time.Since(start)
				code := cmd.ProcessState.ExitCode()
				if code != 0 && code != 1 || strings.Contains(stderr.String(), "panic") {
					t.Fatalf("exit code %d (%v):\n%s", code, err, clip(stderr.String()))
				}
				ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
				if !ok {
					t.Skip("no resource usage for the child")
				}
				peak := ru.Maxrss << 10
				// For docs/PERFORMANCE.md, with -v; never checked.
				t.Logf("peak %d MiB, %.2f s, exit %d", peak>>20, took.Seconds(), code)
				if peak > limit && !raceEnabled {
					t.Errorf("peak memory %d MiB, over %d MiB (64 MiB + 16 x %.1f MiB); exit code %d:\n%s", peak>>20, limit>>20, float64(size)/(1<<20), code, clip(stderr.String()))
				}
			})
		}
	}
}

// runHere runs tessera with args in the test process, in its directory
// and environment, with an empty standard input and no standard output,
// and returns its exit code, or the panic and its stack.
func runHere(args []string, stderr io.Writer) (code int, crash string) {
	processState.RLock()
	defer processState.RUnlock()
	defer func() {
		if r := recover(); r != nil {
			crash = fmt.Sprintf("panic: %v\n\n%s", r, debug.Stack())
		}
	}()
	return runInput(context.Background(), args, strings.NewReader(""), io.Discard, stderr), ""
}

// sizeName names an input size in a subtest's name: 256KiB, 1.0MiB.
func sizeName(size int) string {
	if size < 1<<20 {
		return fmt.Sprintf("%dKiB", size>>10)
	}
	return fmt.Sprintf("%.1fMiB", float64(size)/(1<<20))
}

func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

// hostileInputs writes the inputs of TestHostileInputs, each of about
// size bytes, in dir, and returns their paths by name. Each is written a
// piece at a time, so that this process stays small: a child's peak
// memory counts its parent's from before it starts.
func hostileInputs(t *testing.T, dir string, size int) map[string]string {
	t.Helper()
	paths := map[string]string{}
	write := func(name string, parts ...func(w *bufio.Writer)) {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for _, part := range parts {
			part(w)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	text := func(s string) func(*bufio.Writer) {
		return func(w *bufio.Writer) { w.WriteString(s) }
	}
	repeat := func(s string, n int) func(*bufio.Writer) {
		return func(w *bufio.Writer) {
			for range n {
				w.WriteString(s)
			}
		}
	}
	// As many values as a document of this size may hold, padded with a
	// comment (YAML) or spaces (JSON) to the size.
	n := yamldoc.MaxNodes(size) - 10
	list := 2 * n
	write("limit.yaml", text("x: ["), repeat("1,", n-1), text("1]\n#"), repeat("a", size-list-8), text("\n"))
	write("limit.json", text(`{"x": [`), repeat("1,", n-1), text("1]}"), repeat(" ", size-list-10), text("\n"))
	// Far more values than that.
	ones := size/2 - 8
	write("list.yaml", text("x: ["), repeat("1,", ones), text("1]\n"))
	write("list.json", text(`{"x": [`), repeat("1,", ones), text("1]}"))
	// Nesting 9,990 deep, under the YAML parser's own limit.
	write("deep.yaml", text("x:\n"), repeat("- ", 9990), text("x\n"))
	write("deepflow.yaml", text("x: "), repeat("[", 9990), repeat("]", 9990), text("\n"))
	write("deep.json", text(`{"x": `), repeat("[", 9990), repeat("]", 9990), text("}"))
	// Long text: a block scalar, and plain text.
	line := "  " + strings.Repeat("word ", 15) + "\n"
	write("text.yaml", text("goal: |\n"), repeat(line, size/len(line)))
	write("text.txt", repeat(line[2:], size/len(line)))
	write("part.yaml", text("goal: |\n"), repeat(line, size/8/len(line)))
	// One unbroken word: one piece for the tokenizer's merge, of one
	// letter or of letters in a random order.
	write("run.txt", repeat("a", size))
	write("letters.txt", func(w *bufio.Writer) {
		x := uint32(1)
		for range size {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			w.WriteByte(byte('a' + x%26))
		}
	})
	// Memory entries, read one by one.
	write("memory.json", func(w *bufio.Writer) {
		w.WriteString("[")
		for i := 0; ; i++ {
			entry := fmt.Sprintf(`{"type": "discovery", "summary": "Entry %d.", "tags": ["a", "b"]}`, i)
			if (i+1)*(len(entry)+2) > size-100 {
				break
			}
			if i > 0 {
				w.WriteString(",\n")
			}
			w.WriteString(entry)
		}
		w.WriteString("]")
	})
	// A reply of a million values.
	write("reply.json", text(`{"subtasks": [`), repeat("1,", ones), text("1]}"))
	return paths
}
