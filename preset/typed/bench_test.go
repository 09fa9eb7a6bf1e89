package typed

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/render"
)

// wideTree returns a template of n sections nested maxDepth deep.
func wideTree(n int) string {
	var b strings.Builder
	b.WriteString("ns: t\nkey: k\nsections:\n")
	made := 0
	var level func(depth int, indent string)
	level = func(depth int, indent string) {
		for i := 0; i < 4 && made < n; i++ {
			made++
			fmt.Fprintf(&b, "%s- key: s%d\n%s  title: Section %d\n%s  template: Text of section %d.\n", indent, made, indent, made, indent, made)
			if depth < maxDepth && made < n {
				fmt.Fprintf(&b, "%s  children:\n", indent)
				level(depth+1, indent+"    ")
			}
		}
	}
	for made < n {
		level(1, "  ")
	}
	return b.String()
}

// benchExample reads the example template, examples/typed/code-review.yaml.
func benchExample(b *testing.B) []byte {
	b.Helper()
	data, err := os.ReadFile("../../examples/typed/code-review.yaml")
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkParse parses the example template (3.3 KB: six parameters,
// seven sections, a tool, an array output whose schema is compiled, two
// fixtures), every check included; the file is read once, outside the
// loop. Target: under 1 ms and 3,000 allocations per parse on this
// 2-core machine (measured: about 300 µs, 500 µs under load, and 2,292
// allocations).
func BenchmarkParse(b *testing.B) {
	data := benchExample(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("code-review.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLayout lays out the parsed example template with its first
// fixture's values (small-change): defaults, enabled sections,
// substitution, the summary and its open_sections tool, the descriptor
// and the record's inputs. Target: under 20 µs and 100 allocations per
// layout on this 2-core machine (measured: about 6–8 µs and 58
// allocations).
func BenchmarkLayout(b *testing.B) {
	t, err := Parse("code-review.yaml", benchExample(b))
	if err != nil {
		b.Fatal(err)
	}
	vals, err := t.valuesOf(t.Path(), t.Fixtures[0].Params)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := t.Layout(vals, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderTwentySections lays out and renders a 20-section
// template (each a two-line paragraph with one placeholder). Target
// (issue 20): under 30 µs.
func BenchmarkRenderTwentySections(b *testing.B) {
	t, err := Parse("t.yaml", []byte(twentySections()))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		l, err := t.Layout(nil, Options{})
		if err != nil {
			b.Fatal(err)
		}
		_ = render.Render(l.Sections, l.Style)
	}
}

// BenchmarkParseTooDeep parses a 1,000-level section chain, which is
// refused at the first section past maxDepth. Target (issue 20, "a
// 1,000-level tree"): under 50 ms.
func BenchmarkParseTooDeep(b *testing.B) {
	data := []byte(chain(1000))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("t.yaml", data); err == nil {
			b.Fatal("parsed")
		}
	}
}

// BenchmarkRenderThousandSections lays out and renders a tree of 1,000
// sections nested maxDepth deep (five levels, each section with three
// or four children), the largest tree shape a template may have.
func BenchmarkRenderThousandSections(b *testing.B) {
	t, err := Parse("t.yaml", []byte(wideTree(1000)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		l, err := t.Layout(nil, Options{})
		if err != nil {
			b.Fatal(err)
		}
		_ = render.Render(l.Sections, l.Style)
	}
}
