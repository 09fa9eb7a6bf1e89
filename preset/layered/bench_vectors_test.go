package layered

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/embed"
)

// benchVectors is a vectors file of 17 tools, 4 skills and the built-in
// injection examples, 768 numbers each: what nomic-embed-text makes for
// a catalog the size of issue 21's.
func benchVectors(b *testing.B) (map[string]string, []byte) {
	var y strings.Builder
	y.WriteString("tools:\n")
	for i := range 17 {
		fmt.Fprintf(&y, "  - {name: tool_%d, description: Tool number %d reads and writes files.}\n", i, i)
	}
	y.WriteString("skills:\n")
	for i := range 4 {
		fmt.Fprintf(&y, "  - {name: skill_%d, description: Skill number %d.}\n", i, i)
	}
	files := map[string]string{"layered.yaml": y.String()}
	s, err := ParseSetup(memFiles(files))
	if err != nil {
		b.Fatal(err)
	}
	v, _, err := EmbedVectors(context.Background(), s, embed.Hash{Dim: 768}, nil, false, 0, nil)
	if err != nil {
		b.Fatal(err)
	}
	return files, v.Marshal()
}

// BenchmarkParseVectors reads that file, as every CLI assembly does.
func BenchmarkParseVectors(b *testing.B) {
	_, data := benchVectors(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseVectors("vectors.json", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSelectPrecomputed is a CLI assembly's selection: a new
// Assembler over a setup whose vectors.json holds every manifest vector,
// so the only embedding is the task's (here the lexical embedder at 768
// buckets, named as the vectors are).
func BenchmarkSelectPrecomputed(b *testing.B) {
	files, data := benchVectors(b)
	files["vectors.json"] = string(data)
	s, err := ParseSetup(memFiles(files))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		sel, err := (&Assembler{Setup: s, Embedder: embed.Hash{Dim: 768}}).Select(ctx, Request{Task: "Fix the failing invoice tests"})
		if err != nil || sel.Metrics.EmbeddingCalls != 1 {
			b.Fatal(err, sel)
		}
	}
}
