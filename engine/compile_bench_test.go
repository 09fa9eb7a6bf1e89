package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/internal/testcatalog"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/presets"
)

const benchWorkflows = 1000

// compileSizes are the catalog sizes the scaling benchmarks run at; the
// time per workflow should not grow with the count.
var compileSizes = []int{100, 1000, 10000}

// benchTeamCatalog writes a catalog shaped like a real team's: n
// workflows of one node each, sharing five templates, eight context
// files, four review-focus files, three schemas and one $$include'd rules
// file. Each node assembles to about 4 KB.
func benchTeamCatalog(tb testing.TB, n int) string {
	tb.Helper()
	dir := tb.TempDir()
	files := map[string]string{
		"tessera.yaml":                  testcatalog.Config,
		"seed/prompts/shared/rules.txt": testcatalog.Text(700),
	}
	tasks := []string{"Clarification Questions Generator v1.0", "Document Review v1.0", "Risk Register v2.1", "Release Notes v1.3", "Interview Guide v1.0"}
	for _, t := range tasks {
		files["seed/prompts/tasks/"+t+".txt"] = testcatalog.Template(t)
	}
	for i := range 8 {
		files[fmt.Sprintf("seed/prompts/contexts/context_%d.v1.txt", i)] = fmt.Sprintf("## Context Block %d\n\n", i) + testcatalog.Text(650+10*i)
	}
	for i := range 4 {
		files[fmt.Sprintf("seed/prompts/focus/focus_%d.txt", i)] = testcatalog.Text(450 + 20*i)
	}
	for i := range 3 {
		files[fmt.Sprintf("seed/schemas/schema_%d.v2.json", i)] = testcatalog.Schema(700 + 50*i)
	}
	for i := range n {
		files[fmt.Sprintf("seed/workflows/team_%05d.v1.json", i)] = fmt.Sprintf(`{
  "title": "Workflow %d",
  "nodes": [
    {
      "node_id": "step_%d",
      "type": "pgc",
      "task_ref": %q,
      "includes": {
        "PGC_CONTEXT": "seed/prompts/contexts/context_%d.v1.txt",
        "REVIEW_FOCUS": "seed/prompts/focus/focus_%d.txt",
        "OUTPUT_SCHEMA": "seed/schemas/schema_%d.v2.json"
      }
    }
  ]
}
`, i, i%3, tasks[i%len(tasks)], i%8, i%4, i%3)
	}
	writeFiles(tb, dir, files)
	return dir
}

// BenchmarkCompile1000 measures what CI runs on every push: open a fresh
// catalog of 1,000 workflows, read and assemble every node, write each
// prompt and the manifest into a new directory and swap it into place,
// replacing (and removing) the previous iteration's output, as a rerun
// does.
//
// Target: under 300 ms per op.
func BenchmarkCompile1000(b *testing.B) {
	benchCompile(b, benchTeamCatalog(b, benchWorkflows), benchWorkflows)
}

// benchCompile compiles the catalog in dir, of n prompts, into the same
// output directory again and again.
func benchCompile(b *testing.B, dir string, n int) {
	ctx := context.Background()
	out := filepath.Join(b.TempDir(), "prompts")
	b.ReportAllocs()
	for b.Loop() {
		c, err := catalog.Open(ctx, dir, presets.Default().Sections()...)
		if err != nil {
			b.Fatal(err)
		}
		e := Engine{Registry: presets.Default()}
		m, err := e.Compile(ctx, c, out)
		if err != nil {
			b.Fatal(err)
		}
		if len(m.Prompts) != n {
			b.Fatalf("compiled %d prompts, want %d", len(m.Prompts), n)
		}
		c.Close()
	}
}

// BenchmarkBuild1000 is BenchmarkCompile1000 without the writing: open
// the catalog and assemble all 1,000 nodes in memory.
func BenchmarkBuild1000(b *testing.B) {
	ctx := context.Background()
	dir := benchTeamCatalog(b, benchWorkflows)
	b.ReportAllocs()
	for b.Loop() {
		c, err := catalog.Open(ctx, dir, presets.Default().Sections()...)
		if err != nil {
			b.Fatal(err)
		}
		e := Engine{Registry: presets.Default()}
		built, err := e.Build(ctx, c)
		if err != nil {
			b.Fatal(err)
		}
		if len(built) != benchWorkflows {
			b.Fatalf("built %d prompts, want %d", len(built), benchWorkflows)
		}
		c.Close()
	}
}

// BenchmarkWriteFloor1000 is the floor under BenchmarkCompile1000: only
// the file system work a compile of 1,000 workflows cannot avoid (1,000
// directories and 1,000 prompt files of the same sizes, written into a new
// directory that replaces the previous one), with no catalog at all. The
// ratio of the two is Tessera's own share of a compile; on a slow disk
// both are dominated by the file system.
func BenchmarkWriteFloor1000(b *testing.B) {
	ctx := context.Background()
	c, err := catalog.Open(ctx, benchTeamCatalog(b, benchWorkflows), presets.Default().Sections()...)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	e := Engine{Registry: presets.Default()}
	built, err := e.Build(ctx, c)
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	out := filepath.Join(root, "prompts")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		tmp := filepath.Join(root, fmt.Sprint("new-", i))
		if err := os.Mkdir(tmp, 0o755); err != nil {
			b.Fatal(err)
		}
		for _, u := range built {
			d := filepath.Join(tmp, u.Unit.Entry.Get("workflow"))
			if err := os.Mkdir(d, 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, u.Unit.Entry.Get("node")+".txt"), []byte(u.Result.Prompt.Text), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.RemoveAll(out); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(tmp, out); err != nil {
			b.Fatal(err)
		}
	}
}

// benchWideCatalog writes a catalog of one workflow with n nodes, each
// assembling about 3 KB from one template and one included file.
func benchWideCatalog(tb testing.TB, n int) string {
	tb.Helper()
	dir := tb.TempDir()
	var nodes strings.Builder
	for i := range n {
		if i > 0 {
			nodes.WriteString(",\n")
		}
		fmt.Fprintf(&nodes, `    {"node_id": "step_%d", "type": "pgc", "task_ref": "Wide v1.0", "includes": {"PGC_CONTEXT": "seed/prompts/contexts/context_%d.txt"}}`, i, i%8)
	}
	files := map[string]string{
		"tessera.yaml":                     testcatalog.Config,
		"seed/prompts/tasks/Wide v1.0.txt": "# Wide v1.0\n\n$$PGC_CONTEXT\n\n" + testcatalog.Text(2500),
		"seed/workflows/wide.v1.json":      "{\n  \"title\": \"Wide\",\n  \"nodes\": [\n" + nodes.String() + "\n  ]\n}\n",
	}
	for i := range 8 {
		files[fmt.Sprintf("seed/prompts/contexts/context_%d.txt", i)] = testcatalog.Text(400 + 10*i)
	}
	writeFiles(tb, dir, files)
	return dir
}

// BenchmarkCompileScaling runs a whole compile, as BenchmarkCompile1000
// does, of 100, 1,000 and 10,000 prompts, in two shapes: as many
// workflows of one node each ("workflows"), and one workflow of that many
// nodes ("nodes"). It reports the time per prompt ("ns/prompt").
//
// Target: linear. The time per prompt at 10,000 is within 1.5× of that
// at 100, in both shapes (on tmpfs, TMPDIR=/dev/shm, where the file
// system does not dominate).
func BenchmarkCompileScaling(b *testing.B) {
	shapes := []struct {
		name  string
		write func(testing.TB, int) string
	}{{"workflows", benchTeamCatalog}, {"nodes", benchWideCatalog}}
	for _, shape := range shapes {
		for _, n := range compileSizes {
			b.Run(fmt.Sprintf("%s=%d", shape.name, n), func(b *testing.B) {
				benchCompile(b, shape.write(b, n), n)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/prompt")
			})
		}
	}
}
