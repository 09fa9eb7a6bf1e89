// Package tessera assembles prompts for large language models from
// versioned files and typed values: in a fixed order, deterministic to the
// byte, hashed, logged and replayable.
//
// This package holds only the release version. The work is done by its
// sub-packages:
//
//   - [github.com/tessera-dev/tessera/catalog] loads a catalog directory
//     (tessera.yaml, templates, includes, workflows), assembles workflow
//     nodes and compiles every node for CI.
//   - [github.com/tessera-dev/tessera/audit] appends assembly records to a
//     JSON Lines log and replays them against the catalog.
//   - [github.com/tessera-dev/tessera/include] is the $$TOKEN and $$include
//     template syntax.
//   - [github.com/tessera-dev/tessera/prompt] is the section model, text
//     normalisation and the prompt hash every other package shares.
//   - [github.com/tessera-dev/tessera/diag] is the file:line diagnostics
//     they report.
//
// The tessera command (cmd/tessera) does the same from a shell.
package tessera

// Version is the Tessera release, recorded in audit records and compile
// manifests.
const Version = "0.1.0"
