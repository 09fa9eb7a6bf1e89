package yamldoc

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParseText reads the canonical preset's 11 KB assembly spec
// and the example catalog's tessera.yaml (examples/) with ParseText, which takes the
// fast reader for both, and with the YAML parser alone ("parser"), as
// ParseText reads a text outside the fast subset.
func BenchmarkParseText(b *testing.B) {
	for _, c := range []struct{ name, path string }{
		{"spec", filepath.Join("..", "..", "preset", "canonical", "testdata", "assembly", "spec.yaml")},
		{"config", filepath.Join("..", "..", "examples", "tessera.yaml")},
	} {
		data, err := os.ReadFile(c.path)
		if err != nil {
			b.Fatal(err)
		}
		text := string(data)
		p := Parser{Columns: true}
		b.Run(c.name+"/fast", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := fastParse(text, true); !ok {
					b.Fatal("not read by the fast reader")
				}
			}
		})
		b.Run(c.name+"/parser", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.parseText(c.name, text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
