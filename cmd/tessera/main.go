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
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := runInput(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
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
