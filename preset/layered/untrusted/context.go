package untrusted

import (
	"fmt"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/yamldoc"
)

// Context is the runtime state of one assembly: trusted facts about the
// repository and the environment, and untrusted entries (memories,
// activity) to select from.
type Context struct {
	Git      *Git    `yaml:"git"`
	Env      *Env    `yaml:"env"`
	Memories []Entry `yaml:"memories"`
	Activity []Entry `yaml:"activity"`
}

// Git is the repository's state.
type Git struct {
	Branch  string `yaml:"branch" json:"branch"`
	Summary string `yaml:"summary" json:"summary"`
	// Changed counts files changed and not committed; more than none
	// hints the act mode.
	Changed int `yaml:"changed" json:"changed"`
}

// Env is the environment.
type Env struct {
	CWD string `yaml:"cwd" json:"cwd"`
	OS  string `yaml:"os" json:"os"`
}

// Entry is a memory or activity entry: untrusted text, with the vector a
// memory store kept for it (reused, never recomputed, when it comes from
// the same embedder), and a kind. Entries of the kinds system, meta and
// override are instruction-like and never injected.
type Entry struct {
	ID        string    `yaml:"id"`
	Text      string    `yaml:"text"`
	Kind      string    `yaml:"kind"`
	Embedding []float32 `yaml:"embedding"`
	// Embedder names the vector space of Embedding; empty means the
	// assembly's embedder.
	Embedder string `yaml:"embedder"`
	// Tags label the entry; a tag system, meta or override makes it of
	// that kind.
	Tags []string `yaml:"tags"`
	// Created is when the entry was made, in RFC 3339, as its store says.
	Created string `yaml:"created"`
}

var contextSchema = yamldoc.NewSchema[Context](yamldoc.Options{Doc: "a context file", Columns: true})

// ParseContext reads a context file (YAML or JSON; path names it in
// diagnostics): git, env, memories and activity. Every problem is
// reported at once, at its line and column.
func ParseContext(path string, data []byte) (*Context, error) {
	top, err := parser.ParseFile(path, data)
	if err != nil {
		return nil, err
	}
	var c Context
	d := contextSchema.Decode(path, top, &c)
	errs := d.Errors()
	errs = append(errs, checkIDs(path, d.Pos, "memories", c.Memories)...)
	errs = append(errs, checkIDs(path, d.Pos, "activity", c.Activity)...)
	applyTags(c.Memories)
	applyTags(c.Activity)
	for _, list := range []struct {
		key     string
		entries []Entry
	}{{"memories", c.Memories}, {"activity", c.Activity}} {
		seen := map[string]bool{}
		for i, e := range list.entries {
			at := fmt.Sprintf("%s[%d]", list.key, i)
			line, col := d.Pos(at)
			switch {
			case e.Text == "" && !d.Failed(at):
				errs = append(errs, diag.ErrorfAt(path, line, col, "%s entry %d has no text", list.key, i+1))
			case e.ID != "" && seen[e.ID]:
				errs = append(errs, diag.ErrorfAt(path, line, col, "%s: id %q is repeated", list.key, e.ID))
			}
			seen[e.ID] = true
		}
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return &c, nil
}

// JSONSchema returns the JSON Schema of a context file, generated from
// the decoder that reads it (see yamldoc.Schema.JSONSchema).
func JSONSchema() []byte {
	return contextSchema.JSONSchema("https://tessera.dev/schemas/layered-context.schema.json", "a layered context file")
}

// MemoryJSONSchema returns the JSON Schema of one line of a memories
// file in JSON Lines (see ParseMemories), generated from the decoder
// that reads it, so the two cannot drift.
func MemoryJSONSchema() []byte {
	return memorySchema.JSONSchema("https://tessera.dev/schemas/layered-memory.schema.json", "one line of a layered memories file (JSON Lines)")
}
