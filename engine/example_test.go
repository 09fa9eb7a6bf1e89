package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/presets"
	"github.com/tessera-dev/tessera/provider"
)

// Assemble a workflow node of a catalog with the template preset: the
// workflow and node inputs select it.
func ExampleEngine_Assemble() {
	ctx := context.Background()
	e := engine.Engine{Registry: presets.Default()}
	// The engine opens the catalog with the sections its presets own in
	// tessera.yaml (specs, typed, layered).
	c, err := e.Open(ctx, "../examples")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	res, err := e.Assemble(ctx, engine.Request{
		Args:    preset.Args{"workflow": "technical_arch.v1", "node": "pgc"},
		Catalog: c,
	})
	if err != nil {
		log.Fatal(err)
	}
	first, _, _ := strings.Cut(res.Prompt.Text, "\n")
	fmt.Println(res.Preset, res.Label)
	fmt.Println(res.Prompt.Hash)
	fmt.Println(first)
	// Output:
	// template technical_arch.v1/pgc
	// a98480f8725c052ac8d03b6644c77010237a2b32c4f13db600e1f64b6b66b157
	// # Clarification Questions Generator
}

// Assemble a canonical prompt spec (design 004) and the body of an OpenAI
// Chat Completions request for it: the system prompt and identity go in
// the developer message, the other sections in the user message.
func ExampleEngine_Assemble_spec() {
	e := engine.Engine{Registry: presets.Default()}
	res, err := e.Assemble(context.Background(), engine.Request{
		Args:     preset.Args{"spec": filepath.Join("..", "examples", "canonical", "v2-example.yaml")},
		Delivery: &engine.Delivery{Format: provider.OpenAIChat, Model: "gpt-4.1"},
	})
	if err != nil {
		log.Fatal(err)
	}
	var body struct {
		Model    string
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal(res.Body, &body); err != nil {
		log.Fatal(err)
	}
	fmt.Println(body.Model)
	for _, m := range body.Messages {
		first, _, _ := strings.Cut(m.Content, "\n")
		fmt.Printf("%s: %s (%d sections)\n", m.Role, first, strings.Count(m.Content, "## ["))
	}
	// Output:
	// gpt-4.1
	// developer: ## [System Prompt] (2 sections)
	// user: ## [Requesting User] (5 sections)
}

// Compile every prompt of a catalog into a directory, with a manifest.
func ExampleEngine_Compile() {
	ctx := context.Background()
	e := engine.Engine{Registry: presets.Default()}
	c, err := e.Open(ctx, "../examples")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	dir, err := os.MkdirTemp("", "prompts")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	m, err := e.Compile(ctx, c, filepath.Join(dir, "prompts"))
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range m.Prompts {
		fmt.Println(p.Path, p.Hash[:12])
	}
	// Output:
	// pm_discovery.v1/pgc.txt e859b9ca235c
	// pm_discovery.v1/review.txt ba183f1b7627
	// technical_arch.v1/pgc.txt a98480f8725c
	// technical_arch.v1/review.txt 6762520bb7ec
	// specs/support-ticket.txt 3a9d29f93d73
	// specs/v2-example.txt 8a120d7ea951
	// typed/review/code-review/small-change.txt 8412672af0a0
	// typed/review/code-review/strict-expanded.txt b84487cdf780
	// layered/fix-tests.txt 745657a7a908
	// layered/review-pt.txt 596114274307
}

// Log an assembly and replay it later by correlation id: the preset the
// record names lays it out again from the catalog as it is now.
func ExampleEngine_Replay() {
	ctx := context.Background()
	e := engine.Engine{Registry: presets.Default()}
	c, err := e.Open(ctx, "../examples")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	dir, err := os.MkdirTemp("", "audit")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	l := &audit.Log{Path: filepath.Join(dir, "assemblies.jsonl")}

	res, err := e.Assemble(ctx, engine.Request{
		Args:          preset.Args{"workflow": "technical_arch.v1", "node": "pgc"},
		Catalog:       c,
		CorrelationID: "run-42",
		Log:           l,
	})
	if err != nil {
		log.Fatal(err)
	}

	report, err := e.Replay(ctx, c, l, "run-42")
	if err != nil {
		log.Fatal(err)
	}
	for _, v := range report.Verdicts {
		fmt.Println(engine.Describe(v.Record), v.Status, v.NewHash == res.Prompt.Hash)
	}
	// Output:
	// technical_arch.v1/pgc match true
}
