package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tessera-dev/tessera"
)

// TestMain lets the test binary act as the tessera command inside the
// scripts: "exec tessera ..." runs run() in a child process, with the
// script's working directory and environment. "exitcode N tessera ..."
// runs it in the test process instead (see inProcess).
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"tessera": func() {
			os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
		},
	})
}

// TestScripts runs the end-to-end scripts in testdata/script. Each one
// builds its own catalog from its archive, runs the real command and
// checks what a user sees: standard output, standard error, exit codes and
// the files written.
//
// Scripts may use, beyond testscript's own commands:
//
//	exitcode N tessera ARGS...  run tessera, fail unless it exits with N (in the
//	                            test process, with a pending stdin; see inProcess)
//	exitcode N exec PROG ARGS...  the same, always as a process (the built binary, for tessera)
//	bom FILE                    prepend a UTF-8 byte-order mark to FILE
//	writebytes FILE 'TEXT'      write TEXT, Go escapes such as \n and \xff decoded, to FILE
//	replace FILE OLD NEW        replace every OLD in FILE by NEW (fails if OLD is absent)
//	sha256 FILE                 print FILE's SHA-256 as 64 hex digits
//	jsonget FILE KEY...         print the JSON value at the key path (string values raw)
//	lines N FILE                fail unless FILE has exactly N lines
//	filter REGEXP FILE          print FILE's lines that match REGEXP, as stdout
//	fakeembed ...               a fake embeddings server on loopback (see cmdFakeEmbed)
//
// and the environment variables EXAMPLES (the bundled example catalog,
// which scripts must only read), TESSERA_VERSION (the version records
// carry) and TESSERA_BUILD_VERSION (the version "tessera version" prints).
func TestScripts(t *testing.T) {
	// Not parallel: its in-process commands take the process's working
	// directory and environment in turns, which no other test may use
	// meanwhile. Its scripts run in parallel with each other.
	inproc := &inProcess{}
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	// Absolute: testscript opens each script when it starts it, maybe
	// while another script's command has the working directory.
	scripts, err := filepath.Abs(filepath.Join("testdata", "script"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 scripts,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		// TESSERA_UPDATE_SCRIPTS=1 rewrites the expected files that
		// "cmp stdout FILE" and "cmp stderr FILE" compare with; review
		// the diff before keeping it.
		UpdateScripts: os.Getenv("TESSERA_UPDATE_SCRIPTS") != "",
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", examples)
			env.Setenv("TESSERA_VERSION", tessera.Version)
			info, _ := debug.ReadBuildInfo()
			env.Setenv("TESSERA_BUILD_VERSION", buildVersion(info))
			env.Values[fakeEmbedKey{}] = &fakeEmbed{}
			// A race-enabled child sleeps a second at exit by default,
			// waiting for late race reports; the scripts run hundreds.
			env.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":   inproc.cmdExitCode,
			"bom":        cmdBOM,
			"writebytes": cmdWriteBytes,
			"replace":    cmdReplace,
			"sha256":     cmdSHA256,
			"jsonget":    cmdJSONGet,
			"lines":      cmdLines,
			"filter":     cmdFilter,
			"mkfifo":     cmdMkfifo,
			"fakeembed":  cmdFakeEmbed,
		},
	})
}

// cmdExitCode runs a command like exec does, keeping its standard output
// and error for the stdout and stderr checks that follow, and fails unless
// it exits with exactly the given code. tessera runs in the test process
// unless "exec" comes first.
func (p *inProcess) cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exitcode")
	}
	if len(args) < 2 || args[1] == "exec" && len(args) < 3 {
		ts.Fatalf("usage: exitcode N [exec] command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not a number", args[0])
	}
	if args[1] == "tessera" {
		if got := p.run(ts, args[2:]); got != want {
			ts.Fatalf("tessera exited with code %d, want %d", got, want)
		}
		return
	}
	if args[1] == "exec" {
		args = args[1:]
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with code %d, want %d", args[1], got, want)
	}
}

func cmdBOM(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: bom FILE")
	}
	name := ts.MkAbs(args[0])
	data, err := os.ReadFile(name)
	ts.Check(err)
	ts.Check(os.WriteFile(name, append([]byte("\xef\xbb\xbf"), data...), 0o666))
}

func cmdWriteBytes(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: writebytes FILE 'TEXT'")
	}
	text, err := strconv.Unquote(`"` + strings.ReplaceAll(args[1], `"`, `\"`) + `"`)
	if err != nil {
		ts.Fatalf("writebytes: cannot decode %q: %v", args[1], err)
	}
	name := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(name), 0o777))
	ts.Check(os.WriteFile(name, []byte(text), 0o666))
}

func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	name := ts.MkAbs(args[0])
	data, err := os.ReadFile(name)
	ts.Check(err)
	if !bytes.Contains(data, []byte(args[1])) {
		ts.Fatalf("replace: %s does not contain %q", args[0], args[1])
	}
	ts.Check(os.WriteFile(name, bytes.ReplaceAll(data, []byte(args[1]), []byte(args[2])), 0o666))
}

func cmdSHA256(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sha256 FILE")
	}
	sum := sha256.Sum256([]byte(ts.ReadFile(args[0])))
	_, err := ts.Stdout().Write([]byte(hex.EncodeToString(sum[:])))
	ts.Check(err)
}

// cmdJSONGet prints the value at a key path in a JSON file (or in stdout):
// object keys by name, array elements by index. A string is printed as
// is, without quotes or a final newline; anything else as compact JSON.
func cmdJSONGet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: jsonget FILE KEY...")
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile(args[0])))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		ts.Fatalf("jsonget: %s: %v", args[0], err)
	}
	for _, k := range args[1:] {
		switch x := v.(type) {
		case map[string]any:
			val, ok := x[k]
			if !ok {
				ts.Fatalf("jsonget: %s: no key %q", args[0], k)
			}
			v = val
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				ts.Fatalf("jsonget: %s: no element %q in an array of %d", args[0], k, len(x))
			}
			v = x[i]
		default:
			ts.Fatalf("jsonget: %s: cannot index %T with %q", args[0], v, k)
		}
	}
	var out []byte
	if s, ok := v.(string); ok {
		out = []byte(s)
	} else {
		var err error
		out, err = json.Marshal(v)
		ts.Check(err)
	}
	_, err := ts.Stdout().Write(out)
	ts.Check(err)
}

func cmdLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: lines N FILE")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("lines: %q is not a number", args[0])
	}
	text := ts.ReadFile(args[1])
	if text != "" && !strings.HasSuffix(text, "\n") {
		ts.Fatalf("lines: %s does not end in a newline", args[1])
	}
	if got := strings.Count(text, "\n"); got != want {
		ts.Fatalf("lines: %s has %d lines, want %d", args[1], got, want)
	}
}

func cmdFilter(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: filter REGEXP FILE")
	}
	re, err := regexp.Compile(args[0])
	if err != nil {
		ts.Fatalf("filter: %v", err)
	}
	for _, line := range strings.SplitAfter(ts.ReadFile(args[1]), "\n") {
		if re.MatchString(strings.TrimSuffix(line, "\n")) {
			fmt.Fprint(ts.Stdout(), line)
		}
	}
}
