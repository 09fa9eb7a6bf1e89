package catalog

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/internal/testcatalog"

	"github.com/tessera-dev/tessera/include"
)

// benchCatalog writes a catalog with one workflow, "pm_discovery.v1",
// whose node "pgc" assembles to about 4 KB.
func benchCatalog(tb testing.TB) string {
	dir := tb.TempDir()
	writeFiles(tb, dir, map[string]string{
		"tessera.yaml": testcatalog.Config,
		"seed/prompts/tasks/Clarification Questions Generator v1.0.txt": testcatalog.Template("Clarification Questions Generator"),
		"seed/prompts/shared/rules.txt":                                 testcatalog.Text(700),
		"seed/prompts/pgc-contexts/project_discovery.v1.txt":            "## Context Block\n\nNext Document: Project Discovery Document\n\n" + testcatalog.Text(700),
		"seed/prompts/focus/discovery.txt":                              testcatalog.Text(500),
		"seed/schemas/clarification_question_set.v2.json":               testcatalog.Schema(800),
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
	c, err := Open(context.Background(), dir, testSections...)
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
	sb.WriteString(testcatalog.Template("Clarification Questions Generator"))
	for sb.Len() < 4096 {
		sb.WriteString("Costs are quoted in $$ only when the brief says so; see $$PGC_CONTEXT.\n")
		sb.WriteString(testcatalog.Text(400))
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
