// Package agent is the agent preset (design 000, "Loom", Spec 12): the
// prompts an agent that runs on local models needs for each step of its
// loop, built from editable YAML templates, and the checks of what the
// model answers.
//
// There are five roles. The planner decomposes a goal into 3 to 15
// subtasks; the executor carries out one subtask with tools; the
// replanner revises the pending subtasks and keeps the completed ones;
// the extractor turns a finished subtask into memory entries; the
// verifier checks a finished subtask against its acceptance criteria.
//
// Each role's prompt comes from a template, a YAML file whose keys are
// the sections of the prompt (role, instructions, task_state, subtask,
// memory, tools, output_format, constraints) and whose values hold {name}
// placeholders; {{ and }} are literal braces. The templates ship inside
// Tessera (DefaultTemplates) and a catalog's agent/templates directory or
// any directory (LoadDir) can replace each of them. Values are written
// once, never read again as template text, so braces in a goal, a file
// name or a model's output cannot change a prompt. Every prompt's
// constraints end with the sets of the constraint library
// (constraints.yaml: common, executor, safety) its role is given.
//
// Build lays a prompt out as sections for the engine: in the design's
// order, joined by a "---" rule, empty sections left out, with the
// design's priorities for the budget (role, task state, subtask,
// constraints, output format, tools, memory): memory entries go first,
// lowest relevance first, then tools, least relevant first. Preset is the
// same as a preset.Preset: the engine's "agent" preset, chosen by its
// agent-role input.
//
// Package reply (preset/agent/reply) reads and checks what comes back:
// plans, revised plans, memory entries, an executor's result and a
// verdict, reporting every problem with the subtask or entry it is
// about. Its Plan, Subtask and MemoryEntry are what Input holds.
//
// See docs/agent.md for the templates, inputs, budget and checks in
// full.
package agent
