package catalog_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/presets"
)

// Assemble one node of the bundled example catalog (design 001) and
// print the start of its prompt and its provenance.
func ExampleCatalog_Assemble() {
	ctx := context.Background()
	c, err := catalog.Open(ctx, "../examples", presets.Default().Sections()...)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	a, err := c.Assemble(ctx, "pm_discovery.v1", "pgc")
	if err != nil {
		log.Fatal(err)
	}
	lines := strings.SplitAfter(a.Text, "\n")
	fmt.Print(strings.Join(lines[:9], ""))
	fmt.Println("...")
	for _, s := range a.Sources {
		fmt.Printf("%-8s %-13s %s\n", s.Kind, s.Token, s.Path)
	}
	// Output:
	// # Clarification Questions Generator
	//
	// You are operating under a certified role prompt.
	//
	// ---
	//
	// ## Context Block
	//
	// Next Document: Project Discovery Document
	// ...
	// template               seed/prompts/tasks/Clarification Questions Generator v1.0.txt
	// token    PGC_CONTEXT   seed/prompts/pgc-contexts/project_discovery.v1.txt
	// token    OUTPUT_SCHEMA seed/schemas/clarification_question_set.v2.json
}

// Problems come back as diagnostics naming file and line, every one of
// them at once.
func ExampleCatalog_Assemble_errors() {
	dir, _ := os.MkdirTemp("", "catalog")
	defer os.RemoveAll(dir)
	write := func(name, text string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	write("tessera.yaml", "tasks: tasks\nworkflows: workflows\n")
	write("tasks/greet.txt", "Hello.\n$$CONTEXT\n$$OUTPUT_SCHEME\n")
	write("workflows/demo.json", `{"nodes": [{"node_id": "greet", "task_ref": "greet",
  "includes": {"CONTEXT": "context.txt", "OUTPUT_SCHEMA": "schema.json"}}]}`)
	write("schema.json", "{}\n")

	ctx := context.Background()
	c, err := catalog.Open(ctx, dir, presets.Default().Sections()...)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	_, err = c.Assemble(ctx, "demo", "greet")
	fmt.Println(err)
	// Output:
	// tasks/greet.txt:2:1: $$CONTEXT (context.txt): file not found: create it or fix the path [node at workflows/demo.json:1:12]
	// tasks/greet.txt:3:1: unknown token $$OUTPUT_SCHEME: the workflow node's includes map has no entry for it (did you mean $$OUTPUT_SCHEMA?) [node at workflows/demo.json:1:12]
	// workflows/demo.json:1:12: includes entry OUTPUT_SCHEMA is not used by tasks/greet.txt: add $$OUTPUT_SCHEMA to the template or remove the entry
}
