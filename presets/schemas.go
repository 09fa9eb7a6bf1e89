package presets

import (
	"strings"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/preset/agent"
	"github.com/tessera-dev/tessera/preset/canonical"
	"github.com/tessera-dev/tessera/preset/layered"
	"github.com/tessera-dev/tessera/preset/layered/untrusted"
	"github.com/tessera-dev/tessera/preset/typed"
)

// Schema is the JSON Schema (draft 2020-12) of one file format, as the
// decoder that reads the format generates it.
type Schema struct {
	// Name names the format; its file under the repository's schemas/
	// is Name + ".schema.json".
	Name string
	// Describes says which files it describes, for people.
	Describes string
	// JSON is the schema.
	JSON []byte
}

// Schemas returns the JSON Schemas of the file formats Tessera reads with
// its presets, tessera.yaml's with their sections: one entry per file
// under schemas/, in a fixed order. A typed template's parameters file
// has a schema made from its template (typed.Template.ParamsJSONSchema)
// and is not among them.
func Schemas() []Schema {
	out := []Schema{
		{"tessera", "tessera.yaml, a catalog's configuration", catalog.JSONSchema(Default().Sections()...)},
		{"workflow", "a workflow file (JSON) of the template preset", catalog.WorkflowJSONSchema()},
		{"canonical-spec", "a canonical spec (YAML or JSON)", canonical.JSONSchema()},
		{"typed-template", "a typed template", typed.JSONSchema()},
		{"typed-overrides", "a typed template's overrides file", typed.OverridesJSONSchema()},
		{"layered", "layered.yaml, the layered preset's setup", layered.JSONSchema()},
		{"layered-context", "a layered context file (git, env, memories, activity)", untrusted.JSONSchema()},
		{"layered-memory", "one line of a layered memories file (JSON Lines)", untrusted.MemoryJSONSchema()},
	}
	for _, r := range agent.Roles() {
		out = append(out, Schema{"agent-" + string(r), "the agent's " + string(r) + " template", agent.JSONSchema(r)})
	}
	seen := map[string]bool{}
	for _, in := range []struct {
		r     agent.Role
		input string
		what  string
	}{
		{agent.Executor, "subtask", "a subtask (--subtask) for the agent's executor, extractor and verifier"},
		{agent.Executor, "memory", "the agent executor's memory entries (--memory)"},
		{agent.Executor, "tools", "the agent executor's tools (--tools)"},
		{agent.Extractor, "tool-calls", "the tool calls (--tool-calls) the agent's extractor and verifier read"},
		{agent.Replanner, "discoveries", "the agent replanner's discoveries or errors (--discoveries, --errors)"},
	} {
		s, file := in.r.InputJSONSchema(in.input)
		if s == nil {
			continue
		}
		name := strings.TrimSuffix(file, ".schema.json")
		if !seen[name] {
			seen[name] = true
			out = append(out, Schema{name, in.what, s})
		}
	}
	return out
}
