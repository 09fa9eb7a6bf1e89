package prompt

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\nb\n", "a\nb\n"},
		{"a\r\nb\r\n", "a\nb\n"},
		{"a\rb\r", "a\nb\n"},
		{"a\r\r\nb", "a\n\nb"},
		{"\uFEFFa\r\n", "a\n"},
		{"\uFEFF\uFEFFa", "a"},   // every leading mark, so normalising twice changes nothing
		{"a\uFEFFb", "a\uFEFFb"}, // only a leading mark is dropped
		{"\u0085 é 日本 🙂", "\u0085 é 日本 🙂"},
		{"", ""},
	}
	for _, tt := range tests {
		got, err := Normalize([]byte(tt.in))
		if err != nil || got != tt.want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestNormalizeInvalidUTF8(t *testing.T) {
	tests := []struct {
		in             string
		off, line, col int
	}{
		{"ok\n\xff", 3, 2, 1},
		{"\uFEFF\n\nab\xc3\x28", 7, 3, 3}, // the offset counts the byte-order mark
		{"\uFEFFab\xff", 5, 1, 6},         // so does the column of the first line
		{"\xed\xa0\x80", 0, 1, 1},         // an encoded surrogate is not UTF-8
	}
	for _, tt := range tests {
		_, err := Normalize([]byte(tt.in))
		var ee *EncodingError
		if !errors.As(err, &ee) || ee.Offset != tt.off || ee.Line != tt.line || ee.Col != tt.col {
			t.Errorf("Normalize(%q) error = %+v, want offset %d line %d col %d", tt.in, ee, tt.off, tt.line, tt.col)
		}
	}
}

func TestHash(t *testing.T) {
	// SHA-256 test vector for "abc".
	if got := Hash("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("Hash(abc) = %s", got)
	}
	crlf, _ := Normalize([]byte("x\r\ny"))
	lf, _ := Normalize([]byte("x\ny"))
	if Hash(crlf) != Hash(lf) {
		t.Error("line ends change the hash after normalisation")
	}
}

func TestValidKey(t *testing.T) {
	for _, k := range []string{"a", "role", "task-state", "memory.v2", "x_1", "0", strings.Repeat("a", 64)} {
		if !ValidKey(k) {
			t.Errorf("%q rejected", k)
		}
	}
	for _, k := range []string{"", "Role", "-a", ".a", "a b", "a/b", strings.Repeat("a", 65)} {
		if ValidKey(k) {
			t.Errorf("%q accepted", k)
		}
	}
}

func TestSectionValidate(t *testing.T) {
	ok := Section{
		Key: "root", Title: "Root", Body: "body", Priority: 1, Role: RoleSystem, Trim: TrimNever,
		Children: []Section{
			{Key: "memory", Trim: TrimLowestRelevance, Trust: Untrusted, Items: []Item{{ID: "m1", Text: "x", Relevance: 0.9}, {ID: "m2", Text: "y"}}},
			{Key: "tools", Trim: TrimDrop, Tools: []Tool{{Name: "read_file", Parameters: []byte(`{"type":"object"}`)}}},
			{Key: "summary", Visibility: Summary, Summary: "short", Body: "long"},
		},
	}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid section rejected: %v", err)
	}
	bad := Section{
		Key: "Root",
		Children: []Section{
			{Key: "a", Trim: TrimOldest, Body: "text but no items"},
			{Key: "a", Items: []Item{{ID: "x"}, {ID: "x"}}},
			{Key: "s", Visibility: Summary},
			{Key: "t", Tools: []Tool{{}}},
			{Key: "e", Trust: Trust(9)},
		},
	}
	err := bad.Validate()
	if err == nil {
		t.Fatal("invalid section accepted")
	}
	for _, w := range []string{`section "Root": key must match`, `"Root/a": trim rule oldest works on items`, `child key "a" is repeated`,
		`item id "x" is empty or repeated`, `"Root/s": visibility is summary but the summary is empty`, `"Root/t": a tool has no name`, `"Root/e": trust, visibility`} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q in %v", w, err)
		}
	}
}

func TestEnumNames(t *testing.T) {
	for _, name := range []string{"never", "drop", "lowest-relevance", "oldest", "truncate"} {
		r, err := ParseTrimRule(name)
		if err != nil || r.String() != name {
			t.Errorf("trim rule %q: %v %v", name, r, err)
		}
	}
	if r, err := ParseRole("system"); err != nil || r != RoleSystem {
		t.Error("role")
	}
	if v, err := ParseVisibility("summary"); err != nil || v != Summary {
		t.Error("visibility")
	}
	if tr, err := ParseTrust("untrusted"); err != nil || tr != Untrusted {
		t.Error("trust")
	}
	if _, err := ParseTrimRule("sometimes"); err == nil || !strings.Contains(err.Error(), "use one of never, drop") {
		t.Errorf("bad name: %v", err)
	}
	if Trust(7).String() != "invalid(7)" {
		t.Error("out-of-range name")
	}
}
