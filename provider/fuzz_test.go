package provider

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/prompt"
)

// FuzzEncode checks that any text and any schema bytes give, for every
// format, either an error or a compact JSON body that decodes back to the
// same text (text that is not UTF-8 has its bad bytes replaced).
func FuzzEncode(f *testing.F) {
	f.Add("system", "user \"quoted\" <b>\n", `{"type":"object","properties":{"b":{},"a":{}}}`, true)
	f.Add("", "\x00\x1f\u2028\xff", `{}`, false)
	f.Add("s", "u", `[1]`, true)
	f.Add("s", "u", `{"a":1,"a":2}`, true)
	f.Add("s", "", `not json`, false)
	f.Fuzz(func(t *testing.T, system, user, schemaText string, strict bool) {
		req := Request{
			System: []Part{{Key: "s", Text: system, Stable: true}},
			User:   []Part{{Key: "u", Text: user, Stable: strict}},
			Tools:  []prompt.Tool{{Name: "tool", Parameters: json.RawMessage(schemaText)}},
			Output: &Output{Schema: json.RawMessage(schemaText), Strict: strict},
		}
		for _, format := range Formats() {
			b, err := Encode(format, req, Options{CacheBreakpoints: true})
			if err != nil {
				if !strings.HasPrefix(err.Error(), "provider: ") {
					t.Fatalf("%s: error without context: %v", format, err)
				}
				continue
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, b.JSON); err != nil || !bytes.Equal(compact.Bytes(), b.JSON) {
				t.Fatalf("%s: body is not compact JSON (%v): %q", format, err, b.JSON)
			}
			if b.CacheBreakpoints > 4 {
				t.Fatalf("%s: %d breakpoints", format, b.CacheBreakpoints)
			}
			if !utf8.ValidString(user) {
				continue
			}
			if format == OpenAIChat {
				var m struct{ Messages []struct{ Content string } }
				if err := json.Unmarshal(b.JSON, &m); err != nil {
					t.Fatal(err)
				}
				if got := m.Messages[len(m.Messages)-1].Content; got != user {
					t.Fatalf("user text %q came back as %q", user, got)
				}
			}
		}
	})
}

// FuzzFromPrompt checks that any spans over any text give either an error
// or parts whose texts come from the prompt, never a panic.
func FuzzFromPrompt(f *testing.F) {
	f.Add("rules\n\ntask", 0, 5, 7, 11, 2, 3)
	f.Add("abc", -1, 2, 2, 9, 0, 0)
	f.Add("xx yy zz", 3, 5, 0, 2, 3, 4)
	f.Fuzz(func(t *testing.T, text string, s1, e1, s2, e2, s3, e3 int) {
		secs := []prompt.Section{{Key: "a", Role: prompt.RoleSystem}, {Key: "b"}}
		p := prompt.Prompt{Text: text, Sections: []prompt.SectionSpan{
			{Key: "a", Start: s1, End: e1},
			{Key: "b", Start: s2, End: e2},
			{Key: "b/c", Start: s3, End: e3},
		}}
		req, err := FromPrompt(p, secs, StableKeys("a"))
		if err != nil {
			return
		}
		for _, part := range append(req.System, req.User...) {
			if !strings.Contains(text, strings.TrimSpace(part.Text)) && !isBlank(part.Text) {
				// Text outside the spans is joined to a part, so a part
				// is not always one substring; every line of it is.
				for _, line := range strings.Split(part.Text, "\n") {
					if !strings.Contains(text, line) {
						t.Fatalf("part %q has text %q not in the prompt %q", part.Key, line, text)
					}
				}
			}
		}
	})
}
