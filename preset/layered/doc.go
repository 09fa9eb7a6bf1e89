// Package layered is the layered preset (design 002): an agent's prompt
// in five trust layers, CONSTITUTION (IMMUTABLE), RUNTIME CONTEXT
// (READ-ONLY, TRUSTED), UNTRUSTED CONTEXT (fenced, REFERENCE ONLY), TOOLS
// & SKILLS and TASK, whose tools, skills and untrusted entries are
// selected for the task.
//
// A Setup (ParseSetup) is a directory's constitution and rules (the
// built-in ones when it has none, at its top or under layers/),
// layered.yaml (the embedder, limits, similarity thresholds, each mode's
// keywords and base tools, the tools and skills manifests, injection
// examples and fixtures) and vectors.json, the manifests' vectors made in
// advance (EmbedVectors, ParseVectors). An Assembler selects for a
// Request: it infers the mode (explicit, interactive, git changes,
// keywords, else act), embeds the task in one call of its embed.Embedder
// (the one layered.yaml names, the lexical embed.Hash by default; an
// OpenAI-compatible endpoint through embed/httpembed), keeping the last
// 100 tasks' vectors, offers the mode's base capabilities and the most
// similar others within the limits, drops untrusted entries that are
// instruction-like or similar to an injection example (counting them),
// and keeps the most similar of the rest. The Selection is the report of
// what was chosen and why; its Layout is the prompt, and it is what an
// audit record keeps, so replay needs no embedder; Selection.Report is
// design 002's report of it. A Request's runtime context (git, env,
// memories, activity) is read by package untrusted, from a context file
// or memories in JSON Lines. Evaluate measures precision@K of the
// selection on a fixed set of tasks.
//
// The engine renders, fits, hashes, records and delivers the layout as it
// does every preset's. On the command line the preset's inputs are the
// assemble flags --layered-task, --layered-mode, --layered-dir,
// --layered-context, --layered-memories, --layered-interactive and
// --layered-reembed; "tessera layered assemble" takes them with shorter
// names and prints the report with --json, and "tessera layered embed"
// writes vectors.json.
package layered
