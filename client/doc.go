// Package client fetches prompts from a Tessera server (tessera serve),
// or from any server that speaks Langfuse's prompt API, with the cache
// Langfuse's own clients keep and the failure modes they are known for
// fixed.
//
// [Client.Get] fetches a prompt by label (production when none is
// given) or by version, with HTTP Basic authentication by a public and a
// secret key. Answers are cached for a TTL (60 s by default). Past the
// TTL, Get returns the cached copy at once, flagged Stale, and refreshes
// it in the background, one refresh per prompt however many callers ask;
// the refresh sends the copy's hash as If-None-Match, so an unchanged
// prompt costs a 304. A refresh that fails keeps the stale copy in
// service and is tried again after a short backoff. A refresh that the
// server answers with 404 (the label was removed, or moved off the
// prompt) evicts the copy: the next Get asks the server and reports
// ErrNotFound, so a removed label is never served for ever, as it is by
// Langfuse's clients (langfuse#10138).
//
// When a prompt is not cached and the server cannot be reached (or
// answers 5xx or 429), Get falls back to an embedded copy of the compiled
// catalog, the output of tessera compile with its manifest.json (see
// [Options.Fallback]), and flags the prompt Fallback.
//
// [Client.ByHash] fetches the exact prompt whose assembled text has a
// SHA-256, and caches it for ever: such a prompt never changes.
//
// [Prompt.Compile] fills {{variable}} placeholders in a text prompt as
// Langfuse's clients do. A Client holds no global state; Close stops its
// background refreshes.
package client
