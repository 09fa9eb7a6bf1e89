package provider

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/prompt"
)

func TestFromPromptFixture(t *testing.T) {
	p, secs := fixturePrompt()
	req, err := FromPrompt(p, secs, fixtureStable)
	if err != nil {
		t.Fatal(err)
	}
	keys := func(ps []Part) (out []string) {
		for _, p := range ps {
			k := p.Key
			if p.Stable {
				k += "*"
			}
			out = append(out, k)
		}
		return out
	}
	if got := keys(req.System); !reflect.DeepEqual(got, []string{"system-prompt*", "identity*"}) {
		t.Errorf("system parts %v", got)
	}
	if got := keys(req.User); !reflect.DeepEqual(got, []string{"requesting-user*", "conversation-state", "constraints*", "task", "input"}) {
		t.Errorf("user parts %v", got)
	}
	for i, part := range append(req.System, req.User...) {
		if part.Text != fixtureSections[i].text {
			t.Errorf("part %q text %q, want the section's text %q", part.Key, part.Text, fixtureSections[i].text)
		}
	}
	if len(req.Tools) != 2 || req.Tools[0].Name != "search_docs" || req.Tools[1].Name != "file_ticket" {
		t.Errorf("tools %+v", req.Tools)
	}
	if req.Model != "" || req.Output != nil || req.MaxTokens != 0 {
		t.Errorf("FromPrompt set fields it should leave: %+v", req)
	}
}

func span(text, key string, start, end int) prompt.SectionSpan {
	return prompt.SectionSpan{Key: key, Start: start, End: end, Hash: prompt.Hash(text[start:end])}
}

func TestFromPromptSpans(t *testing.T) {
	sys := prompt.Section{Key: "rules", Role: prompt.RoleSystem}
	usr := prompt.Section{Key: "task", Tools: []prompt.Tool{{Name: "t1"}}, Children: []prompt.Section{{Key: "sub", Tools: []prompt.Tool{{Name: "t2"}}}}}
	unused := prompt.Section{Key: "unused", Tools: []prompt.Tool{{Name: "never"}}}
	secs := []prompt.Section{sys, usr, unused}

	// Preamble, blank separator, nested child span, trailing text.
	text := "Intro line\n\nRULES\n\nTASK [SUB] end\n\nfootnote\n\n"
	p := prompt.Prompt{Text: text, Sections: []prompt.SectionSpan{
		span(text, "task", 19, 33),
		span(text, "rules", 12, 17),
		span(text, "task/sub", 24, 29),
	}}
	req, err := FromPrompt(p, secs, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Request{
		System: []Part{{Key: "rules", Text: "Intro line\n\nRULES"}},
		User:   []Part{{Key: "task", Text: "TASK [SUB] end\n\nfootnote"}},
		Tools:  []prompt.Tool{{Name: "t1"}, {Name: "t2"}},
	}
	if !reflect.DeepEqual(req, want) {
		t.Errorf("FromPrompt =\n%+v\nwant\n%+v", req, want)
	}

	// A child span alone still finds its top-level section's role.
	p = prompt.Prompt{Text: text, Sections: []prompt.SectionSpan{span(text, "rules/x", 12, 17), span(text, "task", 19, 33)}}
	req, err = FromPrompt(p, secs, StableKeys("rules/x"))
	if err != nil || len(req.System) != 1 || req.System[0].Key != "rules/x" || !req.System[0].Stable || req.User[0].Stable {
		t.Errorf("child span: %+v, %v", req, err)
	}

	for _, c := range []struct {
		name  string
		spans []prompt.SectionSpan
		msg   string
	}{
		{"outside", []prompt.SectionSpan{{Key: "task", Start: 5, End: 99}}, `span "task" [5, 99) is outside the prompt's 45 bytes`},
		{"negative", []prompt.SectionSpan{{Key: "task", Start: -1, End: 3}}, "outside"},
		{"reversed", []prompt.SectionSpan{{Key: "task", Start: 5, End: 3}}, "outside"},
		{"overlap", []prompt.SectionSpan{{Key: "rules", Start: 0, End: 10}, {Key: "task", Start: 5, End: 20}}, `span "task" [5, 20) overlaps the span before it, which ends at 10`},
		{"unknown", []prompt.SectionSpan{{Key: "nope/x", Start: 0, End: 3}}, `span "nope/x" has no section "nope" among the 3 given`},
	} {
		_, err := FromPrompt(prompt.Prompt{Text: text, Sections: c.spans}, secs, nil)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.msg)
		}
	}
}

func TestFromPromptWithoutSpans(t *testing.T) {
	secs := []prompt.Section{{Key: "a", Tools: []prompt.Tool{{Name: "x", Description: "d"}}}, {Key: "b", Tools: []prompt.Tool{{Name: "x", Description: "d"}}}}
	req, err := FromPrompt(prompt.Prompt{Text: "whole text"}, secs, StableKeys(""))
	if err != nil {
		t.Fatal(err)
	}
	if len(req.System) != 0 || !reflect.DeepEqual(req.User, []Part{{Text: "whole text", Stable: true}}) {
		t.Errorf("parts %+v %+v", req.System, req.User)
	}
	if len(req.Tools) != 1 {
		t.Errorf("a tool defined the same way twice should be offered once: %+v", req.Tools)
	}
	secs[1].Tools[0].Parameters = json.RawMessage(`{"type":"object"}`)
	_, err = FromPrompt(prompt.Prompt{Text: "whole text"}, secs, nil)
	if err == nil || !strings.Contains(err.Error(), `tool "x" is defined twice, differently (the second time in section "b")`) {
		t.Errorf("conflicting tools: %v", err)
	}
}

func TestStableKeys(t *testing.T) {
	f := StableKeys("a", "b")
	if !f("a") || !f("b") || f("c") || f("") {
		t.Error("StableKeys reports the wrong keys")
	}
	if StableKeys()("a") {
		t.Error("StableKeys() reports a key")
	}
}
