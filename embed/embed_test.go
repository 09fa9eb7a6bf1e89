package embed

import (
	"context"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden from current output")

func TestCosine(t *testing.T) {
	for _, tt := range []struct {
		a, b Vector
		want float64
	}{
		{Vector{1, 0}, Vector{1, 0}, 1},
		{Vector{1, 0}, Vector{0, 1}, 0},
		{Vector{1, 0}, Vector{-1, 0}, -1},
		{Vector{3, 4}, Vector{6, 8}, 1},
		{Vector{0, 0}, Vector{1, 0}, 0},
		{Vector{1}, Vector{1, 0}, 0},
		{nil, nil, 0},
	} {
		if got := Cosine(tt.a, tt.b); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Cosine(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestRank(t *testing.T) {
	q := Vector{1, 0}
	cands := []Vector{{0, 1}, {1, 1}, {1, 0}, {1, 1}, {-1, 0}}
	got := Rank(q, cands, 0.5, 0)
	var idx []int
	for _, s := range got {
		idx = append(idx, s.Index)
	}
	if fmt.Sprint(idx) != "[2 1 3]" {
		t.Errorf("Rank order %v, want [2 1 3] (best first, ties in candidate order)", idx)
	}
	if got := Rank(q, cands, 0.5, 2); len(got) != 2 {
		t.Errorf("max 2: %v", got)
	}
}

func TestWords(t *testing.T) {
	got := strings.Join(Words("Análise: corrigir o BUG #42 — l'échéance, naïve café"), " ")
	want := "analise corrigir o bug 42 l echeance naive cafe"
	if got != want {
		t.Errorf("Words = %q, want %q", got, want)
	}
}

// TestHashSimilarity: texts that share words or word parts score higher
// than unrelated ones, accents and case aside; stop words alone do not
// make texts alike.
func TestHashSimilarity(t *testing.T) {
	h := Hash{}
	sim := func(a, b string) float64 { return Cosine(h.Vector(a), h.Vector(b)) }
	if s := sim("Run the failing tests", "run_tests: run the test suite"); s < 0.3 {
		t.Errorf("related texts score %.2f", s)
	}
	if s := sim("Run the failing tests", "The office coffee machine is on the third floor"); s > 0.1 {
		t.Errorf("texts sharing only stop words score %.2f", s)
	}
	if s := sim("ANÁLISE", "analise"); math.Abs(s-1) > 1e-6 {
		t.Errorf("accents and case change the vector: %.4f", s)
	}
	if v := h.Vector("the of and"); Cosine(v, v) != 0 {
		t.Error("a text of stop words alone is not the zero vector")
	}
	vs, err := h.Embed(context.Background(), []string{"a", "b"})
	if err != nil || len(vs) != 2 || len(vs[0]) != 256 || h.Name() != "hash-v1/256" || (Hash{Dim: 64}).Name() != "hash-v1/64" {
		t.Errorf("Embed: %d vectors, %v, %s", len(vs), err, h.Name())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.Embed(ctx, []string{"a"}); err == nil {
		t.Error("a cancelled context embedded")
	}
}

// TestHashGolden pins the vectors' bits: the same text gives the same
// vector on every OS and architecture, and a change to the embedder
// (which would strand every stored vector) shows in the diff.
func TestHashGolden(t *testing.T) {
	var b strings.Builder
	for _, text := range []string{"Fix the failing invoice tests", "Revisar as alterações do último commit", "日本語のテキスト", ""} {
		v := Hash{Dim: 16}.Vector(text)
		fmt.Fprintf(&b, "%q:", text)
		for _, x := range v {
			fmt.Fprintf(&b, " %08x", math.Float32bits(x))
		}
		b.WriteByte('\n')
	}
	golden.Compare(t, filepath.Join("testdata", "golden", "hash16.txt"), []byte(b.String()), *update)
}
