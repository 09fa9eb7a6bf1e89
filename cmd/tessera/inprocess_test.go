package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"unsafe"

	"github.com/rogpeppe/go-internal/testscript"
)

// inProcess runs tessera for the scripts in the test process, as a
// process of its own would run: in the script's current directory, with
// the script's environment (and PWD) as the whole environment, the
// standard input a "stdin" command set for it (else an empty one), and
// its standard output and error kept for the checks that follow (see
// runAt).
//
// A race-enabled process costs some 55 ms of CPU before it does
// anything; the scripts run some 550 commands. The built binary still
// runs as a process where a script says "exec tessera" or
// "exitcode N exec tessera".
type inProcess struct{}

// run runs tessera with args and returns its exit code, having taken
// the standard input a "stdin" command set (see takeStdin). A panic
// fails the script, with the stack.
func (p *inProcess) run(ts *testscript.TestScript, args []string) int {
	stdin := strings.NewReader(takeStdin(ts))
	code, crash, err := runAt(context.Background(), ts.MkAbs("."), scriptEnv(ts), args, stdin, ts.Stdout(), ts.Stderr())
	ts.Check(err)
	if crash != "" {
		ts.Fatalf("tessera %s: %s", strings.Join(args, " "), crash)
	}
	return code
}

// processState guards the working directory and the environment, which
// belong to the process. A run of tessera in the test process in a
// directory and environment of its own (runAt) takes both for its time
// and gives them back after, holding processState for writing; one in
// the test process's own (TestHostileInputs's, with absolute paths)
// holds it for reading. Nothing else in the test process may depend on
// them while such runs go on: TestScripts is not parallel, and the
// parallel tests that run tessera take processState.
var processState sync.RWMutex

// runAt runs tessera with args in the test process as a process of its
// own would run in dir, with env (and PWD) as its whole environment and
// stdin as its standard input, and returns its exit code, or the panic
// and its stack.
func runAt(ctx context.Context, dir string, env, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int, crash string, err error) {
	processState.Lock()
	defer processState.Unlock()
	wd, err := os.Getwd()
	if err != nil {
		return 0, "", err
	}
	saved := os.Environ()
	if err := os.Chdir(dir); err != nil {
		return 0, "", err
	}
	setEnviron(append(env, "PWD="+dir))
	code, crash = func() (code int, crash string) {
		defer func() {
			if r := recover(); r != nil {
				crash = fmt.Sprintf("panic: %v\n\n%s", r, debug.Stack())
			}
		}()
		return runInput(ctx, args, stdin, stdout, stderr), ""
	}()
	setEnviron(saved)
	return code, crash, os.Chdir(wd)
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

// takeStdin returns the standard input a "stdin" command set for the
// next command, and clears it, as testscript does once its exec has used
// it: the next command reads none. testscript keeps it in an unexported
// field, read with reflect and cleared through its address.
func takeStdin(ts *testscript.TestScript) string {
	f := reflect.ValueOf(ts).Elem().FieldByName("stdin")
	if f.Kind() != reflect.String || !f.CanAddr() {
		ts.Fatalf("cannot read the script's pending stdin: testscript.TestScript has no stdin string field any more")
	}
	stdin := f.String()
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().SetString("")
	return stdin
}
