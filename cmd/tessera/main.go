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
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole command, with its environment passed in so tests can
// call it directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmd := newRootCmd(stdout, stderr)
	cmd.SetArgs(args)
	return exitCode(cmd.ExecuteContext(ctx), stderr)
}
