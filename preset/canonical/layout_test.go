package canonical

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/prompt"
)

func TestSectionKeys(t *testing.T) {
	want := []string{"system-prompt", "identity", "requesting-user", "conversation-state", "constraints", "task", "input"}
	if got := SectionKeys(); !slices.Equal(got, want) {
		t.Errorf("SectionKeys() = %q", got)
	}
	sections, _, err := Layout(mustParse(t, minimal), Config{})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, s := range sections {
		keys = append(keys, s.Key)
	}
	if !slices.Equal(keys, want) {
		t.Errorf("Layout keys %q", keys)
	}
	if _, _, err := Layout(&Spec{}, Config{}); err == nil {
		t.Error("Layout accepted an invalid spec")
	}
}

func TestTaskOutputFormat(t *testing.T) {
	src := "task:\n" +
		"  - instruction: Write notes.\n    outputFormat:\n      type: markdown\n      example: |\n        # Notes\n        ~~~\n        code\n        ~~~\n" +
		"  - instruction: Say yes or no.\n    outputFormat: {type: text, example: \"yes\"}\n" +
		"  - instruction: Return XML.\n    outputFormat: {type: xml}\n" +
		"input:\n  userQuery: q\n"
	res := mustAssemble(t, mustParse(t, src), Config{HideEmptySections: true})
	want := "## [Task]\n" +
		"- (3) Write notes.\n  - Output format: Markdown\n  - Example output:\n    ~~~~markdown\n    # Notes\n    ~~~\n    code\n    ~~~\n    ~~~~\n" +
		"- (3) Say yes or no.\n  - Output format: plain text\n  - Example output:\n    ~~~text\n    yes\n    ~~~\n" +
		"- (3) Return XML.\n  - Output format: XML\n\n"
	if !strings.HasPrefix(res.Prompt.Text, want) {
		t.Errorf("got\n%s\nwant prefix\n%s", res.Prompt.Text, want)
	}
	if res.OutputSchema != nil {
		t.Errorf("schema %s without a JSON format", res.OutputSchema)
	}
}

// TestRenderGeneric covers what Render does for sections beyond the
// canonical layout: summary visibility, trusted items with a note, and
// an untrusted child without a title.
func TestRenderGeneric(t *testing.T) {
	sections := []prompt.Section{
		{Key: "notes", Title: "Notes", Body: "long body", Summary: "short", Visibility: prompt.Summary},
		{Key: "memory", Title: "Memory", Items: []prompt.Item{{ID: "a", Text: "- a"}, {ID: "b", Text: "- b"}}, Omitted: 3,
			Children: []prompt.Section{{Key: "memory.raw", Trust: prompt.Untrusted, Body: "raw ~~~"}}},
		{Key: "empty", Title: "Empty"},
		{Key: "gone", Title: "Gone", Omitted: 1},
	}
	got := Render(sections, Config{HideEmptySections: true, HeadingLevel: 3}).Text
	want := "### [Notes]\nshort\n\n### [Memory]\n- a\n- b\n- (3 items omitted)\n~~~text\nraw ~~~\n~~~\n\n### [Gone]\n- (1 item omitted)"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestAttachmentBase64Wrapped(t *testing.T) {
	src := "task: [{instruction: x}]\ninput:\n  userQuery: q\n  attachments:\n    - name: n.txt\n      mime: text/plain; charset=utf-8\n      bytesBase64: |\n        aGVsbG8g\n        d29ybGQ=\n"
	res := mustAssemble(t, mustParse(t, src), Config{HideEmptySections: true})
	if !strings.HasSuffix(res.Prompt.Text, "- Attachment: n.txt (text/plain; charset=utf-8):\n~~~text\nhello world\n~~~") {
		t.Errorf("got\n%s", res.Prompt.Text)
	}
}

func TestLongValueClipped(t *testing.T) {
	long := strings.Repeat("x", 100)
	_, err := ParseSpec("spec.yaml", []byte(minimal+"identity: "+long+"\n"))
	if err == nil || !strings.Contains(err.Error(), `found the text "`+strings.Repeat("x", 40)+`…"`) {
		t.Errorf("error %v", err)
	}
}

// TestJSONRoundTrip: a spec written as JSON with its own tags parses back
// to a spec that renders the same text; the tags are the file format.
func TestJSONRoundTrip(t *testing.T) {
	for _, name := range []string{"v2-example", "support-ticket"} {
		path := "../../examples/canonical/" + name + ".yaml"
		res := assembleFile(t, path, Config{})
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		spec := mustParse(t, string(data))
		js, err := json.MarshalIndent(spec, "", "\t")
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseSpec(name+".json", js)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, js)
		}
		again := mustAssemble(t, back, Config{})
		if again.Prompt.Text != res.Prompt.Text || string(again.OutputSchema) != string(res.OutputSchema) {
			t.Errorf("%s: JSON round trip renders differently:\n%s", name, again.Prompt.Text)
		}
	}
}

// TestAssembleConcurrent: one spec, many goroutines, the same bytes (run
// with -race).
func TestAssembleConcurrent(t *testing.T) {
	res := assembleFile(t, "../../examples/canonical/support-ticket.yaml", Config{})
	data, err := os.ReadFile("../../examples/canonical/support-ticket.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec := mustParse(t, string(data))
	var wg sync.WaitGroup
	hashes := make([]string, 8)
	for i := range hashes {
		wg.Go(func() {
			r, err := Assemble(context.Background(), spec, Config{})
			if err == nil {
				hashes[i] = r.Prompt.Hash
			}
		})
	}
	wg.Wait()
	for _, h := range hashes {
		if h != res.Prompt.Hash {
			t.Fatalf("hash %q, want %q", h, res.Prompt.Hash)
		}
	}
}

// TestWriteSchema checks that a schema written in one pass reads as the
// schema indented, fenced and indented again, step by step.
func TestWriteSchema(t *testing.T) {
	for _, raw := range []string{
		`{}`,
		`{"type":"object"}`,
		`{"type":"object","properties":{"a":{"type":"array","items":{}},"b":{"enum":[1,2.5,null,true]}},"required":[]}`,
		`{"description":"a ~~~ fence\n~~~~ and more","x":"~"}`,
		`{"description":"line\nbreaks \"quoted\" \u2028"}`,
		"  {\"a\": [1,\n 2]}\n",
		`{"a":1} `,
	} {
		var b strings.Builder
		writeSchema(&b, json.RawMessage(raw))
		if want := indent(guard.Fence(indentJSON(json.RawMessage(raw)), "json"), "    "); b.String() != want {
			t.Errorf("schema %q:\n%s\nwant\n%s", raw, b.String(), want)
		}
	}
}

// TestIndexNames checks the names made once against the names made on
// demand, past the first ones too.
func TestIndexNames(t *testing.T) {
	for _, i := range []int{0, 1, 31, 32, 40, 1000} {
		for _, c := range []struct {
			n    *indexNames
			want string
		}{
			{taskIDs, "task[" + strconv.Itoa(i) + "]"},
			{messageIDs, "message[" + strconv.Itoa(i) + "]"},
			{attachmentKeys, keyAttachmentPrefix + strconv.Itoa(i+1)},
			{attachmentSources, "input.attachments[" + strconv.Itoa(i) + "]"},
		} {
			if got := c.n.name(i); got != c.want {
				t.Errorf("name(%d) = %q, want %q", i, got, c.want)
			}
		}
	}
}
