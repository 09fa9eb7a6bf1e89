package main

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// inProcess runs tessera for the scripts in the test process, as a
// process of its own would run: in the script's current directory, with
// the script's environment (and PWD) as the whole environment, an empty
// standard input, and its standard output and error kept for the checks
// that follow. The working directory and the environment belong to the
// process, so the runs take turns: each takes both for its time and gives
// them back after. Nothing else in the test process may depend on them
// while TestScripts runs, which is why TestScripts is not parallel.
//
// A race-enabled process costs some 55 ms of CPU before it does
// anything; the scripts run some 550 commands. The built binary still
// runs as a process where a script says "exec tessera" or
// "exitcode N exec tessera", and after "stdin", which only a process
// can read.
type inProcess struct {
	mu sync.Mutex
}

// run runs tessera with args and returns its exit code. A panic fails
// the script, with the stack.
func (p *inProcess) run(ts *testscript.TestScript, args []string) int {
	env := scriptEnv(ts)
	dir := ts.MkAbs(".")
	stdout, stderr := ts.Stdout(), ts.Stderr()

	p.mu.Lock()
	defer p.mu.Unlock()
	wd, err := os.Getwd()
	ts.Check(err)
	saved := os.Environ()
	ts.Check(os.Chdir(dir))
	setEnviron(append(env, "PWD="+dir))
	code, crash := func() (code int, crash string) {
		defer func() {
			if r := recover(); r != nil {
				crash = fmt.Sprintf("panic: %v\n\n%s", r, debug.Stack())
			}
		}()
		return runInput(context.Background(), args, strings.NewReader(""), stdout, stderr), ""
	}()
	setEnviron(saved)
	ts.Check(os.Chdir(wd))
	if crash != "" {
		ts.Fatalf("tessera %s: %s", strings.Join(args, " "), crash)
	}
	return code
}

// setEnviron makes env, a list of KEY=VALUE (a later KEY wins), the
// process's environment. It changes only what differs, so a variable
// both have, such as PATH, which testscript reads as it starts each
// script, is never missing meanwhile.
func setEnviron(env []string) {
	want := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			want[k] = v
		}
	}
	for _, kv := range os.Environ() {
		if k, _, ok := strings.Cut(kv, "="); ok {
			if _, keep := want[k]; !keep {
				os.Unsetenv(k)
			}
		}
	}
	for k, v := range want {
		if old, ok := os.LookupEnv(k); !ok || old != v {
			os.Setenv(k, v)
		}
	}
}

// scriptEnv is the script's environment, in the order of its settings (a
// later setting of a name wins), as the script's commands get it.
// testscript keeps it in an unexported field and offers only Getenv, by
// name, so it is read with reflect, which can read an unexported field.
func scriptEnv(ts *testscript.TestScript) []string {
	f := reflect.ValueOf(ts).Elem().FieldByName("env")
	if f.Kind() != reflect.Slice || f.Type().Elem().Kind() != reflect.String {
		ts.Fatalf("cannot read the script's environment: testscript.TestScript has no env []string field any more")
	}
	env := make([]string, f.Len())
	for i := range env {
		env[i] = f.Index(i).String()
	}
	return env
}

// pendingStdin reports whether a "stdin" command has set the standard
// input of the next command, which only a process can read (testscript
// keeps it for its exec).
func pendingStdin(ts *testscript.TestScript) bool {
	f := reflect.ValueOf(ts).Elem().FieldByName("stdin")
	if f.Kind() != reflect.String {
		ts.Fatalf("cannot read the script's pending stdin: testscript.TestScript has no stdin string field any more")
	}
	return f.String() != ""
}
