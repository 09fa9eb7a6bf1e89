package peers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/tokenizer"
)

// The budget comparison fits the same sections into the same o200k_base
// budget with Tessera and with Priompt, Anysphere's prompt library, run
// under Node by priompt/fit.cjs. The inputs are generated here, written
// as JSON for the script (-write-budget-inputs), and the script's results
// are kept in testdata/priompt.json so that this test runs without Node.
// To regenerate them:
//
//	go test -run TestWriteBudgetInputs -write-budget-inputs priompt/inputs.json .
//	(cd priompt && npm ci && node fit.cjs inputs.json ../testdata/priompt.json)
//
// Both sides see the same bytes: each section is one piece of text (its
// heading, body and the blank line after it), and a prompt is the kept
// pieces in order, so the same kept set gives the same text to both.
// Priompt keeps every scope at or above a priority cutoff it finds by
// binary search on the exact count; each section is a scope, and its
// priority gives Priompt Tessera's own order of importance (each section
// its own level, so Priompt never has to drop a tie together). Sections
// Tessera never trims are text outside any scope, which Priompt keeps.

var writeBudgetInputs = flag.String("write-budget-inputs", "", "write the budget comparison's inputs as JSON to this file, for priompt/fit.cjs")

// budgetSection is one section of a comparison input.
type budgetSection struct {
	Key  string `json:"key"`
	Text string `json:"text"`
	// Priority is Tessera's: lower is more important.
	Priority int  `json:"-"`
	Never    bool `json:"never,omitempty"`
	// Rank is the priority Priompt is given: higher is kept longer,
	// in Tessera's order (0 for a section that is never trimmed).
	Rank int `json:"rank"`
}

// budgetInput is one comparison input: sections and a token limit.
type budgetInput struct {
	Name     string          `json:"name"`
	Limit    int             `json:"limit"`
	Sections []budgetSection `json:"sections"`
}

// digest identifies an input's content, so that stale Priompt results
// are noticed.
func (in budgetInput) digest() string {
	data, err := json.Marshal(in)
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

var budgetVocab = strings.Fields(`the model reads each section in order and keeps what the task needs
while the budget trims what it can spare from memory tools notes transcripts retrieval
results config deploy cluster region latency p99 error retry backoff timeout request
response header token cache hit miss shard replica leader follower commit rollback
migration schema index query plan user account billing invoice refund policy
customer ticket escalation review approve reject merge branch release tag build
test fixture golden snapshot benchmark profile trace span metric alert page oncall
2024-06-01 v1.42.0 404 500 0x1f 3.14159 1e-9 100ms 250KB 8GiB :: -> => != == <= >=
func() {} [] ; // /* */ # $ % & * + = | \ ~ ^ café naïve résumé 東京 北京 서울 🚀 ✅ 📦 λ Ω`)

// budgetText returns a section's text of about n words: a heading, then
// lines of words, code-like runs, numbers and the odd non-Latin word.
func budgetText(r *rand.Rand, title string, n int) string {
	var b strings.Builder
	b.WriteString("## ")
	b.WriteString(title)
	b.WriteString("\n")
	for i := range n {
		switch {
		case i == 0:
		case i%17 == 0:
			b.WriteString("\n")
			if r.IntN(5) == 0 {
				b.WriteString("- ")
			}
		default:
			b.WriteByte(' ')
		}
		b.WriteString(budgetVocab[r.IntN(len(budgetVocab))])
	}
	b.WriteString("\n\n")
	return b.String()
}

// budgetCode returns a section of about n words as indented code lines
// after a blank line. The blank line's line end runs on from the line end
// that closes the section before, and a tokenizer counts the two together
// as fewer tokens than apart.
func budgetCode(r *rand.Rand, i, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n    func chunk%d() {\n", i)
	for w := 0; w < n; {
		b.WriteString("        ")
		for k := 0; k < 6 && w < n; k++ {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(budgetVocab[r.IntN(len(budgetVocab))])
			w++
		}
		b.WriteString("\n")
	}
	b.WriteString("    }\n")
	return b.String()
}

// size draws a section's size in words: mostly small and medium, a few
// large.
func size(r *rand.Rand) int {
	switch x := r.IntN(20); {
	case x < 8:
		return 5 + r.IntN(30)
	case x < 17:
		return 40 + r.IntN(200)
	default:
		return 300 + r.IntN(900)
	}
}

// budgetInputs returns the comparison inputs. Each budget is a share of
// the whole prompt's count, so every input trims.
func budgetInputs() []budgetInput {
	c := tokenizer.O200kBase()
	build := func(name string, seed uint64, n, never, levels int, share float64, shape func(r *rand.Rand, i int) (prio, words int)) budgetInput {
		r := rand.New(rand.NewPCG(seed, 99))
		in := budgetInput{Name: name}
		total := ""
		for i := range n {
			prio, words := shape(r, i)
			s := budgetSection{Key: fmt.Sprintf("s%03d", i), Priority: prio % levels, Never: i < never}
			if strings.HasPrefix(name, "code") {
				s.Text = budgetCode(r, i, words)
			} else {
				s.Text = budgetText(r, fmt.Sprintf("Section %d", i), words)
			}
			in.Sections = append(in.Sections, s)
			total += s.Text
		}
		in.Limit = int(share * float64(c.Count(total)))
		rankSections(in.Sections)
		return in
	}
	random := func(r *rand.Rand, i int) (int, int) { return r.IntN(1000), size(r) }
	return []budgetInput{
		build("mixed-10", 1, 10, 1, 4, 0.6, random),
		build("mixed-66", 2, 66, 2, 8, 0.5, random),
		// A conversation: the newest message matters most, and sizes vary
		// from a word to a pasted log.
		build("chat-120", 3, 120, 1, 1000, 0.4, func(r *rand.Rand, i int) (int, int) { return 120 - i, size(r) }),
		// Retrieved chunks ranked by relevance in ten bands, similar sizes.
		build("docs-200", 4, 200, 2, 10, 0.35, func(r *rand.Rand, i int) (int, int) { return r.IntN(10), 60 + r.IntN(240) }),
		build("mixed-500", 5, 500, 3, 20, 0.45, random),
		// Code chunks ranked in eight bands, each after a blank line.
		build("code-300", 6, 300, 1, 8, 0.5, func(r *rand.Rand, i int) (int, int) { return r.IntN(8), 10 + r.IntN(120) }),
	}
}

// rankSections gives each section Priompt's priority: its position in
// Tessera's order of importance (lowest priority number first, then the
// earlier section), counted so that the most important is highest.
func rankSections(secs []budgetSection) {
	idx := make([]int, 0, len(secs))
	for i, s := range secs {
		if !s.Never {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if secs[a].Priority != secs[b].Priority {
			return secs[b].Priority - secs[a].Priority
		}
		return b - a
	})
	for rank, i := range idx {
		secs[i].Rank = rank + 1
	}
}

// sections turns an input into Tessera's sections.
func (in budgetInput) sections() []prompt.Section {
	out := make([]prompt.Section, len(in.Sections))
	for i, s := range in.Sections {
		out[i] = prompt.Section{Key: s.Key, Body: s.Text, Priority: s.Priority, Trim: prompt.TrimDrop}
		if s.Never {
			out[i].Trim = prompt.TrimNever
		}
	}
	return out
}

// concat renders sections as their texts one after the other, as
// Priompt does with the scopes it keeps.
func concat(secs []prompt.Section) prompt.Prompt {
	var b strings.Builder
	spans := make([]prompt.SectionSpan, 0, len(secs))
	for _, s := range secs {
		start := b.Len()
		b.WriteString(s.Body)
		spans = append(spans, prompt.SectionSpan{Key: s.Key, Start: start, End: b.Len(), Hash: prompt.Hash(s.Body)})
	}
	text := b.String()
	return prompt.Prompt{Text: text, Hash: prompt.Hash(text), Sections: spans}
}

// priomptResult is what fit.cjs reports for one input.
type priomptResult struct {
	Name   string   `json:"name"`
	Digest string   `json:"digest"`
	Limit  int      `json:"limit"`
	Kept   []string `json:"kept"`
	Tokens int      `json:"tokens"`
	SHA256 string   `json:"sha256"`
}

type priomptFile struct {
	Library string          `json:"library"`
	Version string          `json:"version"`
	Results []priomptResult `json:"results"`
}

func loadPriompt(tb testing.TB) priomptFile {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "priompt.json"))
	if err != nil {
		tb.Fatalf("%v: regenerate it as budget_test.go says", err)
	}
	var pf priomptFile
	if err := json.Unmarshal(data, &pf); err != nil {
		tb.Fatalf("testdata/priompt.json: %v", err)
	}
	return pf
}

// TestWriteBudgetInputs writes the comparison inputs for fit.cjs when
// asked, with each input's digest.
func TestWriteBudgetInputs(t *testing.T) {
	if *writeBudgetInputs == "" {
		t.Skip("no -write-budget-inputs")
	}
	type withDigest struct {
		budgetInput
		Digest string `json:"digest"`
	}
	var out []withDigest
	for _, in := range budgetInputs() {
		out = append(out, withDigest{in, in.digest()})
	}
	data, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*writeBudgetInputs, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// budgetRow is one input's outcome on both sides.
type budgetRow struct {
	name                       string
	sections, limit            int
	tessera, priompt           int // sections kept
	tesseraTokens, pTokens     int
	tesseraShare, priomptShare float64
}

// compareBudgets fits every input with Tessera and checks it against
// Priompt's stored result.
func compareBudgets(t *testing.T) []budgetRow {
	t.Helper()
	pf := loadPriompt(t)
	c := tokenizer.O200kBase()
	var rows []budgetRow
	inputs := budgetInputs()
	if len(pf.Results) != len(inputs) {
		t.Fatalf("testdata/priompt.json has %d results for %d inputs: regenerate it as budget_test.go says", len(pf.Results), len(inputs))
	}
	for i, in := range inputs {
		p := pf.Results[i]
		if p.Name != in.Name || p.Digest != in.digest() || p.Limit != in.Limit {
			t.Fatalf("%s: testdata/priompt.json was made from other inputs (digest %s, now %s): regenerate it as budget_test.go says", in.Name, p.Digest, in.digest())
		}
		secs := in.sections()
		res, err := budget.Fit(context.Background(), secs, concat, budget.Budget{Context: in.Limit}, budget.Options{Counter: c})
		if err != nil {
			t.Fatalf("%s: %v", in.Name, err)
		}
		// Priompt's prompt, rebuilt from the sections it kept, is the text
		// it counted, and Tessera's counter agrees with its count.
		var pk []prompt.Section
		for _, s := range secs {
			if slices.Contains(p.Kept, s.Key) {
				pk = append(pk, s)
			}
		}
		ptext := concat(pk).Text
		if sum := sha256.Sum256([]byte(ptext)); hex.EncodeToString(sum[:]) != p.SHA256 {
			t.Fatalf("%s: Priompt's kept sections do not rebuild the text it reported", in.Name)
		}
		if n := c.Count(ptext); n != p.Tokens || n > in.Limit {
			t.Fatalf("%s: Priompt's prompt counts %d here, %d by Priompt, limit %d", in.Name, n, p.Tokens, in.Limit)
		}
		row := budgetRow{
			name: in.Name, sections: len(secs), limit: in.Limit,
			tessera: len(res.Sections), priompt: len(p.Kept),
			tesseraTokens: res.Report.Final, pTokens: p.Tokens,
			tesseraShare: 100 * float64(res.Report.Final) / float64(in.Limit),
			priomptShare: 100 * float64(p.Tokens) / float64(in.Limit),
		}
		if row.tessera < row.priompt {
			t.Errorf("%s: Tessera keeps %d sections, Priompt %d", in.Name, row.tessera, row.priompt)
		}
		rows = append(rows, row)
	}
	return rows
}

// TestBudgetAgainstPriompt checks that on every input Tessera keeps at
// least as many sections as Priompt, within the same exact budget, and
// logs the comparison as a Markdown table (run with -v).
func TestBudgetAgainstPriompt(t *testing.T) {
	rows := compareBudgets(t)
	pf := loadPriompt(t)
	var b strings.Builder
	fmt.Fprintf(&b, "\n| input | sections | limit | kept by Tessera | kept by Priompt | budget used, Tessera | budget used, Priompt |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d (%.1f%%) | %d (%.1f%%) |\n", r.name, r.sections, r.limit, r.tessera, r.priompt, r.tesseraTokens, r.tesseraShare, r.pTokens, r.priomptShare)
	}
	t.Logf("Priompt: %s %s%s", pf.Library, pf.Version, b.String())
}

// BenchmarkBudgetFit times Tessera's Fit on each comparison input:
// BenchmarkBudgetFit/INPUT/tessera-cold counts everything afresh, as
// Priompt does on every render; tessera-warm keeps a count cache across
// fits, as a service assembling from the same catalog does. fit.cjs
// --bench prints BenchmarkBudgetFit/INPUT/priompt lines to go beside
// them. Target: Tessera cold under Priompt's time on every input.
func BenchmarkBudgetFit(b *testing.B) {
	c := tokenizer.O200kBase()
	for _, in := range budgetInputs() {
		secs := in.sections()
		bud := budget.Budget{Context: in.Limit}
		b.Run(in.Name+"/tessera-cold", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := budget.Fit(context.Background(), secs, concat, bud, budget.Options{Counter: c}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.Name+"/tessera-warm", func(b *testing.B) {
			cache := budget.NewCache(0)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := budget.Fit(context.Background(), secs, concat, bud, budget.Options{Counter: c, Cache: cache}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
