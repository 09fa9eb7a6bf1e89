package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/quick"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/preset/agent"
	"github.com/tessera-dev/tessera/preset/agent/reply"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
)

// controlIn returns the first control character of s other than '\n' and
// '\t', and whether there is one.
func controlIn(s string) (rune, bool) {
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f {
			return r, true
		}
	}
	return 0, false
}

// hostile is text with the controls a terminal or a reader acts on: ESC
// sequences, BEL, NUL, a C1 CSI, DEL, and the line breaks among them.
const hostile = "red \x1b[31mALERT\x1b[0m\x07 nul\x00 csi\u009b2J del\x7f vt\vff\fnel\u0085end"

// cleaned is hostile as the prompt shows it.
const cleaned = "red \uFFFD[31mALERT\uFFFD[0m\uFFFD nul\uFFFD csi\uFFFD2J del\uFFFD vt\nff\nnel\nend"

// TestControlCharacters: no C0 or C1 control but '\n' and '\t' reaches
// any role's prompt, whichever input it comes in: ESC, BEL, NUL, DEL and
// C1 controls become U+FFFD, vertical tab, form feed and NEL '\n'. The
// caller's input is left as it was.
func TestControlCharacters(t *testing.T) {
	sub := func() *reply.Subtask {
		return &reply.Subtask{ID: "s", Description: "do " + hostile, AcceptanceCriteria: "done " + hostile}
	}
	entry := reply.MemoryEntry{Type: "decision", Summary: "sum " + hostile, Detail: "detail " + hostile, Tags: []string{"tag" + hostile}}
	plan := &reply.Plan{Subtasks: []reply.Subtask{*sub(), *sub(), *sub()}}
	ins := []*agent.Input{
		{Role: agent.Planner, Goal: "goal " + hostile, Workspace: "/w" + hostile, UserContext: "ctx " + hostile, Listing: "a.txt\n" + hostile},
		{Role: agent.Executor, TaskState: "state: " + hostile, Subtask: sub(), Memory: []reply.MemoryEntry{entry}, Detail: true,
			Tools: []agent.Tool{{Name: "read_file", Description: "Read " + hostile}}},
		{Role: agent.Replanner, Goal: "g", TaskState: "state: x", Plan: plan, Discoveries: []reply.MemoryEntry{entry}, Errors: []reply.MemoryEntry{entry}, Detail: true},
		{Role: agent.Extractor, Subtask: sub(), Output: "out " + hostile,
			ToolCalls: []agent.ToolCall{{Name: "run", Result: "res " + hostile, Error: "err " + hostile}}},
		{Role: agent.Verifier, Subtask: sub(), Result: "result " + hostile},
	}
	for _, in := range ins {
		t.Run(string(in.Role), func(t *testing.T) {
			before := *in
			l, err := agent.Build(nil, in)
			if err != nil {
				t.Fatal(err)
			}
			text := render.Render(l.Sections, l.Style).Text
			if r, ok := controlIn(text); ok {
				t.Errorf("the prompt holds %U:\n%q", r, text)
			}
			if in.Role == agent.Executor && !strings.Contains(text, "\n- [decision] sum "+strings.ReplaceAll(cleaned, "\n", " ")+" (tags: tag") {
				t.Errorf("the memory entry is not on one line:\n%s", text)
			}
			if in.Role != agent.Replanner && !strings.Contains(text, cleaned) {
				t.Errorf("the prompt does not show %q:\n%s", cleaned, text)
			}
			var walk func([]prompt.Section)
			walk = func(secs []prompt.Section) {
				for _, s := range secs {
					for _, tl := range s.Tools {
						if r, ok := controlIn(tl.Description); ok {
							t.Errorf("tool %s's description holds %U", tl.Name, r)
						}
					}
					walk(s.Children)
				}
			}
			walk(l.Sections)
			if in.Goal != before.Goal || in.Subtask != before.Subtask || (in.Subtask != nil && in.Subtask.Description != "do "+hostile) ||
				len(in.Memory) > 0 && in.Memory[0].Summary != "sum "+hostile || len(in.Tools) > 0 && in.Tools[0].Description != "Read "+hostile {
				t.Error("the input was changed")
			}
		})
	}
}

// TestControlCharactersProperty: whatever text a memory entry or a tool
// description holds, valid UTF-8 stays valid and no control but '\n'
// and '\t' is in the prompt.
func TestControlCharactersProperty(t *testing.T) {
	f := func(raw []byte, desc string) bool {
		s := strings.ToValidUTF8(string(raw), "?")
		in := &agent.Input{Role: agent.Executor, TaskState: "s: 1", Subtask: &reply.Subtask{ID: "s", Description: "d", AcceptanceCriteria: "c"},
			Memory: []reply.MemoryEntry{{Type: "context", Summary: "x" + s, Detail: s}}, Detail: true,
			Tools: []agent.Tool{{Name: "t", Description: strings.ToValidUTF8(desc, "?")}}}
		text, err := agent.Text(nil, in)
		if err != nil {
			t.Log(err)
			return false
		}
		_, bad := controlIn(text)
		return !bad && utf8.ValidString(text)
	}
	cfg := &quick.Config{MaxCount: 500, Values: nil}
	if err := quick.Check(f, cfg); err != nil {
		t.Error(err)
	}
}

// TestListingControlNames: a file name with a C0 or C1 control is listed
// quoted, its controls escaped.
func TestListingControlNames(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"bell\x07", "csi\u009b", "plain"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Skip("no such file names here:", err)
		}
	}
	got, err := agent.ListWorkspace(dir, agent.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "\"bell\\a\"\n\"csi\\u009b\"\nplain"; got != want {
		t.Errorf("listing %q, want %q", got, want)
	}
}
