// Command tessera assembles prompts from a catalog, compiles every
// workflow node for CI, and replays logged assemblies.
//
// Usage:
//
//	tessera assemble --workflow ID --node NODE [--root DIR] [--json] [--log FILE] [--correlation-id ID]
//	tessera compile [--root DIR] [--out DIR] [--check]
//	tessera replay --id CORRELATION_ID [--log FILE] [--root DIR]
//	tessera version
//
// Exit codes: 0 success, 1 a problem in the catalog, an assembly or a
// replay, 2 a usage error. Problems go to standard error, one per line, as
// path:line: message.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	oneShotGC()
	code := runInput(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// oneShotGCPercent is the garbage collector's target (GOGC) for a
// command that runs once and exits, unless the environment sets GOGC:
// such a command allocates what it reads of the built-in data, once,
// and keeps most of it, so collecting at every doubling of the heap is
// work for nothing. It saved about 5 ms of the 50 a layered assembly
// may take (docs/PERFORMANCE.md), for 4 MB more at its peak. tessera
// serve, which runs for long, keeps Go's default.
const oneShotGCPercent = 400

// oneShotGC sets oneShotGCPercent, unless GOGC is set; serveGC sets
// Go's default back, for tessera serve.
func oneShotGC() { setGCPercent(oneShotGCPercent) }

func serveGC() { setGCPercent(100) }

func setGCPercent(p int) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(p)
	}
}

// run is the whole command, with its environment passed in so tests can
// call it directly. It reads the process's standard input.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runInput(ctx, args, os.Stdin, stdout, stderr)
}

// runInput is run with standard input read from stdin.
func runInput(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newRootCmd(stdout, stderr)
	cmd.SetIn(stdin)
	cmd.SetArgs(args)
	return exitCode(cmd.ExecuteContext(ctx), stderr)
}
