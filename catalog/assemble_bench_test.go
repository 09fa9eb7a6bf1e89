package catalog

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/include"
)

// benchLines is prompt prose of the kind a catalog holds: rules, context
// and schema notes.
var benchLines = []string{
	"You are operating under a certified role prompt. Follow it exactly.",
	"Read the project brief and the context block before you write anything.",
	"Ask only questions whose answers change what the next document must explore.",
	"- Affect how discovery is run, who takes part and what it must decide.",
	"- Never say \"I recommend\"; state options and their consequences instead.",
	"- Never ask about budget, staffing or dates; those come from the sponsor.",
	"Purpose: explore the solution space and validate the assumptions behind it.",
	"Each question names the assumption it tests and the decision it unblocks.",
	"Keep questions short, concrete and answerable by the product owner alone.",
	"Output must validate against the schema below; extra properties are errors.",
}

// benchText returns about n bytes of prose lines, each ending in "\n".
func benchText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(benchLines[i%len(benchLines)])
		b.WriteByte('\n')
	}
	return b.String()
}

// benchTemplate is a task template with three workflow tokens and one
// $$include, about 1 KB before assembly.
func benchTemplate(title string) string {
	return "# " + title + "\n\n" +
		benchText(300) +
		"\n---\n\n$$PGC_CONTEXT\n\n---\n\n## Rules\n\n$$include seed/prompts/shared/rules.txt\n\n" +
		"## Review focus\n\n$$REVIEW_FOCUS\n\n## Output Schema\n\n$$OUTPUT_SCHEMA\n\n" +
		"## Prohibited Language\n- Never say \"I recommend\"\n- Never ask about budget\n" +
		benchText(250)
}

func benchSchema(n int) string {
	var b strings.Builder
	b.WriteString("{\n  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",\n  \"type\": \"object\",\n  \"properties\": {\n")
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("    \"question_" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "\": {\"type\": \"string\", \"minLength\": 1, \"description\": \"One question, ending in a question mark.\"}")
	}
	b.WriteString("\n  }\n}\n")
	return b.String()
}

const benchConfig = "tasks: seed/prompts/tasks\nworkflows: seed/workflows\n"

// benchCatalog writes a catalog with one workflow, "pm_discovery.v1",
// whose node "pgc" assembles to about 4 KB.
func benchCatalog(tb testing.TB) string {
	dir := tb.TempDir()
	writeFiles(tb, dir, map[string]string{
		"tessera.yaml": benchConfig,
		"seed/prompts/tasks/Clarification Questions Generator v1.0.txt": benchTemplate("Clarification Questions Generator"),
		"seed/prompts/shared/rules.txt":                                 benchText(700),
		"seed/prompts/pgc-contexts/project_discovery.v1.txt":            "## Context Block\n\nNext Document: Project Discovery Document\n\n" + benchText(700),
		"seed/prompts/focus/discovery.txt":                              benchText(500),
		"seed/schemas/clarification_question_set.v2.json":               benchSchema(800),
		"seed/workflows/pm_discovery.v1.json": `{
  "title": "Project discovery",
  "nodes": [
    {"node_id": "intake", "type": "gate"},
    {
      "node_id": "pgc",
      "type": "pgc",
      "task_ref": "Clarification Questions Generator v1.0",
      "includes": {
        "PGC_CONTEXT": "seed/prompts/pgc-contexts/project_discovery.v1.txt",
        "REVIEW_FOCUS": "seed/prompts/focus/discovery.txt",
        "OUTPUT_SCHEMA": "seed/schemas/clarification_question_set.v2.json"
      }
    }
  ]
}
`,
	})
	return dir
}

func benchOpen(tb testing.TB, dir string) *Catalog {
	tb.Helper()
	c, err := Open(context.Background(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// BenchmarkAssemble measures the hot path of a long-running service: a
// warm catalog assembling one node (three tokens and one $$include, about
// 4 KB of output), hash included.
//
// Target: under 10 µs and under 20 allocs per op.
func BenchmarkAssemble(b *testing.B) {
	ctx := context.Background()
	c := benchOpen(b, benchCatalog(b))
	a, err := c.Assemble(ctx, "pm_discovery.v1", "pgc")
	if err != nil {
		b.Fatal(err)
	}
	if n := len(a.Text); n < 3500 || n > 4600 {
		b.Fatalf("assembled %d bytes, want about 4 KB", n)
	}
	benchAssembleLoop(b, c, a)
}

// BenchmarkAssembleExample assembles the bundled example catalog's
// pm_discovery.v1/pgc node on a warm catalog.
func BenchmarkAssembleExample(b *testing.B) {
	ctx := context.Background()
	c := benchOpen(b, filepath.Join("..", "examples"))
	a, err := c.Assemble(ctx, "pm_discovery.v1", "pgc")
	if err != nil {
		b.Fatal(err)
	}
	benchAssembleLoop(b, c, a)
}

// benchAssembleLoop times assembling a's node again on the warm catalog c.
func benchAssembleLoop(b *testing.B, c *Catalog, a *Assembly) {
	ctx := context.Background()
	b.SetBytes(int64(len(a.Text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Assemble(ctx, a.WorkflowID, a.NodeID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseTemplate scans a 4 KB template holding tokens, literal $$
// and an $$include line.
func BenchmarkParseTemplate(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(benchTemplate("Clarification Questions Generator"))
	for sb.Len() < 4096 {
		sb.WriteString("Costs are quoted in $$ only when the brief says so; see $$PGC_CONTEXT.\n")
		sb.WriteString(benchText(400))
	}
	src := sb.String()[:4096]
	if _, err := include.Parse("t.txt", src); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := include.Parse("t.txt", src); err != nil {
			b.Fatal(err)
		}
	}
}
