package peers

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/google/dotprompt/go/dotprompt"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/presets"
)

// The assembly comparison: one 8.5 KB prompt assembled four ways, each
// from files on disk to the final text on every call, as a program that
// assembles one prompt per run does:
//
//   - tessera-canonical: engine.Assemble of the 11 KB canonical spec
//     (read, parse, validate, redact, lay out, render, hash, record);
//   - tessera-catalog: catalog.Open and engine.Assemble of the node
//     whose template and includes give the same text (read and parse
//     tessera.yaml, the workflow and the template, read the includes,
//     resolve, hash, record);
//   - dotprompt: google/dotprompt's Go implementation rendering a .prompt
//     file (front matter with an input schema, then the template with
//     {{state}}, {{task}} and {{input}}), the three parts read from the
//     catalog's files;
//   - text-template: text/template parsing the same template with
//     {{.State}}, {{.Task}} and {{.Input}}, the same parts.
//
// The spec and the catalog are preset/canonical/testdata/assembly (see
// preset/canonical/assembly_fixture_test.go); the .prompt file and the
// Go template are made from the catalog's template when the benchmark
// starts, so all four have one source. TestAssemblyPeersAgree checks that
// all four give the same text, byte for byte.
//
// Tessera does more per call than the two template engines: it hashes
// the text (and, for the canonical spec, every section), writes the
// audit record, and for the spec redacts secrets and personal data; the
// peers only substitute text.

var assemblyDir = filepath.Join("..", "..", "preset", "canonical", "testdata", "assembly")

// assembler is one way of assembling the fixture's text.
type assembler struct {
	name     string
	assemble func() (string, error)
}

// assemblers returns the four assemblers, their template files written
// under dir.
func assemblers(tb testing.TB, dir string) []assembler {
	tb.Helper()
	tmpl, err := os.ReadFile(filepath.Join(assemblyDir, "tasks", "prompt.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	// The catalog's template with its $$ lines as the engines' variables.
	subst := func(state, task, input string) string {
		return strings.NewReplacer("$$STATE", state, "$$include parts/task.txt", task, "$$INPUT", input).Replace(string(tmpl))
	}
	promptFile := filepath.Join(dir, "prompt.prompt")
	front := "---\nmodel: googleai/gemini-2.5-flash\ninput:\n  schema:\n    state: string, the conversation state section\n    task: string, the task section\n    input: string, the input section\n---\n"
	if err := os.WriteFile(promptFile, []byte(front+subst("{{state}}", "{{task}}", "{{input}}")), 0o644); err != nil {
		tb.Fatal(err)
	}
	goFile := filepath.Join(dir, "prompt.tmpl")
	if err := os.WriteFile(goFile, []byte(subst("{{.State}}", "{{.Task}}", "{{.Input}}")), 0o644); err != nil {
		tb.Fatal(err)
	}
	// parts reads the three parts, as the catalog resolves them: each
	// file's text without its final line break.
	parts := func() (state, task, input string, err error) {
		var out [3]string
		for i, name := range []string{"state", "task", "input"} {
			data, err := os.ReadFile(filepath.Join(assemblyDir, "parts", name+".txt"))
			if err != nil {
				return "", "", "", err
			}
			out[i] = strings.TrimSuffix(string(data), "\n")
		}
		return out[0], out[1], out[2], nil
	}

	ctx := context.Background()
	e := engine.Engine{Registry: presets.Default()}
	spec := filepath.Join(assemblyDir, "spec.yaml")
	return []assembler{
		{"tessera-canonical", func() (string, error) {
			res, err := e.Assemble(ctx, engine.Request{Preset: "canonical", Args: preset.Args{"spec": spec}, NoLog: true, CorrelationID: "bench"})
			if err != nil {
				return "", err
			}
			return res.Prompt.Text, nil
		}},
		{"tessera-catalog", func() (string, error) {
			c, err := catalog.Open(ctx, assemblyDir, presets.Default().Sections()...)
			if err != nil {
				return "", err
			}
			defer c.Close()
			res, err := e.Assemble(ctx, engine.Request{Preset: "template", Args: preset.Args{"workflow": "assembly", "node": "prompt"}, Catalog: c, NoLog: true, CorrelationID: "bench"})
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
			state, task, input, err := parts()
			if err != nil {
				return "", err
			}
			return renderDotprompt(source, map[string]any{"state": state, "task": task, "input": input})
		}},
		{"text-template", func() (string, error) {
			t, err := template.ParseFiles(goFile)
			if err != nil {
				return "", err
			}
			state, task, input, err := parts()
			if err != nil {
				return "", err
			}
			var b bytes.Buffer
			if err := t.Execute(&b, struct{ State, Task, Input string }{state, task, input}); err != nil {
				return "", err
			}
			return b.String(), nil
		}},
	}
}

// renderDotprompt renders a .prompt file's source with input through
// google/dotprompt and returns the text of its messages, joined.
func renderDotprompt(source []byte, input map[string]any) (string, error) {
	out, err := dotprompt.NewDotprompt(nil).Render(string(source), &dotprompt.DataArgument{Input: input}, nil)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, m := range out.Messages {
		for _, p := range m.Content {
			if t, ok := p.(*dotprompt.TextPart); ok {
				b.WriteString(t.Text)
			}
		}
	}
	return b.String(), nil
}

// TestAssemblyPeersAgree checks that the four assemblers give the same
// text, so the benchmark compares like with like.
func TestAssemblyPeersAgree(t *testing.T) {
	as := assemblers(t, t.TempDir())
	want, err := as[0].assemble()
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 8000 {
		t.Fatalf("the canonical text is %d bytes, want about 8.5 KB", len(want))
	}
	agree(t, as, want)
}

// agree checks that every assembler after the first gives want, the
// first's text, and shows where one does not.
func agree(t *testing.T, as []assembler, want string) {
	t.Helper()
	for _, a := range as[1:] {
		got, err := a.assemble()
		if err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
		if got != want {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s differs from %s at byte %d:\n%q\nwant\n%q", a.name, as[0].name, i, got[max(0, i-40):min(len(got), i+40)], want[max(0, i-40):min(len(want), i+40)])
		}
	}
}

// BenchmarkAssemblyPeers times each assembler on its own, then all four
// interleaved in one loop ("interleaved"), so that every one sees the
// same machine; that run reports each one's median time per call and the
// median of its ratio to the canonical call of the same round, with
// allocations per call, and logs them as a table. Target: the canonical
// spec within 2× of the catalog (as in preset/canonical's
// BenchmarkAssembly); the peers have none, they show where Tessera
// stands.
func BenchmarkAssemblyPeers(b *testing.B) {
	as := assemblers(b, b.TempDir())
	for _, a := range as {
		b.Run(a.name, func(b *testing.B) {
			text, err := a.assemble()
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := a.assemble(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("interleaved", func(b *testing.B) { interleave(b, as, "canonical") })
}

// interleave times the assemblers in rounds, one call of each per round,
// so that every one sees the same machine; it reports each one's median
// time per call and the median of its ratio to the first one's call of
// the same round, with allocations per call, and logs them as a table
// whose ratio columns are headed "× "+first.
func interleave(b *testing.B, as []assembler, first string) {
	allocs := make([]float64, len(as))
	for i, a := range as {
		allocs[i] = testing.AllocsPerRun(20, func() {
			if _, err := a.assemble(); err != nil {
				b.Fatal(err)
			}
		})
	}
	// Each call's time, and its ratio to the first call of the same
	// round; medians, so that a pause of the machine in one call does
	// not count for all of them.
	took := make([][]float64, len(as))
	ratio := make([][]float64, len(as))
	for b.Loop() {
		var base float64
		for i, a := range as {
			t0 := time.Now()
			if _, err := a.assemble(); err != nil {
				b.Fatal(err)
			}
			d := float64(time.Since(t0))
			if i == 0 {
				base = d
			}
			took[i] = append(took[i], d)
			ratio[i] = append(ratio[i], d/base)
		}
	}
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-18s %12s %12s %12s %12s\n", "", "µs/op", "× "+first, "allocs/op", "× "+first)
	for i, a := range as {
		us, x := medianOf(took[i])/1e3, medianOf(ratio[i])
		fmt.Fprintf(&table, "%-18s %12.1f %12.2f %12.0f %12.2f\n", a.name, us, x, allocs[i], allocs[i]/allocs[0])
		b.ReportMetric(us, a.name+"-µs/op")
		if i > 0 {
			b.ReportMetric(x, a.name+"-x")
		}
	}
	b.Log(table.String())
}

// medianOf returns the median of v, which it sorts.
func medianOf(v []float64) float64 {
	slices.Sort(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}
