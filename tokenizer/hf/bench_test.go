package hf

import (
	"strings"
	"testing"
	"time"

	"github.com/tessera-dev/tessera/tokenizer"
)

// BenchmarkLoad parses each reference tokenizer.json from memory (the
// file already read and decompressed). Target: under 300 ms for the
// 262,144-entry Gemma 3 vocabulary (with its 514,906 merges). cpu-ms/op
// is the process's CPU time per load, the garbage collector's included,
// which a busy machine does not inflate as it does the wall clock.
func BenchmarkLoad(b *testing.B) {
	for _, m := range refModels {
		data := readGz(b, m+".tokenizer.json.gz")
		b.Run(m, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			n, start := 0, processCPU()
			for b.Loop() {
				if _, err := Parse(data); err != nil {
					b.Fatal(err)
				}
				n++
			}
			if d := processCPU() - start; start > 0 && d > 0 {
				b.ReportMetric(float64(d.Milliseconds())/float64(n), "cpu-ms/op")
			}
		})
	}
}

// BenchmarkCountCorpus counts the whole 2 MB reference corpus with each
// model. bench/peers/hftok/reference.cjs times the JavaScript reference
// on the same texts (testdata/reference.json). Target: at least as fast
// per byte as o200k_base on the same texts (docs/TOKENIZERS.md), and
// faster than the JavaScript reference. Each iteration starts with an
// empty word cache.
func BenchmarkCountCorpus(b *testing.B) {
	texts := corpus(b)
	size := 0
	for _, c := range texts {
		size += len(c.Text)
	}
	for _, m := range refModels {
		tk := testTokenizer(b, m)
		b.Run(m, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			n, start := 0, processCPU()
			for b.Loop() {
				tk.cache.reset() // every iteration starts cold
				for _, c := range texts {
					tk.Count(c.Text)
				}
				n++
			}
			reportCPU(b, n*size, start)
		})
	}
}

// BenchmarkCountKind counts the per-script texts of package tokenizer's
// BenchmarkCountKind (tokenizer/testdata/kinds) with each model, to set
// against o200k_base's figures per byte. Each iteration starts with an
// empty word cache, so a word is merged again in every iteration (and
// once per text, however often the text repeats it). Target: at least
// o200k_base's MB/s on the same text.
func BenchmarkCountKind(b *testing.B) {
	var kinds []corpusText
	for _, c := range corpus(b) {
		if strings.HasPrefix(c.Name, "kinds/") {
			kinds = append(kinds, c)
		}
	}
	o200k := tokenizer.O200kBase()
	for _, k := range kinds {
		kind := strings.TrimSuffix(strings.TrimPrefix(k.Name, "kinds/"), ".txt")
		// o200k_base first, on the same text in the same process.
		b.Run(kind+"/o200k_base", func(b *testing.B) {
			b.SetBytes(int64(len(k.Text)))
			b.ReportAllocs()
			n, start := 0, processCPU()
			for b.Loop() {
				o200k.Count(k.Text)
				n++
			}
			reportCPU(b, n*len(k.Text), start)
		})
		for _, m := range refModels {
			tk := testTokenizer(b, m)
			b.Run(kind+"/"+m, func(b *testing.B) {
				b.SetBytes(int64(len(k.Text)))
				b.ReportAllocs()
				n, start := 0, processCPU()
				for b.Loop() {
					tk.cache.reset() // every iteration starts cold
					tk.Count(k.Text)
					n++
				}
				reportCPU(b, n*len(k.Text), start)
			})
		}
	}
}

// reportCPU reports cpu-MB/s: bytes counted per second of the process's
// CPU time, which leaves out the time a shared machine gives other work
// (as package tokenizer's benchmarks do).
func reportCPU(b *testing.B, bytes int, start time.Duration) {
	if d := processCPU() - start; start > 0 && d > 0 {
		b.ReportMetric(float64(bytes)/d.Seconds()/1e6, "cpu-MB/s")
	}
}
