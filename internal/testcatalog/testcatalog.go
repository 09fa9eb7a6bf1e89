// Package testcatalog writes catalogs for tests and benchmarks: files from
// a map of slash paths, and prompt prose, templates and schemas of the size
// and shape a team's catalog holds. It imports nothing from Tessera, so the
// tests of any package may use it.
package testcatalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteTree writes files (slash paths relative to a new temporary
// directory, to their contents) and returns the directory.
func WriteTree(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	WriteFiles(tb, dir, files)
	return dir
}

// WriteFiles writes files (slash paths to contents) under dir, making
// directories as needed.
func WriteFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// Base is a small valid catalog that tests change one file of (see
// With): one workflow "wf.v1" whose node "n" includes a context file by
// token and a rules file by directive.
func Base() map[string]string {
	return map[string]string{
		"tessera.yaml":         "tasks: tasks\nworkflows: workflows\n",
		"tasks/Gen v1.0.txt":   "Intro\n$$CTX\n$$include shared/rules.txt\n",
		"ctx/a.txt":            "context A\n",
		"shared/rules.txt":     "- rule\n",
		"workflows/wf.v1.json": `{"nodes": [{"node_id": "n", "type": "t", "task_ref": "Gen v1.0", "includes": {"CTX": "ctx/a.txt"}}]}`,
	}
}

// With sets files' paths to contents, given in pairs, and returns files;
// an empty content deletes the path.
func With(files map[string]string, kv ...string) map[string]string {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(files, kv[i])
		} else {
			files[kv[i]] = kv[i+1]
		}
	}
	return files
}

// lines is prompt prose of the kind a catalog holds: rules, context and
// schema notes.
var lines = [...]string{
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

// Text returns about n bytes of prose lines, each ending in "\n".
func Text(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(lines[i%len(lines)])
		b.WriteByte('\n')
	}
	return b.String()
}

// Template is a task template with three workflow tokens (PGC_CONTEXT,
// REVIEW_FOCUS, OUTPUT_SCHEMA) and one $$include of
// seed/prompts/shared/rules.txt, about 1 KB before assembly.
func Template(title string) string {
	return "# " + title + "\n\n" +
		Text(300) +
		"\n---\n\n$$PGC_CONTEXT\n\n---\n\n## Rules\n\n$$include seed/prompts/shared/rules.txt\n\n" +
		"## Review focus\n\n$$REVIEW_FOCUS\n\n## Output Schema\n\n$$OUTPUT_SCHEMA\n\n" +
		"## Prohibited Language\n- Never say \"I recommend\"\n- Never ask about budget\n" +
		Text(250)
}

// Schema returns a JSON Schema of about n bytes: an object of string
// properties.
func Schema(n int) string {
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

// Config is the tessera.yaml of the catalogs Template belongs in.
const Config = "tasks: seed/prompts/tasks\nworkflows: seed/workflows\n"
