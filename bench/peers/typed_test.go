package peers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/tessera-dev/tessera/presets"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/template"

	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/typed"
)

// The typed comparison: one prompt with typed inputs (design 003's kind:
// named values, numbered sections, one section enabled by a boolean)
// assembled three ways from files on disk on every call:
//
//   - tessera-typed: engine.Assemble of a typed template with a params
//     file (read and parse both, check every name and type, lay out,
//     render with numbered headings, hash, record);
//   - dotprompt: a .prompt file whose front matter declares the input
//     schema (Picoschema), rendered with the same values read from a
//     JSON file;
//   - text-template: text/template with the same values from the JSON
//     file.
//
// All three are generated from one description (typedSections) when the
// benchmark starts; TestTypedPeersAgree checks that they give the same
// text, byte for byte. The peers number their headings by hand, which is
// what a typed template saves its authors.

// typedSection is one section of the comparison's prompt: its title and
// body with {name} where a value goes.
type typedSection struct {
	title, body string
	enabledBy   string
}

var typedSections = []typedSection{
	{title: "Role", body: "You review {language} changes to {repo}. You are exact and brief,\nand you never approve code you have not read."},
	{title: "Task", body: "Review the change below. Leave at most {max_comments} comments,\neach on a line of the diff, most important first."},
	{title: "Change", body: "{diff}"},
	{title: "Rules", body: "1. Correctness first: a wrong result, a race or a leak outranks style.\n2. Every error is handled or returned with context.\n3. New behaviour has a test that fails without it.\n4. Names say what a thing holds; comments say why, not what."},
	{title: "Strict mode", body: "Treat every finding as blocking.", enabledBy: "strict"},
}

var typedValues = map[string]any{
	"language":     "Go",
	"repo":         "acme/billing",
	"max_comments": 10,
	"diff":         strings.TrimSuffix(strings.Repeat("+\tif total < 0 {\n+\t\treturn 0, errNegative\n+\t}\n", 40), "\n"),
	"strict":       true,
}

// typedFiles writes the typed template, the values (a JSON file, which is
// the typed template's params file and the peers' data), the .prompt file
// and the Go template under dir, and returns their paths.
func typedFiles(tb testing.TB, dir string) (tpl, params, prompt, gotmpl string) {
	tb.Helper()
	names := []string{"language", "repo", "max_comments", "diff", "strict"}
	var y, dp, gt strings.Builder
	y.WriteString("ns: bench\nkey: review\nparams:\n")
	for _, n := range names {
		typ := "string"
		switch typedValues[n].(type) {
		case int:
			typ = "integer"
		case bool:
			typ = "boolean"
		}
		fmt.Fprintf(&y, "  - {name: %s, type: %s}\n", n, typ)
	}
	y.WriteString("sections:\n")
	dp.WriteString("---\nmodel: googleai/gemini-2.5-flash\ninput:\n  schema:\n    language: string\n    repo: string\n    max_comments: integer\n    diff: string\n    strict: boolean\n---\n")
	num := 0
	for i, s := range typedSections {
		fill := func(open, close string) string {
			out := s.body
			for _, n := range names {
				out = strings.ReplaceAll(out, "{"+n+"}", open+n+close)
			}
			return out
		}
		fmt.Fprintf(&y, "  - key: s%d\n    title: %s\n", i, s.title)
		if s.enabledBy != "" {
			fmt.Fprintf(&y, "    enabled: %s\n", s.enabledBy)
		}
		fmt.Fprintf(&y, "    template: |\n      %s\n", strings.ReplaceAll(fill("${", "}"), "\n", "\n      "))
		num++
		head := fmt.Sprintf("## %d. %s\n", num, s.title)
		sep := "\n\n"
		if i == 0 {
			sep = ""
		}
		if s.enabledBy != "" {
			fmt.Fprintf(&dp, "{{#if %s}}%s%s%s{{/if}}", s.enabledBy, sep, head, fill("{{", "}}"))
			fmt.Fprintf(&gt, "{{if .%s}}%s%s%s{{end}}", s.enabledBy, sep, head, fill("{{.", "}}"))
			continue
		}
		fmt.Fprintf(&dp, "%s%s%s", sep, head, fill("{{", "}}"))
		fmt.Fprintf(&gt, "%s%s%s", sep, head, fill("{{.", "}}"))
	}
	var v strings.Builder
	v.WriteString("{")
	for i, n := range names {
		if i > 0 {
			v.WriteString(", ")
		}
		fmt.Fprintf(&v, "%q: ", n)
		switch x := typedValues[n].(type) {
		case string:
			fmt.Fprintf(&v, "%q", x)
		default:
			fmt.Fprintf(&v, "%v", x)
		}
	}
	v.WriteString("}")
	tpl, params, prompt = filepath.Join(dir, "review.yaml"), filepath.Join(dir, "values.json"), filepath.Join(dir, "review.prompt")
	gotmpl = filepath.Join(dir, "review.tmpl")
	for path, text := range map[string]string{tpl: y.String(), params: v.String(), prompt: dp.String(), gotmpl: gt.String()} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return tpl, params, prompt, gotmpl
}

// typedAssemblers returns the three assemblers of the typed comparison.
func typedAssemblers(tb testing.TB, dir string) []assembler {
	tpl, params, promptFile, goFile := typedFiles(tb, dir)
	ctx := context.Background()
	e := engine.Engine{Registry: presets.Default()}
	readValues := func() (map[string]any, error) {
		data, err := os.ReadFile(params)
		if err != nil {
			return nil, err
		}
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, err
		}
		return v, nil
	}
	return []assembler{
		{"tessera-typed", func() (string, error) {
			res, err := e.Assemble(ctx, engine.Request{Preset: typed.Name, Args: preset.Args{typed.InputTemplate: tpl, typed.InputParams: params}, NoLog: true, CorrelationID: "bench"})
			if err != nil {
				return "", err
			}
			return res.Prompt.Text, nil
		}},
		{"dotprompt", func() (string, error) {
			source, err := os.ReadFile(promptFile)
			if err != nil {
				return "", err
			}
			vals, err := readValues()
			if err != nil {
				return "", err
			}
			return renderDotprompt(source, vals)
		}},
		{"text-template", func() (string, error) {
			t, err := template.ParseFiles(goFile)
			if err != nil {
				return "", err
			}
			vals, err := readValues()
			if err != nil {
				return "", err
			}
			var b bytes.Buffer
			if err := t.Execute(&b, vals); err != nil {
				return "", err
			}
			return b.String(), nil
		}},
	}
}

// TestTypedPeersAgree checks that the three give the same text.
func TestTypedPeersAgree(t *testing.T) {
	as := typedAssemblers(t, t.TempDir())
	want, err := as[0].assemble()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(want, "## 5. Strict mode") {
		t.Fatalf("the typed text lacks its enabled section:\n%s", want)
	}
	agree(t, as, want)
}

// BenchmarkTypedPeers times the three interleaved, one call of each per
// round, and logs each one's median time per call, its ratio to
// tessera-typed's call of the same round, and allocations per call. No
// target: it shows where the typed preset stands beside the template
// engines a team would otherwise use.
func BenchmarkTypedPeers(b *testing.B) {
	interleave(b, typedAssemblers(b, b.TempDir()), "typed")
}
