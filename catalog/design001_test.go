package catalog

import (
	"context"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/prompt"
)

// The files of design 001's "Concrete Example", verbatim, and the
// "Result" the design shows for them.
var design001 = map[string]string{
	"tessera.yaml": "tasks: seed/prompts/tasks\nworkflows: seed/workflows\n",
	"seed/prompts/tasks/Clarification Questions Generator v1.0.txt": `# Clarification Questions Generator

You are operating under a certified role prompt.

---

$$PGC_CONTEXT

---

## Output Schema

$$OUTPUT_SCHEMA

## Prohibited Language
- Never say "I recommend"
- Never ask about budget
...
`,
	"seed/prompts/pgc-contexts/project_discovery.v1.txt": `## Context Block

Next Document: Project Discovery Document

Purpose: Explore solution space, validate assumptions...

Questions Asked Here Must:
- Affect how discovery is run
- Change what discovery needs to explore
`,
	"seed/schemas/clarification_question_set.v2.json": `{"$schema": "...", "type": "object", "properties": {...}}
`,
	"seed/workflows/pm_discovery.v1.json": `{
  "nodes": [
    {
      "node_id": "pgc",
      "type": "pgc",
      "task_ref": "Clarification Questions Generator v1.0",
      "includes": {
        "PGC_CONTEXT": "seed/prompts/pgc-contexts/project_discovery.v1.txt",
        "OUTPUT_SCHEMA": "seed/schemas/clarification_question_set.v2.json"
      }
    }
  ]
}
`,
}

const design001Result = `# Clarification Questions Generator

You are operating under a certified role prompt.

---

## Context Block

Next Document: Project Discovery Document

Purpose: Explore solution space, validate assumptions...

Questions Asked Here Must:
- Affect how discovery is run
- Change what discovery needs to explore

---

## Output Schema

{"$schema": "...", "type": "object", "properties": {...}}

## Prohibited Language
- Never say "I recommend"
- Never ask about budget
...
`

func TestDesign001Result(t *testing.T) {
	c := open(t, writeTree(t, design001))
	a, err := c.Assemble(context.Background(), "pm_discovery.v1", "pgc")
	if err != nil {
		t.Fatal(err)
	}
	if a.Text != design001Result {
		t.Errorf("assembled text differs from design 001's Result:\n%s", a.Text)
	}
	if a.Hash != prompt.Hash(design001Result) {
		t.Errorf("hash %s is not SHA-256 of the text", a.Hash)
	}
	inc := a.IncludesResolved()
	if len(inc) != 2 || inc["PGC_CONTEXT"] != "seed/prompts/pgc-contexts/project_discovery.v1.txt" ||
		inc["OUTPUT_SCHEMA"] != "seed/schemas/clarification_question_set.v2.json" {
		t.Errorf("includes resolved = %v", inc)
	}
	if a.TaskRef != "Clarification Questions Generator v1.0" || a.WorkflowID != "pm_discovery.v1" || a.NodeID != "pgc" {
		t.Errorf("identity = %q %q %q", a.TaskRef, a.WorkflowID, a.NodeID)
	}
}

// A catalog saved with Windows line ends, a byte-order mark, or old Mac
// line ends assembles to the same bytes and hash as the LF original.
func TestLineEndsAndBOMDoNotChangeTheHash(t *testing.T) {
	want := design001Result
	for name, conv := range map[string]func(string) string{
		"crlf":    func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") },
		"cr":      func(s string) string { return strings.ReplaceAll(s, "\n", "\r") },
		"bom":     func(s string) string { return "\uFEFF" + s },
		"bomcrlf": func(s string) string { return "\uFEFF" + strings.ReplaceAll(s, "\n", "\r\n") },
	} {
		t.Run(name, func(t *testing.T) {
			files := map[string]string{}
			for p, s := range design001 {
				files[p] = conv(s)
			}
			c := open(t, writeTree(t, files))
			a, err := c.Assemble(context.Background(), "pm_discovery.v1", "pgc")
			if err != nil {
				t.Fatal(err)
			}
			if a.Text != want || a.Hash != prompt.Hash(want) {
				t.Errorf("got %q", a.Text)
			}
		})
	}
}

// Same template, different contexts: two workflows share one template.
func TestSameTemplateDifferentContexts(t *testing.T) {
	files := map[string]string{}
	for p, s := range design001 {
		files[p] = s
	}
	files["seed/prompts/pgc-contexts/technical_architecture.v1.txt"] = "## Context Block\n\nNext Document: Technical Architecture\n"
	files["seed/workflows/technical_arch.v1.json"] = strings.ReplaceAll(design001["seed/workflows/pm_discovery.v1.json"], "project_discovery", "technical_architecture")
	c := open(t, writeTree(t, files))
	ctx := context.Background()
	pm, err := c.Assemble(ctx, "pm_discovery.v1", "pgc")
	if err != nil {
		t.Fatal(err)
	}
	ta, err := c.Assemble(ctx, "technical_arch.v1", "pgc")
	if err != nil {
		t.Fatal(err)
	}
	if pm.Hash == ta.Hash || !strings.Contains(ta.Text, "Next Document: Technical Architecture\n\n---") {
		t.Errorf("technical_arch prompt:\n%s", ta.Text)
	}
	if pm.Sources[0].Hash != ta.Sources[0].Hash || pm.Sources[0].Path != ta.Sources[0].Path {
		t.Errorf("the two prompts should share the template source: %+v vs %+v", pm.Sources[0], ta.Sources[0])
	}
}
