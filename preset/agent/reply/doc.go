// Package reply reads and checks what a model answers to the agent
// preset's prompts (package agent, design 000): the planner's and
// replanner's plan, the extractor's memory entries, the executor's final
// reply and the verifier's verdict.
//
// A reply may wrap its JSON in prose or a fenced block; ExtractJSON finds
// it. ParsePlan, ParseExtraction and ParseVerdict report every problem at
// once, as a diag.List naming the subtask or entry it is about at its
// line and column in the reply; ValidatePlan checks a plan made in Go,
// and ValidateReplan that a revised plan keeps the completed subtasks of
// the original. Plan, Subtask and MemoryEntry are also what the agent
// preset's prompts are built from: the executor is given a subtask of a
// plan, and memory entries the extractor wrote.
//
// See docs/agent.md for the replies and their checks in full.
package reply
