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
