package tokenizer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mixedText returns the 10 KB mixed corpus file (prose, CJK, emoji, code,
// JSON, Markdown), repeated and cut to n bytes on a character boundary.
func mixedText(b *testing.B, n int) string {
	b.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "corpus", "mixed-10k.txt"))
	if err != nil {
		b.Fatal(err)
	}
	s := strings.Repeat(string(data), n/len(data)+1)[:n]
	return strings.ToValidUTF8(s, "")
}

// benchCount counts text in a loop. Besides MB/s of the wall clock it
// reports cpu-MB/s, per second of the process's CPU time, which leaves
// out the time a shared machine gives other work.
func benchCount(b *testing.B, e *Encoding, text string) {
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	n, start := 0, processCPU()
	for b.Loop() {
		e.Count(text)
		n++
	}
	if d := processCPU() - start; start > 0 && d > 0 {
		b.ReportMetric(float64(n*len(text))/d.Seconds()/1e6, "cpu-MB/s")
	}
}

// BenchmarkCount10KB counts 10 KB of mixed text. The encoder keeps no
// cache between calls, so every iteration counts text it has not seen.
// Target: at least 25 MB/s.
func BenchmarkCount10KB(b *testing.B) {
	for _, e := range []*Encoding{O200kBase(), Cl100kBase()} {
		b.Run(e.Name(), func(b *testing.B) { benchCount(b, e, mixedText(b, 10<<10)) })
	}
}

// BenchmarkCount1MB counts 1 MB of mixed text. Target: at least 25 MB/s.
func BenchmarkCount1MB(b *testing.B) {
	for _, e := range []*Encoding{O200kBase(), Cl100kBase()} {
		b.Run(e.Name(), func(b *testing.B) { benchCount(b, e, mixedText(b, 1<<20)) })
	}
}

// BenchmarkCountRepeated counts long runs of one character, which are one
// piece each for the letter and whitespace cases. Target: 100 KB in under
// 5 ms of CPU time (at least 20 cpu-MB/s), and linear, not quadratic, in
// the run's length: 100 KB no slower per byte than 50 KB.
func BenchmarkCountRepeated(b *testing.B) {
	for _, size := range []int{50_000, 100_000} {
		for _, ch := range []string{"a", " ", "7"} {
			text := strings.Repeat(ch, size)
			name := map[string]string{"a": "letter", " ": "space", "7": "digit"}[ch]
			b.Run(fmt.Sprintf("%s/%dKB", name, size/1000), func(b *testing.B) { benchCount(b, O200kBase(), text) })
		}
	}
}

// BenchmarkCountKind counts, with o200k_base, the text of each kind in
// kinds: English prose, Go code, CJK, Cyrillic, Arabic, Devanagari, emoji,
// random code points, and 20,000 and 100,000 × "a" (one piece each).
// Targets: at least 50 MB/s on every script, emoji and random code
// points (prose and code at least 100 MB/s), and at least 3×
// github.com/tiktoken-go/tokenizer on every kind, the runs of one
// character included, which bench/peers measures in the same run. On a
// machine shared with other work, read cpu-MB/s.
func BenchmarkCountKind(b *testing.B) {
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) { benchCount(b, O200kBase(), k.text(b)) })
	}
}

// BenchmarkLoad measures reading an embedded vocabulary and building its
// rank table, which happens once per process on first use.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := load(O200kBaseName, o200kData, nextO200K); err != nil {
			b.Fatal(err)
		}
	}
}
