package canonical

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkRender renders design 004's example spec
// (examples/canonical/v2-example.yaml, 1.4 KB of output). Target: under
// 20 µs per render on the reference machine (docs/PERFORMANCE.md).
//
// "assemble" is the whole of Assemble: validation, redaction with the
// built-in patterns, layout and render, hashes included. "sections" is
// Render alone over laid-out sections, what a budget stage pays each
// time it trims and renders again.
func BenchmarkRender(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "canonical", "v2-example.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	spec, err := ParseSpec("v2-example.yaml", data)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("assemble", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Assemble(ctx, spec, Config{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sections", func(b *testing.B) {
		res, err := Assemble(ctx, spec, Config{})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(res.Prompt.Text)))
		b.ReportAllocs()
		for b.Loop() {
			Render(res.Sections, res.Config)
		}
	})
}

// BenchmarkParseSpec parses the example spec file (1.4 KB) and the
// assembly fixture's spec (11 KB, testdata/assembly/spec.yaml), both in
// the part of YAML yamldoc's fast reader reads, and validates them
// (yamldoc's BenchmarkParseText compares the fast reader with the YAML
// parser). Target: the fixture under 50 µs.
func BenchmarkParseSpec(b *testing.B) {
	for _, c := range []struct{ name, path string }{
		{"v2-example", filepath.Join("..", "..", "examples", "canonical", "v2-example.yaml")},
		{"assembly", filepath.Join("testdata", "assembly", "spec.yaml")},
	} {
		data, err := os.ReadFile(c.path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseSpec(c.name, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
