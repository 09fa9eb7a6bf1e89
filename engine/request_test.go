package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/render"
)

// testPreset lays out the sections it holds in its style, whatever its
// inputs.
type testPreset struct {
	sections []prompt.Section
	style    render.Style
}

func (*testPreset) Name() string { return "test" }

func (*testPreset) Inputs() []preset.Input {
	return []preset.Input{{Name: "test", Selects: true}}
}

func (p *testPreset) Load(context.Context, *preset.Env, preset.Args) (*preset.Layout, error) {
	return &preset.Layout{Sections: p.sections, Style: p.style, Label: "test"}, nil
}

func (p *testPreset) Rebuild(ctx context.Context, env *preset.Env, _ *audit.Record) (*preset.Layout, error) {
	return p.Load(ctx, env, nil)
}

func (*testPreset) Units(context.Context, *preset.Env) ([]preset.Unit, error) { return nil, nil }

// assembleTest assembles sections in style st through an engine whose
// only preset is a testPreset.
func assembleTest(sections []prompt.Section, st render.Style, b *Budget) (*Result, error) {
	reg, err := preset.NewRegistry(&testPreset{sections: sections, style: st})
	if err != nil {
		return nil, err
	}
	e := Engine{Registry: reg}
	return e.Assemble(context.Background(), Request{Preset: "test", Budget: b, NoLog: true, AllowEmpty: true, CorrelationID: "test-1"})
}

// TestResultRequest checks how sections map onto a request: each
// rendered top-level section (children included) is one part on its
// role's side; a section with nothing to show sends nothing; tools come
// from the sections rendered and their children, in order.
func TestResultRequest(t *testing.T) {
	secs := []prompt.Section{
		{Key: "rules", Body: "RULES", Role: prompt.RoleSystem},
		{Key: "task", Body: "TASK", Tools: []prompt.Tool{{Name: "t1"}}, Children: []prompt.Section{{Key: "sub", Body: "SUB", Tools: []prompt.Tool{{Name: "t2"}}}}},
		{Key: "unused", Tools: []prompt.Tool{{Name: "never"}}},
	}
	res, err := assembleTest(secs, render.Plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := provider.Request{
		System: []provider.Part{{Key: "rules", Text: "RULES"}},
		User:   []provider.Part{{Key: "task", Text: "TASK\n\nSUB"}},
		Tools:  []prompt.Tool{{Name: "t1"}, {Name: "t2"}},
	}
	if got := res.Request(); !reflect.DeepEqual(got, want) {
		t.Errorf("Request =\n%+v\nwant\n%+v", got, want)
	}

	// A section the budget drops takes its tools with it.
	secs = append(secs, prompt.Section{Key: "extra", Body: strings.Repeat("filler words ", 400), Priority: 9, Trim: prompt.TrimDrop, Tools: []prompt.Tool{{Name: "dropped"}}})
	res, err = assembleTest(secs, render.Plain, &Budget{Model: "cl100k_base", Context: 100})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Request(); !reflect.DeepEqual(got, want) {
		t.Errorf("with extra dropped, Request =\n%+v\nwant\n%+v", got, want)
	}
}

// TestResultRequestWhole checks a one-piece style: the text is one part
// with the empty key, and every section's tools are offered, a tool
// defined the same way twice once; defined differently, it is an error.
func TestResultRequestWhole(t *testing.T) {
	secs := []prompt.Section{{Key: "a", Body: "whole", Tools: []prompt.Tool{{Name: "x", Description: "d"}}}, {Key: "b", Body: " text", Tools: []prompt.Tool{{Name: "x", Description: "d"}}}}
	res, err := assembleTest(secs, render.Style{Whole: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := res.Request()
	if len(req.System) != 0 || !reflect.DeepEqual(req.User, []provider.Part{{Text: res.Prompt.Text, Stable: true}}) {
		t.Errorf("parts %+v %+v", req.System, req.User)
	}
	if len(req.Tools) != 1 {
		t.Errorf("a tool defined the same way twice should be offered once: %+v", req.Tools)
	}
	secs[1].Tools[0].Parameters = json.RawMessage(`{"type":"object"}`)
	_, err = assembleTest(secs, render.Style{Whole: true}, nil)
	if err == nil || !strings.Contains(err.Error(), `tool "x" is defined twice, differently (the second time in section "b")`) {
		t.Errorf("conflicting tools: %v", err)
	}
}

// fuzzShape reads the fuzzer's shape bytes, 0 once they run out.
type fuzzShape struct {
	b []byte
	i int
}

func (s *fuzzShape) next() int {
	if s.i >= len(s.b) {
		return 0
	}
	s.i++
	return int(s.b[s.i-1])
}

// section makes a section from the shape and the texts: a title, a body,
// items and, above depth 2, children; its trust and role from the shape.
func (s *fuzzShape) section(key string, texts []string, depth int) prompt.Section {
	text := func() string { return texts[s.next()%len(texts)] }
	flags := s.next()
	sec := prompt.Section{Key: key}
	if flags&1 != 0 {
		sec.Title = text()
	}
	if flags&2 != 0 {
		sec.Body = text()
	}
	if flags&4 != 0 {
		sec.Trust = prompt.Untrusted
	}
	if flags&8 != 0 {
		sec.Role = prompt.RoleSystem
	}
	for i := range s.next() % 3 {
		sec.Items = append(sec.Items, prompt.Item{ID: fmt.Sprint("i", i), Text: text()})
	}
	if flags&16 != 0 {
		sec.Omitted = 1 + flags>>5
	}
	if depth < 2 {
		for i := range s.next() % 3 {
			sec.Children = append(sec.Children, s.section(fmt.Sprint("c", i), texts, depth+1))
		}
	}
	return sec
}

// FuzzResultRequest checks that any sections, rendered in the plain style
// (with any of a few separators, or as one piece), give a request whose
// parts are the rendered sections on their roles' sides and, joined in
// text order by the separator, give back the prompt's text; and that the
// OpenAI Chat body carries each side's parts so joined.
func FuzzResultRequest(f *testing.F) {
	f.Add([]byte{3, 3, 1, 0, 11, 2, 1, 1, 0, 6, 0, 0, 1}, "Rules|Be brief.|Task|ask ~~~ here\n~~~|")
	f.Add([]byte{5, 0, 0, 2, 4, 8, 12, 16, 255, 1, 2, 3}, "a\n\nb|## c|\n|d")
	f.Add([]byte{2, 9, 1, 2, 3, 1, 4, 2, 2, 0, 0}, "x|y")
	f.Add([]byte{1, 4, 3, 1}, "")
	f.Fuzz(func(t *testing.T, shape []byte, text string) {
		s := &fuzzShape{b: shape}
		texts := strings.Split(text, "|")
		var secs []prompt.Section
		for i := range s.next() % 6 {
			secs = append(secs, s.section(fmt.Sprint("s", i), texts, 0))
		}
		st := render.Plain
		switch mode := s.next() % 5; mode {
		case 1, 2, 3:
			st.Separator = []string{"\n", "\n---\n", "\n\n\n"}[mode-1]
		case 4:
			st.Whole = true
		}
		res, err := assembleTest(secs, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		req := res.Request()
		sep := cmp.Or(req.Separator, "\n\n")
		text = res.Prompt.Text

		// The sections rendered, in text order.
		var want []string
		if st.Whole {
			want = []string{""}
		} else {
			for _, sec := range secs {
				if sec.Title != "" || !render.Empty(&sec) {
					want = append(want, sec.Key)
				}
			}
		}
		var got, sysTexts, usrTexts []string // the body leaves out empty parts
		sys, usr := 0, 0
		var joined strings.Builder
		for i, sec := range res.Sections {
			got = append(got, sec.Key)
			var part provider.Part
			if sec.Role == prompt.RoleSystem {
				if sys >= len(req.System) {
					t.Fatalf("section %q has no system part", sec.Key)
				}
				part, sys = req.System[sys], sys+1
				if part.Text != "" {
					sysTexts = append(sysTexts, part.Text)
				}
			} else {
				if usr >= len(req.User) {
					t.Fatalf("section %q has no user part", sec.Key)
				}
				part, usr = req.User[usr], usr+1
				if part.Text != "" {
					usrTexts = append(usrTexts, part.Text)
				}
			}
			if part.Key != sec.Key || part.Text != sec.Text || part.Text != text[sec.Start:sec.End] {
				t.Fatalf("section %q [%d, %d) is part %q %q", sec.Key, sec.Start, sec.End, part.Key, part.Text)
			}
			if i > 0 {
				joined.WriteString(sep)
			}
			joined.WriteString(part.Text)
		}
		if sys != len(req.System) || usr != len(req.User) {
			t.Fatalf("%d system and %d user parts for %d sections", len(req.System), len(req.User), len(res.Sections))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("parts %q, want the sections rendered %q", got, want)
		}
		if joined.String() != text {
			t.Fatalf("the parts joined differ from the prompt:\n%q\n%q", joined.String(), text)
		}

		if !utf8.ValidString(text) || len(usrTexts) == 0 {
			return // replaced bytes, or no user side to send
		}
		b, err := provider.Encode(provider.OpenAIChat, req, provider.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Messages []struct{ Role, Content string }
		}
		if err := json.Unmarshal(b.JSON, &m); err != nil {
			t.Fatal(err)
		}
		var wantMsgs []string
		if len(sysTexts) > 0 {
			wantMsgs = append(wantMsgs, strings.Join(sysTexts, sep))
		}
		wantMsgs = append(wantMsgs, strings.Join(usrTexts, sep))
		if len(m.Messages) != len(wantMsgs) {
			t.Fatalf("%d messages, want %d", len(m.Messages), len(wantMsgs))
		}
		for i, msg := range m.Messages {
			if msg.Content != wantMsgs[i] {
				t.Fatalf("message %d (%s) is %q, want %q", i, msg.Role, msg.Content, wantMsgs[i])
			}
		}
	})
}

// TestLogIndexWarningIsANote checks that a log whose index cannot be
// written still gets the record, and that the caller hears why in the
// notes when the log has no Warn of its own.
func TestLogIndexWarningIsANote(t *testing.T) {
	reg, err := preset.NewRegistry(&testPreset{sections: []prompt.Section{{Key: "a", Body: "A"}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "log.jsonl")
	// A directory where the index would go: it cannot be written.
	if err := os.Mkdir(path+audit.IndexSuffix, 0o755); err != nil {
		t.Fatal(err)
	}
	e := Engine{Registry: reg}
	res, err := e.Assemble(t.Context(), Request{Preset: "test", Log: &audit.Log{Path: path}, CorrelationID: "w-1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 1 || !strings.HasPrefix(res.Notes[0], "warning: audit index "+path+audit.IndexSuffix) {
		t.Errorf("notes = %q, want one warning about the index", res.Notes)
	}
	data, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(data), `"correlation_id":"w-1"`) {
		t.Errorf("the log holds %q (%v), want the record", data, err)
	}

	// A log with its own Warn keeps its warnings.
	var heard []error
	res, err = e.Assemble(t.Context(), Request{Preset: "test", Log: &audit.Log{Path: path, Warn: func(err error) { heard = append(heard, err) }}, CorrelationID: "w-2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 0 || len(heard) != 1 {
		t.Errorf("notes %q and %d warnings heard, want none and one", res.Notes, len(heard))
	}
}
