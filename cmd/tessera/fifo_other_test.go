//go:build !unix

package main

import "github.com/rogpeppe/go-internal/testscript"

// cmdMkfifo skips the script where there are no named pipes.
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	ts.Skip("no named pipes on this platform")
}
