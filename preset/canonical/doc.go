// Package canonical is the canonical preset (design 004, "prompt assembly
// framework v2"): a prompt spec of seven parts rendered in a fixed order
// under bracketed headings,
//
//	## [System Prompt]
//	## [Assistant Identity]
//	## [Requesting User]
//	## [Conversation State / History]
//	## [Constraints]
//	## [Task]
//	## [Input]
//
// with constraints and task annotations sorted by priority, the
// conversation state as summary bullets and a fenced, retention-trimmed
// transcript, and the user's input fenced as untrusted text.
//
// A [Spec] is the design's PromptSpec as a Go value; [ParseSpec] reads it
// from a YAML or JSON file whose keys are the design's names
// (systemPrompt.rules, identity.tone, conversationState.transcript,
// task[].instruction, input.userQuery, ...), reporting every problem with
// its file and line. Specs in the common subset of YAML (block mappings
// and lists, one-line scalars, block scalars, one-line flow lists and
// mappings) are read by a reader of the package's own, ten times faster;
// anything else, and every problem, by the full YAML parser, to the same
// Spec. [Assemble] redacts secrets (package guard), lays the
// spec out as sections ([Layout]) and renders them ([Render]). Render
// depends only on the sections it is given, so a budget stage can drop
// sections and items, or truncate bodies, and render again; each section
// carries the priority and trim rule of the design's preservation order.
//
// The package reads no files, clock or environment: the same spec and
// configuration give the same bytes and the same hash.
package canonical
