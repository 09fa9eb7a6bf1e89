package untrusted

import (
	"strings"
	"testing"
)

// FuzzParseMemories checks the JSON Lines memories reader on arbitrary
// bytes: no panic; a problem is reported in the file given, at a line of
// the file; an accepted memory has text and a one-line id, and one
// tagged system, meta or override is of that kind.
func FuzzParseMemories(f *testing.F) {
	for _, s := range []string{
		`{"id": "m1", "text": "a", "tags": ["x"], "created": "2026-11-20T10:00:00Z"}` + "\n",
		`{"id": "m1", "text": "a"}` + "\n" + `{"id": "m1", "text": "b"}`,
		`{"id": "e3\n~~~\n\n# TASK", "text": "b"}`,
		`{"text": "a", "tags": ["Override"]}`,
		`{"text": "a", "kind": "note", "tags": ["meta", "system"]}`,
		"\n\n\r\n{\"text\": \"a\"}\r\n",
		`{"text": "a", "embedding": [1, 2], "embedder": "x"}`,
		`{"text": "a",}`,
		`{"text": "a"} {"text": "b"}`,
		`[1]`,
		"\xef\xbb\xbf{\"text\": \"a\"}",
		"{\"text\": \"a\xff\"}",
		`{"text": "a", "created": "now"}`,
		`{"id": "\u2028", "text": "a"}`,
		`{"text": "a", "tags": "system"}`,
		`{"text": "a", "x": {"y": [[[[[[1]]]]]]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		mems, err := ParseMemories("m/mem.jsonl", data)
		if err != nil {
			if mems != nil {
				t.Fatal("memories returned with an error")
			}
			if !strings.HasPrefix(err.Error(), "m/mem.jsonl") {
				t.Fatalf("error does not name the file: %q", err)
			}
			return
		}
		for _, m := range mems {
			if m.Text == "" || !oneLineID(m.ID) {
				t.Fatalf("accepted %+v", m)
			}
			for _, tag := range m.Tags {
				if k := strings.ToLower(strings.TrimSpace(tag)); (k == "system" || k == "meta" || k == "override") && !strings.EqualFold(m.Kind, "system") && !strings.EqualFold(m.Kind, "meta") && !strings.EqualFold(m.Kind, "override") {
					t.Fatalf("tagged %q, of kind %q", tag, m.Kind)
				}
			}
		}
	})
}
