package budget

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/tokenizer"
)

// toolFraming prices a request as a provider with native tools would: the
// text whole, each kept tool at its name's and schema's tokens, and a base
// of 9 tokens when any tool is sent.
type toolFraming struct{}

func (toolFraming) Count(p prompt.Prompt, secs []prompt.Section, count func(string) int) (text, tools int) {
	var walk func(ss []prompt.Section)
	walk = func(ss []prompt.Section) {
		for _, s := range ss {
			for _, t := range s.Tools {
				tools += toolFraming{}.Tool(t, count)
			}
			walk(s.Children)
		}
	}
	walk(secs)
	if tools > 0 {
		tools += 9
	}
	return count(p.Text), tools
}

func (toolFraming) Tool(t prompt.Tool, count func(string) int) int {
	return count(t.Name) + count(string(t.Parameters))
}

// toolSections is a prompt with a never-trimmed rule and ten tools, each a
// droppable child carrying a native definition of about 60 tokens.
func toolSections() []prompt.Section {
	tools := prompt.Section{Key: "tools", Title: "Tools", Priority: 5, Trim: prompt.TrimDrop}
	for i := range 10 {
		params := fmt.Sprintf(`{"type":"object","properties":{"path":{"type":"string","description":"%s"}}}`, words(30, uint64(i)))
		tools.Children = append(tools.Children, prompt.Section{
			Key: fmt.Sprintf("t%d", i), Body: fmt.Sprintf("- tool_%d", i), Priority: 6 + i, Trim: prompt.TrimDrop,
			Tools: []prompt.Tool{{Name: fmt.Sprintf("tool_%d", i), Parameters: json.RawMessage(params)}},
		})
	}
	return []prompt.Section{
		{Key: "rules", Title: "Rules", Body: words(40, 99), Trim: prompt.TrimNever},
		tools,
	}
}

// TestFitCountsTools checks that with a Framing the budget counts the
// native tools of the sections it keeps, drops the least important tools
// to make room for them, and reports their share on a line of its own.
func TestFitCountsTools(t *testing.T) {
	secs := toolSections()
	c := tokenizer.O200kBase()
	plain, err := Fit(ctx, secs, plainRender, Budget{Context: 400}, Options{Counter: c})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Fit(ctx, secs, plainRender, Budget{Context: 400}, Options{Counter: c, Framing: toolFraming{}})
	if err != nil {
		t.Fatal(err)
	}
	text, tools := toolFraming{}.Count(res.Prompt, res.Sections, c.Count)
	if res.Report.Final != text+tools || res.Report.Tools != tools {
		t.Fatalf("final %d, tools %d; the fitted request counts %d + %d", res.Report.Final, res.Report.Tools, text, tools)
	}
	if res.Report.Final > 400 {
		t.Fatalf("final %d over the limit", res.Report.Final)
	}
	if plain.Report.Tools != 0 || len(plain.Report.Sections) != len(res.Report.Sections) {
		t.Fatalf("without a framing no tools are counted: %+v", plain.Report)
	}
	kept := func(r *Result) int {
		n := 0
		for _, s := range r.Report.Sections[2:] { // the tools
			if !s.Dropped {
				n++
			}
		}
		return n
	}
	if kept(res) >= kept(plain) || kept(res) == 0 {
		t.Fatalf("with tools counted %d tools are kept, without %d: counting them must keep fewer, and some", kept(res), kept(plain))
	}
	// The most important tools are the ones kept.
	for i, s := range res.Report.Sections[2:] {
		if s.Dropped != (i >= kept(res)) {
			t.Fatalf("tool %s dropped=%v: the least important go first (%+v)", s.Key, s.Dropped, res.Report.Sections)
		}
	}
	// Full: no dropped tool could come back.
	for _, s := range res.Report.Sections {
		if s.Dropped && s.Tools > 0 && res.Report.Final+s.Before+s.Tools <= 400-1 {
			t.Errorf("tool %s (%d + %d tokens) was dropped with %d tokens to spare", s.Key, s.Before, s.Tools, 400-res.Report.Final)
		}
	}
}

// TestNoteGoesWithItsLastItem checks that a section that is a list and
// nothing else goes whole when the budget drops all of its items, so no
// note of what was dropped is left under a heading that shows nothing,
// and that it comes back with an item when one fits again.
func TestNoteGoesWithItsLastItem(t *testing.T) {
	mem := prompt.Section{Key: "memory", Title: "Memory", Priority: 5, Trim: prompt.TrimLowestRelevance}
	for i := range 3 {
		mem.Items = append(mem.Items, prompt.Item{ID: fmt.Sprintf("m%d", i), Text: words(25, uint64(i+10)), Relevance: float64(i)})
	}
	secs := []prompt.Section{{Key: "rules", Title: "Rules", Body: words(30, 1), Trim: prompt.TrimNever}, mem}
	c := tokenizer.O200kBase()
	rules := c.Count(plainRender(secs[:1]).Text)
	for limit := rules; limit < rules+120; limit += 3 {
		res, err := Fit(ctx, secs, plainRender, Budget{Context: limit}, Options{Counter: c})
		if err != nil {
			t.Fatal(err)
		}
		r := res.Report.Sections[1]
		if len(r.ItemsDropped) == 3 && !r.Dropped {
			t.Fatalf("limit %d: all three items dropped but the section kept:\n%s", limit, res.Prompt.Text)
		}
		if len(r.ItemsDropped) < 3 && r.Dropped {
			t.Fatalf("limit %d: section dropped with items left", limit)
		}
	}
}
