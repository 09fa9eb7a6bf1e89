package peers

import (
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
			start := processCPU()
			for b.Loop() {
				c.count(pool[i%len(pool)])
				i++
			}
			reportCPU(b, start, i*10<<10)
		})
	}
}

// kind is one kind of text: the same files and runs the tokenizer
// package's BenchmarkCountKind counts (its kinds list), all checked
// against OpenAI's tokenizer by the tokenizer's tests.
type kind struct {
	name   string
	file   string // under tokenizer/testdata; empty for a run
	repeat string
	times  int
	slow   bool // skipped for pkoukk-tiktoken-go, whose merge is quadratic
}

var kinds = []kind{
	{name: "prose", file: "kinds/prose.txt"},
	{name: "code", file: "corpus/code.go.txt"},
	{name: "cjk", file: "kinds/cjk.txt"},
	{name: "cyrillic", file: "kinds/cyrillic.txt"},
	{name: "arabic", file: "kinds/arabic.txt"},
	{name: "devanagari", file: "kinds/devanagari.txt"},
	{name: "emoji", file: "kinds/emoji.txt"},
	{name: "random", file: "kinds/random.txt"},
	{name: "run-a-20k", repeat: "a", times: 20_000},
	{name: "run-a-100k", repeat: "a", times: 100_000, slow: true},
}

func (k kind) text(tb testing.TB) string {
	tb.Helper()
	if k.file == "" {
		return strings.Repeat(k.repeat, k.times)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "tokenizer", "testdata", filepath.FromSlash(k.file)))
	if err != nil {
		tb.Fatal(err)
	}
	return string(data)
}

// BenchmarkCountKind counts each kind of text with each library:
// BenchmarkCountKind/KIND/LIBRARY. No library keeps a cache of results,
// so counting the same text again costs what counting it first does.
// Target: Tessera at least 3× tiktoken-go-tokenizer on every kind.
func BenchmarkCountKind(b *testing.B) {
	cs := counters(b)
	for _, k := range kinds {
		text := k.text(b)
		for _, c := range cs {
			if k.slow && c.name == "pkoukk-tiktoken-go" {
				continue
			}
			b.Run(k.name+"/"+c.name, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				n, start := 0, processCPU()
				for b.Loop() {
					c.count(text)
					n++
				}
				reportCPU(b, start, n*len(text))
			})
		}
	}
}

// reportCPU reports the bytes counted since start per second of the
// process's CPU time, as cpu-MB/s. On a machine shared with other work,
// wall-clock MB/s also counts the time the cores ran something else; CPU
// time leaves that out (but keeps the garbage collector's work, in every
// thread).
func reportCPU(b *testing.B, start time.Duration, bytes int) {
	if d := processCPU() - start; start > 0 && d > 0 {
		b.ReportMetric(float64(bytes)/d.Seconds()/1e6, "cpu-MB/s")
	}
}

// TestAgreeKinds logs where the peers' counts of the kinds' texts differ
// from Tessera's.
func TestAgreeKinds(t *testing.T) {
	cs := counters(t)
	for _, k := range kinds {
		if k.slow {
			continue
		}
		text := k.text(t)
		want := cs[0].count(text)
		for _, c := range cs[1:] {
			if got := c.count(text); got != want {
				t.Logf("%s: %s counts %d, tessera %d (%+.2f%%)", k.name, c.name, got, want, 100*float64(got-want)/float64(want))
			}
		}
	}
}

var writeTexts = flag.String("write-texts", "", "write the benchmark texts as JSON to this file, for the WASM reference timing")

// TestWriteTexts writes the benchmark texts for wasm.cjs when asked: the
// 10 KB mixed texts and each kind's text, by name.
func TestWriteTexts(t *testing.T) {
	if *writeTexts == "" {
		t.Skip("no -write-texts")
	}
	type named struct {
		Name string `json:"name"`
		Text string `json:"text"`
		Slow bool   `json:"slow,omitempty"`
	}
	out := struct {
		Mixed []string `json:"mixed"`
		Kinds []named  `json:"kinds"`
	}{Mixed: texts(t, 512, 10<<10)}
	for _, k := range kinds {
		out.Kinds = append(out.Kinds, named{k.name, k.text(t), k.slow})
	}
	data, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*writeTexts, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
