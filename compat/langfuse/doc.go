// Package langfuse checks tessera serve with a client nobody here wrote:
// the official Langfuse JavaScript client (@langfuse/client from npm),
// run by Node against a live server on a loopback port. Its test needs
// the client installed (npm ci in this directory, which .ci/run does);
// without it the test skips, except under CI=true, where it fails.
package langfuse
