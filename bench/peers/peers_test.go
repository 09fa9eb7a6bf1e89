package peers

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pkoukk "github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
	tiktokengo "github.com/tiktoken-go/tokenizer"

	"github.com/tessera-dev/tessera/tokenizer"
)

// counter is what each library is reduced to for the benchmark.
type counter struct {
	name  string
	count func(string) int
}

func counters(tb testing.TB) []counter {
	tb.Helper()
	tg, err := tiktokengo.Get(tiktokengo.O200kBase)
	if err != nil {
		tb.Fatal(err)
	}
	pkoukk.SetBpeLoader(loader.NewOfflineLoader())
	pk, err := pkoukk.GetEncoding("o200k_base")
	if err != nil {
		tb.Fatal(err)
	}
	te := tokenizer.O200kBase()
	return []counter{
		{"tessera", te.Count},
		{"tiktoken-go-tokenizer", func(s string) int { n, _ := tg.Count(s); return n }},
		{"pkoukk-tiktoken-go", func(s string) int { return len(pk.EncodeOrdinary(s)) }},
	}
}

// texts returns n distinct texts of size bytes: windows over the
// tokenizer corpus with its lines shuffled differently for each, so no
// text repeats and a cache of whole texts cannot help.
func texts(tb testing.TB, n, size int) []string {
	tb.Helper()
	dir := filepath.Join("..", "..", "tokenizer", "testdata", "corpus")
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var lines []string
	for _, e := range entries {
		if e.Name() == "mixed-10k.txt" || e.Name() == "base64.txt" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		lines = append(lines, strings.SplitAfter(string(data), "\n")...)
	}
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for b.Len() < size {
			b.WriteString(lines[r.IntN(len(lines))])
		}
		out[i] = strings.ToValidUTF8(b.String()[:size], "")
	}
	return out
}

// TestAgree checks that the peers count the benchmark texts as Tessera
// does, or reports by how much they differ.
func TestAgree(t *testing.T) {
	cs := counters(t)
	for i, text := range texts(t, 20, 10<<10) {
		want := cs[0].count(text)
		for _, c := range cs[1:] {
			if got := c.count(text); got != want {
				t.Logf("text %d: %s counts %d, tessera %d (%+.2f%%)", i, c.name, got, want, 100*float64(got-want)/float64(want))
			}
		}
	}
}

// BenchmarkCount10KB counts 10 KB texts never seen before in the process.
func BenchmarkCount10KB(b *testing.B) {
	pool := texts(b, 512, 10<<10)
	for _, c := range counters(b) {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(10 << 10)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				c.count(pool[i%len(pool)])
				i++
			}
		})
	}
}

// BenchmarkCountRepeated counts 20 KB of one letter: a single piece, where
// a quadratic merge shows.
func BenchmarkCountRepeated(b *testing.B) {
	for _, size := range []int{20_000} {
		text := strings.Repeat("a", size)
		for _, c := range counters(b) {
			b.Run(fmt.Sprintf("%s/%dKB", c.name, size/1000), func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					c.count(text)
				}
			})
		}
	}
}

var writeTexts = flag.String("write-texts", "", "write the 10 KB benchmark texts as a JSON array to this file, for the WASM reference timing")

// TestWriteTexts writes the benchmark texts for wasm.cjs when asked.
func TestWriteTexts(t *testing.T) {
	if *writeTexts == "" {
		t.Skip("no -write-texts")
	}
	data, err := json.Marshal(texts(t, 512, 10<<10))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*writeTexts, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
