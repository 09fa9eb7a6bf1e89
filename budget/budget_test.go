package budget

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/quick"

	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/tokenizer"
)

var ctx = context.Background()

func words(n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 7))
	vocab := strings.Fields("the model reads every section in order and keeps what matters most while the budget trims what it can spare from memory tools notes transcripts 42 1999 café naïve 東京 🚀 {json: true} x/y_z")
	var b strings.Builder
	for i := range n {
		if i > 0 {
			if i%13 == 0 {
				b.WriteString("\n")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(vocab[r.IntN(len(vocab))])
	}
	return b.String()
}

func fit(t *testing.T, secs []prompt.Section, b Budget) *Result {
	t.Helper()
	res, err := Fit(ctx, secs, plainRender, b, Options{Counter: tokenizer.O200kBase()})
	if err != nil {
		t.Fatal(err)
	}
	checkFits(t, res, b, tokenizer.O200kBase())
	return res
}

func checkFits(t *testing.T, res *Result, b Budget, c tokenizer.Counter) {
	t.Helper()
	if got := c.Count(res.Prompt.Text) + b.Overhead; got != res.Report.Final || got > b.Limit() {
		t.Fatalf("final count %d (report says %d), limit %d", got, res.Report.Final, b.Limit())
	}
	if res.Prompt.Hash != prompt.Hash(res.Prompt.Text) {
		t.Fatal("prompt hash does not match its text")
	}
}

func sec(key string, prio int, rule prompt.TrimRule, body string) prompt.Section {
	return prompt.Section{Key: key, Title: key, Body: body, Priority: prio, Trim: rule}
}

func TestFitUntouchedWhenItFits(t *testing.T) {
	secs := []prompt.Section{sec("a", 0, prompt.TrimNever, "alpha"), sec("b", 1, prompt.TrimDrop, "beta")}
	res := fit(t, secs, Budget{Context: 1000, Overhead: 7})
	if want := plainRender(secs).Text; res.Prompt.Text != want {
		t.Fatalf("text changed:\n%s\nwant\n%s", res.Prompt.Text, want)
	}
	for _, s := range res.Report.Sections {
		if s.Dropped || s.Before != s.After || s.Before == 0 {
			t.Errorf("section %+v changed", s)
		}
	}
	if res.Report.Counter != "o200k_base" || !res.Report.Exact || res.Report.Limit != 1000 {
		t.Errorf("report header %+v", res.Report)
	}
}

func TestFitDropsHighestPriorityNumberFirst(t *testing.T) {
	secs := []prompt.Section{
		sec("system", 0, prompt.TrimNever, words(40, 1)),
		sec("tools", 3, prompt.TrimDrop, words(200, 2)),
		sec("memory", 5, prompt.TrimDrop, words(200, 3)),
		sec("notes", 5, prompt.TrimDrop, words(200, 4)),
	}
	full := tokenizer.O200kBase().Count(plainRender(secs).Text)
	// Room for everything but one 200-word section.
	res := fit(t, secs, Budget{Context: full - 100})
	got := keys(res.Sections)
	if want := []string{"system", "tools", "memory"}; !slices.Equal(got, want) {
		t.Fatalf("kept %v, want %v (equal priorities: the later section goes first)", got, want)
	}
	rep := res.Report.Sections
	if !rep[3].Dropped || rep[3].After != 0 || rep[2].Dropped {
		t.Fatalf("report %+v", rep)
	}
	// Tighter: memory goes too, then tools.
	res = fit(t, secs, Budget{Context: full / 3})
	if got := keys(res.Sections); !slices.Equal(got, []string{"system"}) && !slices.Equal(got, []string{"system", "tools"}) {
		t.Fatalf("kept %v", got)
	}
}

func keys(secs []prompt.Section) []string {
	var out []string
	for _, s := range secs {
		out = append(out, s.Key)
	}
	return out
}

func items(n int, keep map[int]bool) []prompt.Item {
	var out []prompt.Item
	for i := range n {
		out = append(out, prompt.Item{
			ID: fmt.Sprintf("m%d", i), Text: fmt.Sprintf("- item %d: %s", i, words(20, uint64(i))),
			Relevance: float64((i * 7) % n), Seq: int64(i), Keep: keep[i],
		})
	}
	return out
}

func TestFitDropsLowestRelevanceItems(t *testing.T) {
	s := prompt.Section{Key: "memory", Title: "Memory", Items: items(10, map[int]bool{0: true}), Priority: 4, Trim: prompt.TrimLowestRelevance}
	secs := []prompt.Section{sec("system", 0, prompt.TrimNever, "rules"), s}
	full := tokenizer.O200kBase().Count(plainRender(secs).Text)
	res := fit(t, secs, Budget{Context: full * 6 / 10})
	dropped := res.Report.Sections[1].ItemsDropped
	if len(dropped) == 0 {
		t.Fatal("no items dropped")
	}
	// Relevance of item i is (7i mod 10): item 0 is kept (Keep) even
	// though its relevance is lowest, then 3 (relevance 1), 6 (2), 9 (3) …
	want := []string{"m3", "m6", "m9", "m2", "m5", "m8", "m1", "m4", "m7"}[:len(dropped)]
	if !slices.Equal(dropped, want) {
		t.Fatalf("dropped %v, want %v", dropped, want)
	}
	kept := res.Sections[1]
	if kept.Omitted != len(dropped) || len(kept.Items) != 10-len(dropped) || kept.Items[0].ID != "m0" {
		t.Fatalf("kept section: omitted %d, items %d", kept.Omitted, len(kept.Items))
	}
	if !strings.Contains(res.Prompt.Text, fmt.Sprintf("(%d more omitted)", len(dropped))) {
		t.Fatal("no omission note in the text")
	}
	if len(s.Items) != 10 || s.Omitted != 0 {
		t.Fatal("Fit modified its input")
	}
}

func TestFitDropsOldestItems(t *testing.T) {
	s := prompt.Section{Key: "transcript", Items: items(8, nil), Priority: 4, Trim: prompt.TrimOldest}
	slices.Reverse(s.Items) // order in the section does not matter; Seq does
	full := tokenizer.O200kBase().Count(plainRender([]prompt.Section{s}).Text)
	res := fit(t, []prompt.Section{s}, Budget{Context: full / 2})
	dropped := res.Report.Sections[0].ItemsDropped
	for i, id := range dropped {
		if id != fmt.Sprintf("m%d", i) {
			t.Fatalf("dropped %v, want the oldest first", dropped)
		}
	}
}

func TestFitTruncatesWithMarker(t *testing.T) {
	body := words(600, 9)
	secs := []prompt.Section{sec("system", 0, prompt.TrimNever, "Answer briefly."), sec("context", 5, prompt.TrimTruncate, body)}
	res := fit(t, secs, Budget{Context: 300, Reserve: 50})
	got := res.Sections[1].Body
	i := strings.Index(got, "\n[… ")
	if i < 0 || !strings.HasSuffix(got, " tokens truncated to fit the budget]") {
		t.Fatalf("no marker at the end of %q", got)
	}
	if !strings.HasPrefix(body, got[:i]) || i == 0 {
		t.Fatalf("truncated body is not a prefix of the original")
	}
	rep := res.Report.Sections[1]
	if rep.TruncatedTokens <= 0 || rep.TruncatedBytes != len(body)-i || !strings.Contains(got, fmt.Sprintf("[… %d tokens", rep.TruncatedTokens)) {
		t.Fatalf("report %+v does not match the cut", rep)
	}
	if res.Report.Final > 250 || res.Report.Final < 200 {
		t.Errorf("final %d: the cut should leave the prompt near the 250-token limit", res.Report.Final)
	}
}

func TestFitNeverDropError(t *testing.T) {
	secs := []prompt.Section{
		sec("system", 0, prompt.TrimNever, words(300, 1)),
		sec("constraints", 0, prompt.TrimNever, words(100, 2)),
		sec("memory", 5, prompt.TrimDrop, words(100, 3)),
	}
	_, err := Fit(ctx, secs, plainRender, Budget{Context: 200}, Options{Counter: tokenizer.O200kBase()})
	var nd *NeverDropError
	if !errors.As(err, &nd) {
		t.Fatalf("err = %v, want a NeverDropError", err)
	}
	if len(nd.Sections) != 2 || nd.Sections[0].Key != "system" || nd.Sections[1].Key != "constraints" || nd.Sections[0].Tokens < 300 {
		t.Fatalf("sections %+v", nd.Sections)
	}
	for _, want := range []string{"system (", "constraints (", "over the limit of 200", "raise the budget"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestFitCaps(t *testing.T) {
	secs := []prompt.Section{
		sec("system", 0, prompt.TrimNever, words(50, 1)),
		sec("context", 5, prompt.TrimTruncate, words(400, 2)),
	}
	res := fit(t, secs, Budget{Context: 100000, Caps: map[string]int{"context": 120}})
	if rep := res.Report.Sections[1]; rep.After > 120 || rep.Cap != 120 || rep.TruncatedTokens == 0 {
		t.Fatalf("capped section %+v", rep)
	}
	_, err := Fit(ctx, secs, plainRender, Budget{Context: 1000, Caps: map[string]int{"system": 10}}, Options{Counter: tokenizer.O200kBase()})
	if err == nil || !strings.Contains(err.Error(), `section "system" has`) || !strings.Contains(err.Error(), "trim rule is never") {
		t.Fatalf("cap on a never-trimmed section: %v", err)
	}
	_, err = Fit(ctx, secs, plainRender, Budget{Context: 1000, Caps: map[string]int{"sytem": 10}}, Options{Counter: tokenizer.O200kBase()})
	if err == nil || !strings.Contains(err.Error(), `"sytem": no such section`) || !strings.Contains(err.Error(), "system, context") {
		t.Fatalf("cap on an unknown section: %v", err)
	}
}

func TestFitBadBudget(t *testing.T) {
	for _, b := range []Budget{{Context: 0}, {Context: 10, Reserve: 10}, {Context: 10, Reserve: -1}} {
		if _, err := Fit(ctx, nil, plainRender, b, Options{Counter: tokenizer.O200kBase()}); err == nil {
			t.Errorf("budget %+v accepted", b)
		}
	}
	if _, err := Fit(ctx, nil, plainRender, Budget{Context: 10}, Options{}); err == nil {
		t.Error("no counter accepted")
	}
}

// countOnly hides an encoding's Truncate, so Fit must find cuts itself.
type countOnly struct{ tokenizer.Counter }

func TestFitWithPlainCounter(t *testing.T) {
	c := countOnly{tokenizer.Cl100kBase()}
	secs := []prompt.Section{sec("context", 5, prompt.TrimTruncate, words(500, 4)+" 東京🚀")}
	b := Budget{Context: 120}
	res, err := Fit(ctx, secs, plainRender, b, Options{Counter: c})
	if err != nil {
		t.Fatal(err)
	}
	checkFits(t, res, b, c)
}

func TestFitEstimate(t *testing.T) {
	c, err := tokenizer.ForModel("claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	secs := []prompt.Section{sec("system", 0, prompt.TrimNever, "x"), sec("context", 5, prompt.TrimTruncate, words(500, 5))}
	b := Budget{Context: 200}
	res, err := Fit(ctx, secs, plainRender, b, Options{Counter: c})
	if err != nil {
		t.Fatal(err)
	}
	checkFits(t, res, b, c)
	if res.Report.Exact || res.Report.Counter != "estimate/anthropic" {
		t.Fatalf("report says %s exact=%v", res.Report.Counter, res.Report.Exact)
	}
}

// randomSections builds a random section tree from a seed.
func randomSections(seed uint64) []prompt.Section {
	r := rand.New(rand.NewPCG(seed, 11))
	n := 1 + r.IntN(12)
	var out []prompt.Section
	for i := range n {
		s := prompt.Section{Key: fmt.Sprintf("s%d", i), Title: fmt.Sprintf("S%d", i), Priority: r.IntN(6)}
		switch r.IntN(5) {
		case 0:
			s.Trim = prompt.TrimNever
			s.Body = words(1+r.IntN(15), r.Uint64())
		case 1:
			s.Trim = prompt.TrimDrop
			s.Body = words(1+r.IntN(80), r.Uint64())
		case 2, 3:
			s.Trim = prompt.TrimLowestRelevance
			if r.IntN(2) == 0 {
				s.Trim = prompt.TrimOldest
			}
			for k := range r.IntN(8) {
				s.Items = append(s.Items, prompt.Item{ID: fmt.Sprintf("i%d", k), Text: words(1+r.IntN(20), r.Uint64()), Relevance: float64(r.IntN(4)), Seq: int64(r.IntN(100)), Keep: r.IntN(6) == 0})
			}
		case 4:
			s.Trim = prompt.TrimTruncate
			s.Body = words(1+r.IntN(200), r.Uint64())
		}
		if r.IntN(6) == 0 {
			c := prompt.Section{Key: "child", Body: words(1+r.IntN(30), r.Uint64()), Trim: prompt.TrimTruncate, Priority: r.IntN(6)}
			s.Children = []prompt.Section{c}
		}
		out = append(out, s)
	}
	return out
}

// TestFitProperties checks, on random section trees and budgets: the
// output fits; never-trimmed sections are all present and whole; and the
// same inputs give the same bytes and report, whatever the cache holds.
// TestFitFull checks what a larger budget keeps.
func TestFitProperties(t *testing.T) {
	c := tokenizer.O200kBase()
	var fitted, trimmed, refused int
	prop := func(seed uint64, limitSeed uint16, extra uint16) bool {
		secs := randomSections(seed)
		full := c.Count(plainRender(secs).Text)
		lo := 1 + int(limitSeed)%(full+20)
		hi := lo + int(extra)%(full+1)
		for _, limit := range []int{lo, hi} {
			b := Budget{Context: limit}
			res, err := Fit(ctx, secs, plainRender, b, Options{Counter: c})
			var nd *NeverDropError
			if errors.As(err, &nd) {
				refused++
				continue
			}
			if err != nil {
				t.Logf("seed %d limit %d: %v", seed, limit, err)
				return false
			}
			if got := c.Count(res.Prompt.Text); got > limit || got != res.Report.Final {
				t.Logf("seed %d limit %d: final %d", seed, limit, got)
				return false
			}
			again, _ := Fit(ctx, secs, plainRender, b, Options{Counter: c, Cache: NewCache(1)})
			if again == nil || again.Prompt.Text != res.Prompt.Text || !reflect.DeepEqual(again.Report, res.Report) {
				t.Logf("seed %d limit %d: not deterministic", seed, limit)
				return false
			}
			fitted++
			if res.Report.Before > res.Report.Final {
				trimmed++
			}
			for _, s := range secs {
				if s.Trim != prompt.TrimNever {
					continue
				}
				i := slices.IndexFunc(res.Sections, func(r prompt.Section) bool { return r.Key == s.Key })
				if i < 0 || res.Sections[i].Body != s.Body {
					t.Logf("seed %d limit %d: never-trimmed %s changed", seed, limit, s.Key)
					return false
				}
			}
		}
		return true
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 300}); err != nil {
		t.Fatal(err)
	}
	// The generator must exercise all three outcomes.
	if fitted < 100 || trimmed < 50 || refused < 20 {
		t.Fatalf("fitted %d (trimmed %d), refused %d: the random cases do not cover trimming", fitted, trimmed, refused)
	}
	t.Logf("fitted %d (trimmed %d), refused %d", fitted, trimmed, refused)
}
