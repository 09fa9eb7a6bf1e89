// Package tessera assembles prompts for large language models from
// versioned files and typed values: in a fixed order, deterministic to the
// byte, within an exact token budget, with untrusted text fenced off,
// hashed, logged and replayable.
//
// This package holds only the release version. Start with:
//
//   - [github.com/tessera-dev/tessera/engine]: the one pipeline. An
//     Engine lays a prompt out with a preset, renders it, fits it to a
//     token budget, hashes and records it, replays records and compiles
//     a catalog for CI.
//   - [github.com/tessera-dev/tessera/preset]: the contract a preset
//     keeps (Load, Rebuild, Units), and its registry; its package example
//     is a whole preset. [github.com/tessera-dev/tessera/presets] holds
//     Tessera's five: template, canonical, agent, typed and layered.
//   - [github.com/tessera-dev/tessera/provider]: a prompt as the request
//     body of the OpenAI Chat and Responses, Anthropic and Gemini APIs,
//     and counting a request as its provider does.
//
// Beneath them: [github.com/tessera-dev/tessera/catalog] reads a catalog
// directory (tessera.yaml, templates, workflows);
// [github.com/tessera-dev/tessera/audit] is the JSON Lines log and
// replay; [github.com/tessera-dev/tessera/budget] and
// [github.com/tessera-dev/tessera/tokenizer] fit and count;
// [github.com/tessera-dev/tessera/guard] fences, redacts and detects
// injections; [github.com/tessera-dev/tessera/output] checks a model's
// reply against its schema; [github.com/tessera-dev/tessera/prompt] is
// the section model and the prompt hash every package shares.
//
// The tessera command (cmd/tessera) does the same from a shell.
package tessera

// Version is the Tessera release, recorded in audit records and compile
// manifests.
const Version = "0.1.0"
