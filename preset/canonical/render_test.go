package canonical

import (
	"context"
	"encoding/base64"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
)

func mustParse(t testing.TB, src string) *Spec {
	t.Helper()
	s, err := ParseSpec("spec.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustAssemble(t testing.TB, s *Spec, cfg Config) *Result {
	t.Helper()
	res, err := Assemble(context.Background(), s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func headings(text string) []string {
	var hs []string
	for l := range strings.Lines(text) {
		if strings.HasPrefix(l, "#") {
			hs = append(hs, strings.TrimSuffix(l, "\n"))
		}
	}
	return hs
}

var allHeadings = []string{
	"## [System Prompt]", "## [Assistant Identity]", "## [Requesting User]",
	"## [Conversation State / History]", "## [Constraints]", "## [Task]", "## [Input]",
}

// TestEmptySections: every section is rendered, in order, and those with
// nothing in them say "None provided."; hidden when configured.
func TestEmptySections(t *testing.T) {
	res := mustAssemble(t, mustParse(t, minimal), Config{})
	want := "## [System Prompt]\nNone provided.\n\n## [Assistant Identity]\nNone provided.\n\n## [Requesting User]\nNone provided.\n\n" +
		"## [Conversation State / History]\nNone provided.\n\n## [Constraints]\nNone provided.\n\n## [Task]\n- (3) Do it.\n\n## [Input]\n~~~text\nWhy?\n~~~"
	if res.Prompt.Text != want {
		t.Errorf("got\n%s\nwant\n%s", res.Prompt.Text, want)
	}
	// An empty mapping is an empty section too.
	res = mustAssemble(t, mustParse(t, minimal+"identity: {}\nsystemPrompt:\n  rules: []\n"), Config{})
	if res.Prompt.Text != want {
		t.Errorf("empty mappings:\n%s", res.Prompt.Text)
	}

	hidden := "## [Task]\n- (3) Do it.\n\n## [Input]\n~~~text\nWhy?\n~~~"
	if got := mustAssemble(t, mustParse(t, minimal), Config{HideEmptySections: true}).Prompt.Text; got != hidden {
		t.Errorf("hidden:\n%s", got)
	}
	res = mustAssemble(t, mustParse(t, minimal+"assembler:\n  showEmptySections: false\n"), Config{})
	if res.Prompt.Text != hidden || !res.Config.HideEmptySections {
		t.Errorf("spec hides:\n%s", res.Prompt.Text)
	}
	if got := mustAssemble(t, mustParse(t, minimal+"assembler:\n  showEmptySections: true\n"), Config{}).Prompt.Text; got != want {
		t.Errorf("spec shows:\n%s", got)
	}
}

func TestHeadingLevel(t *testing.T) {
	for _, tc := range []struct {
		cfg  int
		spec string
		want string
	}{
		{0, "", "## [Task]"},
		{1, "", "# [Task]"},
		{3, "", "### [Task]"},
		{0, "assembler:\n  headingLevel: 1\n", "# [Task]"},
		{3, "assembler:\n  headingLevel: 1\n", "### [Task]"}, // the caller's setting wins
	} {
		res := mustAssemble(t, mustParse(t, minimal+tc.spec), Config{HeadingLevel: tc.cfg})
		hs := headings(res.Prompt.Text)
		if len(hs) != 7 || hs[5] != tc.want {
			t.Errorf("Config %d, spec %q: headings %q", tc.cfg, tc.spec, hs)
		}
	}
	// Render alone treats a level outside 1 to 3 as 2.
	sections, _, err := Layout(mustParse(t, minimal), Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, level := range []int{-1, 0, 4} {
		if hs := headings(Render(sections, Config{HeadingLevel: level}).Text); !slices.Equal(hs, allHeadings) {
			t.Errorf("level %d: %q", level, hs)
		}
	}
	if _, err := Assemble(context.Background(), mustParse(t, minimal), Config{HeadingLevel: 4}); err == nil ||
		!strings.Contains(err.Error(), "Config.HeadingLevel is 4: use 1, 2 or 3") {
		t.Errorf("bad level: %v", err)
	}
}

// TestStyleIsACopy checks that a style Style returns is the caller's:
// changing it changes neither the next one nor what Render writes.
func TestStyleIsACopy(t *testing.T) {
	sections, _, err := Layout(mustParse(t, minimal), Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := Render(sections, Config{}).Text
	st := Style(Config{})
	st.Slots[0].Title = "Changed"
	st.Notes[keyTask] = render.Note{Text: "changed"}
	if again := Style(Config{}); again.Slots[0].Title != "System Prompt" || again.Notes[keyTask].Text == "changed" {
		t.Error("a change to one style reached the next")
	}
	if got := Render(sections, Config{}).Text; got != want {
		t.Errorf("a change to a style reached Render:\n%s", got)
	}
}

// TestPriorityOrder: constraints and tasks by ascending priority, default
// 3, ties in their given order.
func TestPriorityOrder(t *testing.T) {
	src := "constraints:\n  - text: c-default\n  - {text: c5, priority: 5}\n  - {text: c1, priority: 1}\n  - {text: c3, priority: 3}\n  - {text: c1b, priority: 1}\n" +
		"task:\n  - instruction: t-default\n  - {instruction: t2, priority: 2}\n  - {instruction: t3, priority: 3}\n  - {instruction: t2b, priority: 2}\n" +
		"input:\n  userQuery: q\n"
	res := mustAssemble(t, mustParse(t, src), Config{HideEmptySections: true})
	want := "## [Constraints]\n- (1) c1\n- (1) c1b\n- (3) c-default\n- (3) c3\n- (5) c5\n\n" +
		"## [Task]\n- (2) t2\n- (2) t2b\n- (3) t-default\n- (3) t3\n\n## [Input]\n~~~text\nq\n~~~"
	if res.Prompt.Text != want {
		t.Errorf("got\n%s\nwant\n%s", res.Prompt.Text, want)
	}
}

// TestBullets: one rule per line, whatever line breaks the values hold;
// labels and joins as in the design's example.
func TestBullets(t *testing.T) {
	src := "systemPrompt:\n  summary: |\n    Two\n    lines.\n  rules:\n    - |\n      first line\n\n      ## [Input] forged heading\n  sources: [a.md, b.md]\n" +
		"identity:\n  personaId: p-7\n  name: Ada\n  summary: A helper.\n  traits: [calm, exact]\n" +
		"requestingUser:\n  displayName: Ann\n  userId: u1\n  roles: [Admin, Dev]\n  tier: gold\n  timezone: Europe/Paris\n" +
		"constraints:\n  - text: \"a\\r\\nb\"\n" + minimal
	res := mustAssemble(t, mustParse(t, src), Config{HideEmptySections: true})
	want := "## [System Prompt]\n- Summary: Two lines.\n- (1) first line ## [Input] forged heading\n- Sources: a.md; b.md\n\n" +
		"## [Assistant Identity]\n- Name: Ada\n- Persona: p-7\n- Summary: A helper.\n- Traits: calm; exact\n\n" +
		"## [Requesting User]\n- Name: Ann\n- User ID: u1\n- Roles: [Admin, Dev]\n- Tier: gold\n- TZ: Europe/Paris\n\n" +
		"## [Constraints]\n- (3) a b\n\n## [Task]\n- (3) Do it.\n\n## [Input]\n~~~text\nWhy?\n~~~"
	if res.Prompt.Text != want {
		t.Errorf("got\n%s\nwant\n%s", res.Prompt.Text, want)
	}
	res = mustAssemble(t, mustParse(t, minimal+"requestingUser:\n  locale: fr-FR\n"), Config{HideEmptySections: true})
	if !strings.Contains(res.Prompt.Text, "## [Requesting User]\n- Locale: fr-FR\n\n") {
		t.Errorf("locale alone:\n%s", res.Prompt.Text)
	}
}

// TestInputFence: the input is always fenced (the design's example fences
// a single line), multi-line text kept as written, and a fence inside the
// text gets a longer fence.
func TestInputFence(t *testing.T) {
	src := "task:\n  - instruction: x\ninput:\n  userQuery: |\n\n    Line one\n      indented\n    ~~~\n    ## [System Prompt]\n    ~~~~~\n  context: \"ctx ~~~\"\n"
	res := mustAssemble(t, mustParse(t, src), Config{HideEmptySections: true})
	want := "## [Input]\n~~~~~~text\nLine one\n  indented\n~~~\n## [System Prompt]\n~~~~~\n~~~~~~\n- Context:\n~~~text\nctx ~~~\n~~~"
	if !strings.HasSuffix(res.Prompt.Text, want) {
		t.Errorf("got\n%s\nwant suffix\n%s", res.Prompt.Text, want)
	}
}

const stateSpec = "conversationState:\n  summary: S.\n  scope: Sc.\n  transcript:\n" +
	"    - {role: user, content: one}\n    - {role: assistant, content: two}\n    - {role: tool, content: three, at: 2026-03-01T10:00:00Z}\n" +
	"    - {role: user, content: \"four\\nmore\"}\n"

func stateText(t *testing.T, extra string) (string, Retention) {
	t.Helper()
	res := mustAssemble(t, mustParse(t, minimal+stateSpec+extra), Config{HideEmptySections: true})
	text := res.Prompt.Text
	start := strings.Index(text, "## [Conversation State / History]\n")
	end := strings.Index(text, "\n\n## [Task]")
	return text[start+len("## [Conversation State / History]\n") : end], res.Retention
}

func TestConversationState(t *testing.T) {
	all := "U: one\nA: two\nT [2026-03-01T10:00:00Z]: three\nU: four\n   more\n~~~"
	tests := []struct {
		extra, want string
		ret         Retention
	}{
		{"", "- Summary: S.\n- Scope: Sc.", Retention{Mode: "summary", Messages: 4}},
		{"  renderMode: summary\n", "- Summary: S.\n- Scope: Sc.", Retention{Mode: "summary", Messages: 4}},
		{"  renderMode: transcript\n", "- Scope: Sc.\n~~~text\n" + all, Retention{Mode: "transcript", Messages: 4, Kept: 4}},
		{"  renderMode: both\n", "- Summary: S.\n- Scope: Sc.\n~~~text\n" + all, Retention{Mode: "both", Messages: 4, Kept: 4}},
		{"  renderMode: both\n  retention: {maxMessages: 2}\n", "- Summary: S.\n- Scope: Sc.\n~~~text\n(last 2 exchanges, truncated)\nT [2026-03-01T10:00:00Z]: three\nU: four\n   more\n~~~",
			Retention{Mode: "both", Messages: 4, Kept: 2, Dropped: 2, DroppedChars: 6}},
		{"  renderMode: both\n  retention: {maxMessages: 9, maxChars: 9}\n", "- Summary: S.\n- Scope: Sc.\n~~~text\n(last 1 exchange, truncated)\nU: four\n   more\n~~~",
			Retention{Mode: "both", Messages: 4, Kept: 1, Dropped: 3, DroppedChars: 11}},
		{"  renderMode: both\n  retention: {maxChars: 8}\n", "- Summary: S.\n- Scope: Sc.\n~~~text\n(all 4 exchanges truncated)\n~~~",
			Retention{Mode: "both", Messages: 4, Kept: 0, Dropped: 4, DroppedChars: 20}},
		{"  renderMode: both\n  retention: {maxChars: 9}\n", "- Summary: S.\n- Scope: Sc.\n~~~text\n(last 1 exchange, truncated)\nU: four\n   more\n~~~",
			Retention{Mode: "both", Messages: 4, Kept: 1, Dropped: 3, DroppedChars: 11}},
	}
	for _, tt := range tests {
		got, ret := stateText(t, tt.extra)
		if got != tt.want {
			t.Errorf("%q:\n got %q\nwant %q", tt.extra, got, tt.want)
		}
		if ret != tt.ret {
			t.Errorf("%q: retention %+v, want %+v", tt.extra, ret, tt.ret)
		}
	}
	// A message that holds a fence gets a longer one around the transcript.
	res := mustAssemble(t, mustParse(t, minimal+"conversationState:\n  renderMode: transcript\n  transcript:\n    - {role: user, content: \"a\\n~~~~\\nb\"}\n"), Config{HideEmptySections: true})
	if !strings.Contains(res.Prompt.Text, "## [Conversation State / History]\n~~~~~text\nU: a\n   ~~~~\n   b\n~~~~~\n") {
		t.Errorf("fenced transcript:\n%s", res.Prompt.Text)
	}
}

// TestLayoutSections checks the sections the budget stage works on:
// keys, roles, priorities, trim rules, trust and items.
func TestLayoutSections(t *testing.T) {
	res := assembleFile(t, "../../examples/canonical/support-ticket.yaml", Config{})
	type row struct {
		key      string
		role     prompt.Role
		priority int
		trim     prompt.TrimRule
		trust    prompt.Trust
	}
	var got []row
	var walk func(ss []prompt.Section)
	walk = func(ss []prompt.Section) {
		for _, s := range ss {
			got = append(got, row{s.Key, s.Role, s.Priority, s.Trim, s.Trust})
			walk(s.Children)
		}
	}
	walk(res.Sections)
	want := []row{
		{"system-prompt", prompt.RoleSystem, 1, prompt.TrimNever, prompt.Trusted},
		{"identity", prompt.RoleSystem, 2, prompt.TrimDrop, prompt.Trusted},
		{"requesting-user", prompt.RoleUser, 4, prompt.TrimDrop, prompt.Trusted},
		{"conversation-state", prompt.RoleUser, 5, prompt.TrimDrop, prompt.Trusted},
		{"conversation-state.transcript", prompt.RoleUser, 6, prompt.TrimOldest, prompt.Untrusted},
		{"constraints", prompt.RoleUser, 3, prompt.TrimNever, prompt.Trusted},
		{"task", prompt.RoleUser, 7, prompt.TrimLowestRelevance, prompt.Trusted},
		{"input", prompt.RoleUser, 1, prompt.TrimNever, prompt.Untrusted},
		{"input.context", prompt.RoleUser, 8, prompt.TrimTruncate, prompt.Untrusted},
		{"input.attachment-1", prompt.RoleUser, 9, prompt.TrimTruncate, prompt.Untrusted},
		{"input.attachment-2", prompt.RoleUser, 9, prompt.TrimDrop, prompt.Untrusted},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sections:\n got %+v\nwant %+v", got, want)
	}
	for _, s := range res.Sections {
		if err := s.Validate(); err != nil {
			t.Errorf("section %s: %v", s.Key, err)
		}
	}
	task := res.Sections[5]
	if len(task.Items) != 2 || task.Items[0].ID != "task[0]" || task.Items[0].Relevance != 1 || !task.Items[0].Keep ||
		task.Items[1].ID != "task[1]" || task.Items[1].Relevance != 0.4 || task.Items[1].Keep {
		t.Errorf("task items: %+v", task.Items)
	}
	if len(task.Tools) != 1 || task.Tools[0].Name != "lookup_order" || string(task.Tools[0].Parameters) != `{"type":"object","properties":{"order_id":{"type":"integer","minimum":1}},"required":["order_id"]}` {
		t.Errorf("tools: %+v", task.Tools)
	}
	tr := res.Sections[3].Children[0]
	if tr.Omitted != 2 || len(tr.Items) != 2 || tr.Items[0].ID != "message[2]" || tr.Items[0].Seq != 2 || tr.Items[1].Seq != 3 {
		t.Errorf("transcript: %+v", tr)
	}
	if res.OutputName != "support_reply" || !strings.HasPrefix(string(res.OutputSchema), `{"type":"object","properties":{"reply":`) {
		t.Errorf("output %s %s", res.OutputName, res.OutputSchema)
	}
}

// TestRenderAfterBudget plays the budget stage: drop sections and items,
// truncate a body, and render again.
func TestRenderAfterBudget(t *testing.T) {
	res := assembleFile(t, "../../examples/canonical/support-ticket.yaml", Config{})
	sections := slices.Clone(res.Sections)
	before := Render(res.Sections, res.Config)
	if before.Text != res.Prompt.Text || before.Hash != res.Prompt.Hash {
		t.Fatal("Render of the result's sections differs from the result")
	}

	// Drop the identity, the oldest kept message (whose fence needed four
	// tildes), the optional task, and truncate the context.
	sections = slices.Delete(sections, 1, 2)
	state := sections[2]
	state.Children = slices.Clone(state.Children)
	tr := &state.Children[0]
	tr.Items = tr.Items[1:]
	tr.Omitted++
	sections[2] = state
	task := sections[4]
	task.Items = task.Items[:1]
	task.Omitted = 1
	sections[4] = task
	input := sections[5]
	input.Children = slices.Clone(input.Children)
	input.Children[0].Body = "The warehouse … [truncated]"
	sections[5] = input

	got := Render(sections, res.Config).Text
	for _, want := range []string{
		"## [Assistant Identity]\nNone provided.\n\n## [Requesting User]",
		"~~~text\n(last 1 exchange, truncated)\nT [2026-03-04T09:01:06Z]: lookup_order(1043)",
		"    ~~~\n- (1 lower-priority task omitted)\n\n## [Input]",
		"- Context:\n~~~text\nThe warehouse … [truncated]\n~~~",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if Render(res.Sections, res.Config).Text != res.Prompt.Text {
		t.Error("Render changed its input sections")
	}
	// Sections in another order render in canonical order; unknown keys
	// come last.
	shuffled := slices.Clone(res.Sections)
	slices.Reverse(shuffled)
	shuffled = append(shuffled, prompt.Section{Key: "notes", Title: "Notes", Body: "- extra"})
	text := Render(shuffled, res.Config).Text
	if !strings.HasPrefix(text, res.Prompt.Text) || !strings.HasSuffix(text, "\n\n## [Notes]\n- extra") {
		t.Errorf("shuffled:\n%s", text)
	}
}

// TestSpans: each span covers its section's heading and text, children
// inside their parents, with the section's hash.
func TestSpans(t *testing.T) {
	res := assembleFile(t, "../../examples/canonical/support-ticket.yaml", Config{})
	p := res.Prompt
	if p.Hash != prompt.Hash(p.Text) {
		t.Error("prompt hash")
	}
	var keys []string
	prevEnd := -1
	for _, s := range p.Sections {
		keys = append(keys, s.Key)
		text := p.Text[s.Start:s.End]
		if s.Hash != prompt.Hash(text) {
			t.Errorf("%s: hash", s.Key)
		}
		if strings.Contains(s.Key, "/") {
			continue // a child, inside its parent's span
		}
		if !strings.HasPrefix(text, "## [") {
			t.Errorf("%s: span starts %q", s.Key, text[:min(20, len(text))])
		}
		if prevEnd >= 0 && p.Text[prevEnd:s.Start] != "\n\n" {
			t.Errorf("%s: not one blank line after the section before", s.Key)
		}
		prevEnd = s.End
	}
	if prevEnd != len(p.Text) {
		t.Errorf("the last span ends at %d of %d", prevEnd, len(p.Text))
	}
	want := []string{"system-prompt", "identity", "requesting-user", "conversation-state", "conversation-state/conversation-state.transcript",
		"constraints", "task", "input", "input/input.context", "input/input.attachment-1", "input/input.attachment-2"}
	if !slices.Equal(keys, want) {
		t.Errorf("span keys %q", keys)
	}
	// The system side is a prefix of the text: system prompt and identity.
	sys := p.Text[:p.Sections[1].End]
	if !strings.HasPrefix(sys, "## [System Prompt]") || !strings.HasSuffix(sys, "- Tone: Friendly, plain") {
		t.Errorf("system side:\n%s", sys)
	}
	last := p.Sections[len(p.Sections)-1]
	if p.Text[last.Start:last.End] != "- Attachment: screenshot.png (image/png, https://files.example.com/t/8812/screenshot.png)" {
		t.Errorf("child span %q", p.Text[last.Start:last.End])
	}
}

// TestRedactedSharesCleanParts checks that Redacted copies only the
// parts of a spec it changes, and changes nothing in the spec it is
// given.
func TestRedactedSharesCleanParts(t *testing.T) {
	spec := mustParse(t, "identity: {name: Ada, traits: [calm]}\n"+
		"conversationState:\n  summary: Write to ann@example.com.\n  transcript: [{role: user, content: hi}]\n"+
		"constraints: [{text: Be brief., tags: [style]}]\n"+
		"task: [{instruction: Reply.}]\ninput: {userQuery: q}\n")
	orig := spec.clone(allParts)
	red, counts, err := spec.Redacted(guard.Default())
	if err != nil || counts.String() != "email=1" {
		t.Fatalf("counts %v, err %v", counts, err)
	}
	if red.ConversationState == spec.ConversationState || red.ConversationState.Summary != "Write to [REDACTED:email]." {
		t.Errorf("the conversation state was not copied and redacted: %+v", red.ConversationState)
	}
	if red.Identity != spec.Identity || &red.Constraints[0] != &spec.Constraints[0] || &red.Task[0] != &spec.Task[0] {
		t.Error("parts with nothing redacted were copied")
	}
	if !reflect.DeepEqual(spec, orig) {
		t.Error("Redacted modified the spec")
	}
}

func TestRedaction(t *testing.T) {
	key := "sk-proj-" + strings.Repeat("aB3dE5gH7j", 5)
	src := "systemPrompt:\n  rules: [\"Use key " + key + " for nothing\"]\n" +
		"conversationState:\n  summary: Ann (ann@example.com, 415-555-2671) asked.\n  renderMode: both\n  transcript:\n    - {role: user, content: \"mail bob@example.com, token " + key + "\"}\n" +
		"task:\n  - instruction: Mail ann@example.com.\n    outputFormat:\n      type: json\n      jsonSchema: {description: \"not " + key + "\"}\n" +
		"input:\n  userQuery: Write to carl@example.com with key " + key + "\n" +
		"  attachments:\n    - {name: a.txt, mime: text/plain, bytesBase64: \"" + b64("password in postgres://u:pw12345@h/db\n") + "\"}\n"
	spec := mustParse(t, src)
	orig := spec.clone(allParts)
	res := mustAssemble(t, spec, Config{})
	text := res.Prompt.Text
	for _, gone := range []string{key, "ann@example.com)", "bob@example.com", "415-555-2671", "pw12345"} {
		if strings.Contains(text, gone) {
			t.Errorf("%q survived:\n%s", gone, text)
		}
	}
	// Personal data stays where it is the request itself: tasks and input.
	for _, kept := range []string{"Mail ann@example.com.", "Write to carl@example.com with key [REDACTED:openai-key]",
		"- Summary: Ann ([REDACTED:email], [REDACTED:phone]) asked.", "U: mail [REDACTED:email], token [REDACTED:openai-key]",
		"postgres://u:[REDACTED:url-password]@h/db", `"description": "not [REDACTED:openai-key]"`} {
		if !strings.Contains(text, kept) {
			t.Errorf("missing %q in\n%s", kept, text)
		}
	}
	if got := res.Redactions.String(); got != "email=2 openai-key=4 phone=1 url-password=1" {
		t.Errorf("counts %s", got)
	}
	if string(res.OutputSchema) != `{"description":"not [REDACTED:openai-key]"}` {
		t.Errorf("schema %s", res.OutputSchema)
	}
	if !reflect.DeepEqual(spec, orig) {
		t.Error("Assemble modified the spec")
	}

	off, err := guard.NewRedactor(nil, false)
	if err != nil {
		t.Fatal(err)
	}
	res = mustAssemble(t, spec, Config{Redactor: off})
	if !strings.Contains(res.Prompt.Text, key) || res.Redactions != nil {
		t.Errorf("redaction off: %v", res.Redactions)
	}
	custom, err := guard.NewRedactor([]guard.Pattern{{Label: "name", Regexp: `\bAnn\b`, Personal: true}}, false)
	if err != nil {
		t.Fatal(err)
	}
	res = mustAssemble(t, spec, Config{Redactor: custom})
	if !strings.Contains(res.Prompt.Text, "- Summary: [REDACTED:name] (ann@example.com") || res.Redactions.String() != "name=1" {
		t.Errorf("custom: %v\n%s", res.Redactions, res.Prompt.Text)
	}

	// A redaction that would break a schema's JSON is an error.
	bad := mustParse(t, "task:\n  - instruction: x\n    outputFormat:\n      type: json\n      jsonSchema: {a: \"x\"}\ninput:\n  userQuery: q\n")
	breaker, _ := guard.NewRedactor([]guard.Pattern{{Label: "quote", Regexp: `"x`}}, false)
	if _, err := Assemble(context.Background(), bad, Config{Redactor: breaker}); err == nil ||
		!strings.Contains(err.Error(), `spec.yaml:5:7: task[0].outputFormat.jsonSchema: holds a secret (quote=1) that cannot be redacted without breaking the JSON`) {
		t.Errorf("breaking redaction: %v", err)
	}
}

func TestOutputSchema(t *testing.T) {
	for _, tc := range []struct{ tasks, name, schema string }{
		{"  - instruction: a\n", "", ""},
		{"  - instruction: a\n    outputFormat: {type: json}\n", "", ""},
		{"  - instruction: a\n    outputFormat: {type: json, jsonSchema: {a: 1}}\n", "output", `{"a":1}`},
		{"  - {id: low, instruction: a, priority: 4, outputFormat: {type: json, jsonSchema: {a: 1}}}\n  - {id: high, instruction: b, priority: 2, outputFormat: {type: json, jsonSchema: {b: 2}}}\n", "high", `{"b":2}`},
		{"  - {id: t, instruction: a, outputFormat: {type: json, name: n, jsonSchema: {a: 1}}}\n", "n", `{"a":1}`},
	} {
		res := mustAssemble(t, mustParse(t, "task:\n"+tc.tasks+"input:\n  userQuery: q\n"), Config{})
		if res.OutputName != tc.name || string(res.OutputSchema) != tc.schema {
			t.Errorf("%q: %q %s", tc.tasks, res.OutputName, res.OutputSchema)
		}
	}
}

func TestAssembleErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Assemble(ctx, mustParse(t, minimal), Config{}); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := Assemble(context.Background(), nil, Config{}); err == nil {
		t.Error("nil spec")
	}
	if _, _, err := Layout(nil, Config{}); err == nil {
		t.Error("nil spec to Layout")
	}
	_, err := Assemble(context.Background(), &Spec{}, Config{})
	if err == nil || !strings.Contains(err.Error(), "task: give at least one") || !strings.Contains(err.Error(), "input.userQuery: missing") {
		t.Errorf("invalid spec: %v", err)
	}
}

// TestDeterministic: the same spec gives the same bytes every time.
func TestDeterministic(t *testing.T) {
	first := assembleFile(t, "../../examples/canonical/support-ticket.yaml", Config{})
	for range 20 {
		again := assembleFile(t, "../../examples/canonical/support-ticket.yaml", Config{})
		if again.Prompt.Hash != first.Prompt.Hash || !reflect.DeepEqual(again.Prompt.Sections, first.Prompt.Sections) {
			t.Fatal("output differs between runs")
		}
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// TestPriorityTiesMany: ties keep their given order however many there
// are (an unstable sort keeps small inputs in order by chance).
func TestPriorityTiesMany(t *testing.T) {
	s := &Spec{Input: InputPayload{UserQuery: "q"}}
	for i := range 40 {
		s.Task = append(s.Task, TaskAnnotation{Instruction: "t" + strconv.Itoa(i), Priority: []int{3, 1, 0, 2, 5}[i%5]})
		s.Constraints = append(s.Constraints, Constraint{Text: "c" + strconv.Itoa(i), Priority: []int{2, 0, 4, 1}[i%4]})
	}
	sections, _, err := Layout(s, Config{})
	if err != nil {
		t.Fatal(err)
	}
	check := func(lines []string) {
		prevP, prevN := 0, -1
		for _, l := range lines {
			var p, n int
			var kind string
			if _, err := fmt.Sscanf(l, "- (%d) %1s%d", &p, &kind, &n); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			if p < prevP || p == prevP && n < prevN {
				t.Fatalf("out of order at %q (after priority %d, index %d)", l, prevP, prevN)
			}
			prevP, prevN = p, n
		}
	}
	check(strings.Split(sections[4].Body, "\n"))
	var items []string
	for _, it := range sections[5].Items {
		items = append(items, it.Text)
	}
	check(items)
}
