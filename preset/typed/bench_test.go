package typed

import (
	"os"
	"testing"
)

// benchExample reads the example template, examples/typed/code-review.yaml.
func benchExample(b *testing.B) []byte {
	b.Helper()
	data, err := os.ReadFile("../../examples/typed/code-review.yaml")
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkParse parses the example template (3 KB: six parameters, six
// sections, a tool, an output schema and two fixtures), every check
// included. Target: TBD.
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
// substitution, the summary and its open_sections tool. Target: TBD.
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
