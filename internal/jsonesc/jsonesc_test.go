package jsonesc

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestByte agrees with encoding/json on every byte after a backslash.
func TestByte(t *testing.T) {
	for e := range 256 {
		if e == 'u' {
			continue
		}
		var want string
		err := json.Unmarshal([]byte{'"', '\\', byte(e), '"'}, &want)
		c, ok := Byte(byte(e))
		if ok != (err == nil) || ok && string(rune(c)) != want {
			t.Errorf("\\%c: Byte = %q %v, encoding/json %q %v", e, c, ok, want, err)
		}
	}
}

// TestAppendStringHTML agrees with encoding/json, byte for byte, on text
// of every kind: ASCII, HTML, control characters, the line separators,
// multi-byte characters and invalid UTF-8.
func TestAppendStringHTML(t *testing.T) {
	for _, s := range appendCases() {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString(nil, s, true); string(got) != string(want) {
			t.Errorf("AppendString(%q, html) = %s, encoding/json %s", s, got, want)
		}
	}
}

// TestAppendString checks the plain escaping: valid JSON that reads back
// as the text (with U+FFFD for invalid UTF-8), '<', '>' and '&' as they
// are, and what it writes otherwise the same as encoding/json.
func TestAppendString(t *testing.T) {
	for _, s := range appendCases() {
		got := AppendString([]byte("x"), s, false)
		if got[0] != 'x' {
			t.Fatalf("AppendString(%q) did not append: %s", s, got)
		}
		got = got[1:]
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("AppendString(%q) = %s: not valid JSON: %v", s, got, err)
		}
		if want := strings.ToValidUTF8(s, "\ufffd"); back != want && utf8.ValidString(s) {
			t.Errorf("AppendString(%q) reads back as %q", s, back)
		}
		html, _ := json.Marshal(s)
		want := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&", `\ufffd`, "\ufffd").Replace(string(html))
		if string(got) != want {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	}
}

func appendCases() []string {
	cases := []string{"", "plain text", `"quoted" \back\slash`, "<b>x & y</b>", "tab\there\nline\r\b\f\x00\x1f\x7f",
		"\u2028 and \u2029", "café ☃ 😀", "bad \xff byte", "\xe2\x80", "end \xc3", "\ufffd", "\xed\xa0\x80"}
	for c := range 256 {
		cases = append(cases, "a"+string([]byte{byte(c)})+"z")
	}
	return cases
}
