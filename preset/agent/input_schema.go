package agent

import (
	"slices"
	"strings"
)

// inputSchemas are the JSON Schemas of the input files, by input name,
// with the name of their file under schemas/ and a title.
var inputSchemas = map[string]struct {
	file, title string
	schema      func(id, title string, extra ...map[string]map[string]any) []byte
}{
	inputSubtask:     {"agent-subtask", "a subtask for the agent's executor, extractor and verifier", subtaskSchema.JSONSchema},
	inputMemory:      {"agent-memory", "the agent executor's retrieved memory entries", memorySchema.JSONSchema},
	inputTools:       {"agent-tools", "the agent executor's tools", toolsSchema.JSONSchema},
	inputToolCalls:   {"agent-tool-calls", "the tool calls the agent's extractor and verifier read", callsSchema.JSONSchema},
	inputDiscoveries: {"agent-notes", "discoveries or errors for the agent's replanner", notesSchema.JSONSchema},
	inputErrors:      {"agent-notes", "discoveries or errors for the agent's replanner", notesSchema.JSONSchema},
}

// InputJSONSchema returns the JSON Schema (draft 2020-12) of the file r
// reads for input (its flag name, with or without the "agent-" prefix:
// "subtask", "memory", "tools", "tool-calls", "discoveries", "errors"),
// generated from the decoder that reads it, and its file name under
// schemas/. It returns nil when r does not read input or the input has
// no schema of its own (the task state is any mapping; a plan is checked
// as a planner's reply is).
func (r Role) InputJSONSchema(input string) (schema []byte, file string) {
	if !strings.HasPrefix(input, "agent-") {
		input = "agent-" + input
	}
	s, ok := inputSchemas[input]
	if reads, _ := roleInputs(r); !ok || !slices.Contains(reads, input) {
		return nil, ""
	}
	file = s.file + ".schema.json"
	return s.schema("https://tessera.dev/schemas/"+file, s.title), file
}
