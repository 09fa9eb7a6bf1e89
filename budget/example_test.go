package budget_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
	"github.com/tessera-dev/tessera/tokenizer"
)

// plain renders sections in the plain style: any render.Style works.
func plain(s []prompt.Section) prompt.Prompt { return render.Render(s, render.Plain) }

func ExampleFit() {
	sections := []prompt.Section{
		{Key: "system", Title: "Rules", Body: "Answer from the notes only.", Trim: prompt.TrimNever},
		{Key: "memory", Title: "Notes", Priority: 5, Trim: prompt.TrimLowestRelevance, Items: []prompt.Item{
			{ID: "n1", Text: "- The launch moved to March.", Relevance: 0.9},
			{ID: "n2", Text: "- The office plants were watered on Tuesday.", Relevance: 0.1},
			{ID: "n3", Text: "- Pricing stays at $20 per seat.", Relevance: 0.7},
		}},
		{Key: "question", Body: "When is the launch, and what does it cost?", Trim: prompt.TrimNever},
	}
	res, err := budget.Fit(context.Background(), sections, plain,
		budget.Budget{Context: 45}, budget.Options{Counter: tokenizer.O200kBase()})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Prompt.Text)
	fmt.Println("---")
	fmt.Println("dropped:", strings.Join(res.Report.Sections[1].ItemsDropped, ", "), "final:", res.Report.Final)
	// Output:
	// ## Rules
	// Answer from the notes only.
	//
	// ## Notes
	// - The launch moved to March.
	// - Pricing stays at $20 per seat.
	// (1 more omitted)
	//
	// When is the launch, and what does it cost?
	// ---
	// dropped: n2 final: 44
}

func ExampleReport_WriteTable() {
	sections := []prompt.Section{
		{Key: "system", Body: "Be brief.", Trim: prompt.TrimNever},
		{Key: "context", Body: strings.Repeat("Background that can be cut. ", 40), Priority: 5, Trim: prompt.TrimTruncate},
	}
	res, err := budget.Fit(context.Background(), sections, plain,
		budget.Budget{Context: 100, Reserve: 40}, budget.Options{Counter: tokenizer.O200kBase()})
	if err != nil {
		panic(err)
	}
	res.Report.WriteTable(os.Stdout)
	// Output:
	// budget: 100 context - 40 reserve = 60 tokens; counter o200k_base (exact)
	// SECTION  PRIO  RULE      BEFORE  AFTER  SHARE OF LIMIT               CUT
	// system      0  never          3      3  █···················   5.0%
	// context     5  truncate     241     57  ███████████████████·  95.0%  truncated by 195 tokens (902 bytes)
	// total                       245     60  ████████████████████ 100.0%
}
